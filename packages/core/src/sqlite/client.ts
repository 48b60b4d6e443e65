/**
 * The store client (store/client.ts) over the SQLite runner: each statement one step of the fiber, on the write
 * connection inside a transaction and on the turn's read snapshot outside one (db.ts).
 */
import { Effect } from "effect"
import { type Params, paramValues, type Row, type SqlClient } from "../store/client.js"
import type { Runner } from "./db.js"
import { SQLITE_DIALECT } from "./dialect.js"

const RETURNING = /\bRETURNING\b/i

const getter = (run: Runner) => <A>(sql: string, params?: Params, map?: (row: Row) => A) =>
  run.read((_, s) => {
    const row = s(sql).get(...paramValues(params)) as Row | undefined
    return row === undefined ? undefined : map === undefined ? (row as A) : map(row)
  })

export const sqliteClient = (run: Runner): SqlClient => ({
  get: getter(run),
  all: <A>(sql: string, params?: Params, map?: (row: Row) => A) =>
    run.read((_, s) => {
      const rows = s(sql).all(...paramValues(params)) as Array<Row>
      return map === undefined ? (rows as Array<A>) : rows.map(map)
    }),
  run: <T>(sql: string, params?: Params) =>
    run.write((_, s) => {
      const statement = s(sql)
      if (RETURNING.test(sql)) {
        const rows = statement.all(...paramValues(params)) as Array<T>
        return { rows, changes: rows.length }
      }
      return { rows: [] as Array<T>, changes: statement.run(...paramValues(params)).changes }
    }),
  remembered: run.remember,
  rememberBeside: run.rememberBeside,
  epochs: run.cacheEpochs,
  // one writer at a time: every transaction is already alone
  lock: () => Effect.succeed(false),
  // one writer at a time: what a write reads is already its own
  getLocked: getter(run),
  dialect: SQLITE_DIALECT
})
