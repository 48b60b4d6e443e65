/**
 * `convene copy --from SOURCE --to TARGET`: a whole install moved between stores (a SQLite file, a PostgreSQL
 * database; either way), everything kept: ids, keys and hashes, sessions, timestamps, both outboxes (what was
 * waiting is delivered by the target's servers), the Loomio imports' records. The source is read in one
 * snapshot (a server may go on serving it meanwhile: what it writes after the snapshot is not copied); the target
 * is written in one transaction, all or nothing, and must hold no data. The search documents are the source's;
 * the index over them is the target engine's own, made by its triggers; the counters the triggers keep are put
 * back as the source holds them. Each store is reached through an `End` below: what differs between the engines is there.
 */
import type Database from "better-sqlite3"
import { existsSync, rmSync } from "node:fs"
import type pg from "pg"
import { connectTo, describeUrl, isPostgresUrl, makePool, migratePg } from "../postgres/db.js"
import { migrate, openFile } from "../sqlite/db.js"
import { insertRows, settleIds } from "./pgWrite.js"
import { COUNTED } from "./postgres.js"

export class CopyError extends Error {
  override readonly name = "CopyError"
}

export interface CopyProgress {
  readonly table: string
  readonly done: number
  readonly total: number
}

export interface CopyResult {
  readonly from: string
  readonly to: string
  /** rows copied, by table */
  readonly copied: Readonly<Record<string, number>>
}

type Value = unknown
type Rows = Array<Array<Value>>

/** One store as the copy sees it: its tables, read in batches from a snapshot, or written in one transaction. */
interface End {
  readonly name: string
  /** plain tables, in the order they were made (a table before those referring to it), with their columns */
  readonly tables: () => Promise<Array<{ readonly name: string; readonly columns: ReadonlyArray<string> }>>
  readonly count: (table: string) => Promise<number>
  readonly read: (table: string, columns: ReadonlyArray<string>) => AsyncGenerator<Rows>
  readonly begin: (write: boolean) => Promise<void>
  readonly insert: (table: string, columns: ReadonlyArray<string>, rows: Rows) => Promise<void>
  readonly clear: (table: string) => Promise<void>
  readonly update: (table: string, set: ReadonlyArray<string>, key: ReadonlyArray<string>, rows: Rows) => Promise<void>
  /** after the rows, with the tables that have an id: what the engine needs (PostgreSQL's identity columns go on past the copied ids) */
  readonly settle: (tables: ReadonlyArray<string>) => Promise<void>
  readonly commit: () => Promise<void>
  readonly rollback: () => Promise<void>
  readonly close: () => Promise<void>
}

/** Derived by each engine from the documents (its search index), or its own bookkeeping: never copied. */
const NOT_COPIED = /^(search_(?!documents$)|sqlite_|convene_schema$|cache_epochs$)/
/**
 * Made by the target's triggers as the records arrive, then replaced by the source's rows (search results keep
 * their ids); the engine indexes each as it is inserted.
 */
const REMADE = new Set(["search_documents"])
const BATCH = 1000

