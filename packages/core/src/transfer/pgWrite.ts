/**
 * How the features above both stores write many rows into PostgreSQL (`convene copy`, and the Loomio import's
 * copy out of its staging file): written once, here.
 */
import type pg from "pg"

/** Rows into a table, as many a statement as its parameters allow (PostgreSQL takes at most 65,535). */
export const insertRows = async (
  client: pg.ClientBase,
  table: string,
  columns: ReadonlyArray<string>,
  rows: ReadonlyArray<ReadonlyArray<unknown>>
) => {
  const per = Math.max(1, Math.min(rows.length, Math.floor(60_000 / columns.length)))
  for (let i = 0; i < rows.length; i += per) {
    const slice = rows.slice(i, i + per)
    const values = slice.map((_, r) => `(${columns.map((_, c) => `$${r * columns.length + c + 1}`).join(", ")})`).join(", ")
    await client.query(`INSERT INTO ${table} (${columns.join(", ")}) VALUES ${values}`, slice.flat())
  }
}

/** Each table's identity column moved past the highest id it holds (a table without rows or identity is left). */
export const settleIds = async (client: pg.ClientBase, tables: ReadonlyArray<string>) => {
  for (const table of tables) {
    await client.query(`SELECT setval(s, m) FROM (SELECT pg_get_serial_sequence($1, 'id') AS s, (SELECT max(id) FROM ${table}) AS m) x
                         WHERE s IS NOT NULL AND m IS NOT NULL`, [table])
  }
}
