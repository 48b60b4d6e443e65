/** The store client (store/client.ts) over the PostgreSQL runner: a statement is one round trip on a pooled connection. */
import { Effect } from "effect"
import { type Params, paramValues, type Row, type SqlClient } from "../store/client.js"
import type { PgRunner } from "./db.js"
import { PG_DIALECT } from "./dialect.js"


const getter = (q: PgRunner) => <A>(sql: string, params?: Params, map?: (row: Row) => A) =>
  Effect.map(q.get<Row>(sql, ...paramValues(params)), (row) => (row === undefined ? undefined : map === undefined ? (row as A) : map(row)))

export const pgClient = (q: PgRunner): SqlClient => ({
  get: getter(q),
  all: <A>(sql: string, params?: Params, map?: (row: Row) => A) =>
    Effect.map(q.all<Row>(sql, ...paramValues(params)), (rows) => (map === undefined ? (rows as Array<A>) : rows.map(map))),
  run: <T>(sql: string, params?: Params) => q.run(sql, ...paramValues(params)) as Effect.Effect<{ rows: Array<T>; changes: number }>,
  // remembered for the request (Store.request), whose first cached read reads the epochs
  remembered: q.remember,
  rememberBeside: q.rememberBeside,
  epochs: q.cacheEpochs,
  lock: (what) =>
    Effect.flatMap(q.inTransaction, (inside) =>
      !inside
        ? Effect.succeed(false)
        : Effect.as(
          "key" in what
            // a key no row stands for (a rate limit's address): a transaction advisory lock on its 64-bit hash
            ? q.query(`SELECT pg_advisory_xact_lock(hashtextextended(?, 7302))`, what.key)
            // NO KEY: rows inserted meanwhile that refer to this one (their foreign keys) do not wait for it
            : q.query(`SELECT 1 FROM ${what.table} WHERE id = ? FOR NO KEY UPDATE`, what.id),
          true
        )),
  // inside a transaction the statement locks what it reads; outside one it must not (a read would wait for writers)
  getLocked: (sql, params, map) =>
    Effect.flatMap(q.inTransaction, (inside) => getter(q)(inside ? `${sql} FOR NO KEY UPDATE` : sql, params, map)),
  dialect: PG_DIALECT
})
