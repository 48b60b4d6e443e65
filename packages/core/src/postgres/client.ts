/** The store client (store/client.ts) over the PostgreSQL runner: a statement is one round trip on a pooled connection. */
import { Effect } from "effect"
import { type Params, paramValues, type Row, type SqlClient } from "../store/client.js"
import type { PgRunner } from "./db.js"
import { PG_DIALECT } from "./dialect.js"


export const pgClient = (q: PgRunner): SqlClient => ({
  get: <A>(sql: string, params?: Params, map?: (row: Row) => A) =>
    Effect.map(q.get<Row>(sql, ...paramValues(params)), (row) => (row === undefined ? undefined : map === undefined ? (row as A) : map(row))),
  all: <A>(sql: string, params?: Params, map?: (row: Row) => A) =>
    Effect.map(q.all<Row>(sql, ...paramValues(params)), (rows) => (map === undefined ? (rows as Array<A>) : rows.map(map))),
  run: <T>(sql: string, params?: Params) => q.run(sql, ...paramValues(params)) as Effect.Effect<{ rows: Array<T>; changes: number }>,
  // every read is its own round trip: nothing is kept between them, and no cache is trusted (no epochs in this schema)
  kept: (_key, read) => read,
  epochs: Effect.succeed(undefined),
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
  dialect: PG_DIALECT
})
