/**
 * The small client both stores implement, and over which every repository is written once (store/*.ts). A
 * statement is written with `?` placeholders (values in order) or `@name` ones (one object of values); both
 * adapters take both. What the engines do differently is here as named values (`ids`, `dialect`), never as a
 * second copy of a repository.
 */
import type { Effect } from "effect"
import type { Locked } from "../ports/store.js"
import type { IdList } from "../sql/scope.js"

export type Row = Record<string, unknown>

/** A statement's values: in order for `?`, or one object for `@name`. */
export type Params = ReadonlyArray<unknown> | Readonly<Record<string, unknown>>

export interface RunResult<T = Row> {
  /** what a RETURNING clause answered (empty without one) */
  readonly rows: ReadonlyArray<T>
  readonly changes: number
}

/** Statements that say the same thing in each engine's words. */
export interface Dialect {
  /** how a bound list is asked for (`column IN list`) and bound: a JSON array read by json_each, or an array */
  readonly ids: IdList
  /** `FOR UPDATE SKIP LOCKED` where the engine has it (servers sharing a database claim different rows); else "" */
  readonly skipLocked: string
  /** whether a chatbot's JSON list of event kinds holds the bound kind */
  readonly eventKindIn: (column: string, param: string) => string
  /** the larger of two values of a row (`max(a, b)`, `GREATEST(a, b)`) */
  readonly greater: (a: string, b: string) => string
  /** whether the engine joins LATERAL: every option's first voters in one statement, else one statement an option */
  readonly lateral: boolean
  /**
   * The WHERE clause of a person's live ballots in a list of polls, written so that the engine walks the
   * (poll, participant) index poll by poll rather than every ballot the person holds in any poll.
   */
  readonly ballotsOf: (pollsParam: string, userParam: string) => string
  /** whether thread `t`'s tags (a JSON list of names) hold the bound `@tag` */
  readonly tagged: string
}

export interface SqlClient {
  /** The first row (mapped by `map`), or undefined: inside a transaction on its connection, else on a reading one. */
  readonly get: <A = Row>(sql: string, params?: Params, map?: (row: Row) => A) => Effect.Effect<A | undefined>
  /** Every row, mapped by `map`. */
  readonly all: <A = Row>(sql: string, params?: Params, map?: (row: Row) => A) => Effect.Effect<Array<A>>
  /** A write, only inside a transaction (outside one it is a programming error). */
  readonly run: <T = Row>(sql: string, params?: Params) => Effect.Effect<RunResult<T>>
  /**
   * A read whose answer is remembered, under `key`, while the reading snapshot lasts (SQLite shares one per turn of
   * the event loop; on PostgreSQL, the request, `Store.request`, until it commits): the same row read twice in a
   * request is read once. Elsewhere, and inside a transaction, it reads.
   */
  readonly remembered: <A>(key: string, read: Effect.Effect<A>) => Effect.Effect<A>
  /**
   * Records read beside another in one statement, remembered as if each had been read through `remembered` under its key
   * (one already remembered stays); `entries` is called only where anything is remembered. One step for them all.
   */
  readonly rememberBeside: (entries: () => ReadonlyArray<readonly [string, unknown]>) => Effect.Effect<void>
  /**
   * The caches' epochs (store/cache.ts) as read before any row the caller reads next; undefined where nothing may
   * be cached: inside a write transaction (its uncommitted rows are not what a cache follows), or on PostgreSQL
   * outside a request (where they would cost a round trip a read).
   */
  readonly epochs: Effect.Effect<ReadonlyMap<string, number> | undefined>
  /**
   * Holds a record (a row of `table`) or a named key until the write transaction ends, where writers run side by
   * side (PostgreSQL: `FOR NO KEY UPDATE`, a transaction advisory lock); a check and the write it guards then see no
   * other writer's change between them. Nothing outside a transaction, nor on SQLite (one writer at a time).
   */
  readonly lock: (what: Locked) => Effect.Effect<boolean>
  /** `get`, the row locked by the same statement as `lock` would lock it (the thread a write checks, read once). */
  readonly getLocked: <A = Row>(sql: string, params?: Params, map?: (row: Row) => A) => Effect.Effect<A | undefined>
  readonly dialect: Dialect
}


/** A statement's values as the drivers take them: the list for `?`, or the one object for `@name`. */
export const paramValues = (params: Params | undefined): ReadonlyArray<unknown> =>
  params === undefined ? [] : Array.isArray(params) ? params : [params]

/** A row handed over as the record it is (a table whose columns are the record's fields, none to convert). */
export const asRecord = <T>() => (row: unknown) => row as T

/** `SET a = @a, b = @b` for a patch object (keys come from typed code, never from input). */
export const setClause = (patch: Readonly<Record<string, unknown>>) => Object.keys(patch).map((k) => `${k} = @${k}`).join(", ")

/** Inserts a row object (its keys come from typed code, never from input), answering `returning`. */
export const insertRow = <T = Row>(c: SqlClient, table: string, row: Readonly<Record<string, unknown>>, returning = "*") => {
  const cols = Object.keys(row)
  return c.run<T>(`INSERT INTO ${table} (${cols.join(", ")}) VALUES (${cols.map((col) => "@" + col).join(", ")}) RETURNING ${returning}`, row)
}

/** The first row a RETURNING clause answered. */
export const returned = <T>(r: RunResult<T>): T => r.rows[0]!