const sqliteEnd = (filename: string, create: boolean): End => {
  if (!create && !existsSync(filename)) throw new CopyError(`there is no database ${filename}`)
  const db: Database.Database = openFile(filename, false)
  migrate(db)
  return {
    name: filename,
    tables: async () =>
      (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY rowid`).all() as Array<{ name: string }>)
        .filter((t) => !NOT_COPIED.test(t.name))
        .map((t) => ({ name: t.name, columns: (db.pragma(`table_info(${t.name})`) as Array<{ name: string }>).map((c) => c.name) })),
    count: async (table) => (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n,
    read: async function*(table, columns) {
      let batch: Rows = []
      for (const row of db.prepare(`SELECT ${columns.join(", ")} FROM ${table}`).raw().iterate()) {
        batch.push(row as Array<Value>)
        if (batch.length === BATCH) {
          yield batch
          batch = []
        }
      }
      if (batch.length > 0) yield batch
    },
    begin: async (write) => {
      db.exec(write ? "BEGIN IMMEDIATE" : "BEGIN")
      // rows arrive table by table: a reference is checked at commit
      if (write) db.pragma("defer_foreign_keys = ON")
    },
    insert: async (table, columns, rows) => {
      const statement = db.prepare(`INSERT INTO ${table} (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`)
      for (const row of rows) statement.run(...row)
    },
    clear: async (table) => void db.prepare(`DELETE FROM ${table}`).run(),
    update: async (table, set, key, rows) => {
      const statement = db.prepare(`UPDATE ${table} SET ${set.map((c) => `${c} = ?`).join(", ")} WHERE ${key.map((c) => `${c} = ?`).join(" AND ")}`)
      for (const row of rows) statement.run(...row)
    },
    settle: async () => {},
    commit: async () => void db.exec("COMMIT"),
    rollback: async () => {
      if (db.inTransaction) db.exec("ROLLBACK")
    },
    close: async () => void db.close()
  }
}

const pgEnd = async (url: string): Promise<End> => {
  const pool = makePool(url, 1)
  let client: pg.PoolClient
  try {
    await migratePg(pool, url)
    client = await connectTo(pool, url)
  } catch (e) {
    await pool.end().catch(() => undefined)
    throw e
  }
  const q = async <T>(sql: string, values: ReadonlyArray<Value> = []) => (await client.query(sql, values as Array<Value>)).rows as Array<T>
  let cursors = 0
  return {
    name: describeUrl(url),
    tables: async () => {
      const tables = await q<{ name: string }>(
        `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
          WHERE c.relkind = 'r' AND n.nspname = current_schema() ORDER BY c.oid`)
      const out = []
      for (const t of tables.filter((t) => !NOT_COPIED.test(t.name))) {
        const columns = await q<{ name: string }>(
          `SELECT column_name AS name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position`, [t.name])
        out.push({ name: t.name, columns: columns.map((c) => c.name) })
      }
      return out
    },
    count: async (table) => Number((await q<{ n: string }>(`SELECT count(*) AS n FROM ${table}`))[0]!.n),
    read: async function*(table, columns) {
      // a cursor of the snapshot's transaction: a large table is never held whole in memory
      const cursor = `copy_${++cursors}`
      await client.query(`DECLARE ${cursor} NO SCROLL CURSOR FOR SELECT ${columns.join(", ")} FROM ${table}`)
      for (;;) {
        const r = await client.query({ text: `FETCH ${BATCH} FROM ${cursor}`, rowMode: "array" })
        if (r.rows.length === 0) break
        yield r.rows as Rows
      }
      await client.query(`CLOSE ${cursor}`)
    },
    begin: async (write) => {
      await client.query(write ? "BEGIN; SET CONSTRAINTS ALL DEFERRED" : "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
    },
    insert: (table, columns, rows) => insertRows(client, table, columns, rows),
    clear: async (table) => void (await client.query(`DELETE FROM ${table}`)),
    // a batch a statement: the counters and keys are all integers (a flag among them, 0/1, as a boolean)
    update: async (table, set, key, rows) => {
      const columns = [...set, ...key]
      const flags = new Set((await client.query<{ name: string }>(
        `SELECT column_name AS name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1 AND data_type = 'boolean'`,
        [table]
      )).rows.map((r) => r.name))
      const values = rows.map((_, r) => `(${columns.map((_, c) => `$${r * columns.length + c + 1}::bigint`).join(", ")})`).join(", ")
      await client.query(
        `UPDATE ${table} SET ${set.map((c) => `${c} = ${flags.has(c) ? `v.${c} <> 0` : `v.${c}`}`).join(", ")} FROM (VALUES ${values}) AS v(${columns.join(", ")})
          WHERE ${key.map((c) => `${table}.${c} = v.${c}`).join(" AND ")}`,
        rows.flat()
      )
    },
    settle: (tables) => settleIds(client, tables),
    commit: async () => void (await client.query("COMMIT")),
    rollback: async () => void (await client.query("ROLLBACK").catch(() => undefined)),
    close: async () => {
      client.release()
      await pool.end().catch(() => undefined)
    }
  }
}

const open = (target: string, create: boolean): Promise<End> => (isPostgresUrl(target) ? pgEnd(target) : Promise.resolve(sqliteEnd(target, create)))

/** A copied table's counter columns (kept by triggers, counted again as rows arrive) and the key to set them by. */
const countersOf = (table: string) => {
  const set = COUNTED[table]
  return set === undefined ? undefined : { set, key: table === "stance_choices" ? ["stance_id", "poll_option_id"] : ["id"] }
}

export const copyInstall = async (from: string, to: string, onProgress: (p: CopyProgress) => void = () => {}): Promise<CopyResult> => {
  if (from === to) throw new CopyError("the source and the target are the same database")
  // a file the copy made is gone again when the copy fails: nothing is left behind
  const made = !isPostgresUrl(to) && !existsSync(to)
  const source = await open(from, false)
  let target: End | undefined
  let ok = false
  try {
    target = await open(to, true)
    const theirs = new Map((await target.tables()).map((t) => [t.name, t.columns]))
    const tables = (await source.tables()).filter((t) => theirs.has(t.name))
      .map((t) => ({ name: t.name, columns: t.columns.filter((c) => theirs.get(t.name)!.includes(c)) }))
    // a target with data would mix two installs (and their ids): refused before anything is written
    const held: Array<string> = []
    for (const t of tables) {
      const n = await target.count(t.name)
      if (n > 0) held.push(`${n} ${t.name}`)
    }
    if (held.length > 0) {
      throw new CopyError(`the target ${target.name} holds data (${held.slice(0, 4).join(", ")}${held.length > 4 ? ", …" : ""}): copy into an empty database`)
    }

    await source.begin(false)
    const totals = new Map<string, number>()
    for (const t of tables) totals.set(t.name, await source.count(t.name))
    const total = [...totals.values()].reduce((a, b) => a + b, 0)
    await target.begin(true)
    try {
      const copied: Record<string, number> = {}
      let done = 0
      for (const t of tables) {
        copied[t.name] = 0
        if (REMADE.has(t.name)) await target.clear(t.name)
        for await (const rows of source.read(t.name, t.columns)) {
          await target.insert(t.name, t.columns, rows)
          copied[t.name] += rows.length
          done += rows.length
          onProgress({ table: t.name, done, total })
        }
      }
      // the counters as the source holds them: the insert triggers counted the copied rows once more
      for (const t of tables) {
        const counters = countersOf(t.name)
        if (counters === undefined) continue
        for await (const rows of source.read(t.name, [...counters.set, ...counters.key])) await target.update(t.name, counters.set, counters.key, rows)
      }
      await target.settle(tables.filter((t) => t.columns.includes("id")).map((t) => t.name))
      await target.commit()
      ok = true
      return { from: source.name, to: target.name, copied }
    } catch (e) {
      await target.rollback()
      throw e
    }
  } finally {
    await source.rollback().catch(() => undefined)
    await source.close()
    await target?.close()
    if (made && !ok) for (const suffix of ["", "-wal", "-shm"]) rmSync(to + suffix, { force: true })
  }
}
