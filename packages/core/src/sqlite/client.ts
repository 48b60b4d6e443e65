/**
 * The store client (store/client.ts) over the SQLite runner: each statement one step of the fiber, on the write
 * connection inside a transaction and on the turn's read snapshot outside one (db.ts).
 */
import type { Params, Row, SqlClient } from "../store/client.js"
import type { Runner } from "./db.js"
import { SQLITE_DIALECT } from "./dialect.js"

const values = (params: Params | undefined): Array<unknown> => (params === undefined ? [] : Array.isArray(params) ? params : [params])
const RETURNING = /\bRETURNING\b/i

export const sqliteClient = (run: Runner): SqlClient => ({
  get: <A>(sql: string, params?: Params, map?: (row: Row) => A) =>
    run.read((_, s) => {
      const row = s(sql).get(...values(params)) as Row | undefined
      return row === undefined ? undefined : map === undefined ? (row as A) : map(row)
    }),
  all: <A>(sql: string, params?: Params, map?: (row: Row) => A) =>
    run.read((_, s) => {
      const rows = s(sql).all(...values(params)) as Array<Row>
      return map === undefined ? (rows as Array<A>) : rows.map(map)
    }),
  run: <T>(sql: string, params?: Params) =>
    run.write((_, s) => {
      const statement = s(sql)
      if (RETURNING.test(sql)) {
        const rows = statement.all(...values(params)) as Array<T>
        return { rows, changes: rows.length }
      }
      return { rows: [] as Array<T>, changes: statement.run(...values(params)).changes }
    }),
  kept: run.keep,
  epochs: run.cacheEpochs,
  dialect: SQLITE_DIALECT
})
