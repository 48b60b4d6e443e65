import type pg from "pg"
import { createRequire } from "node:module"
import { Cause, Duration, Effect, Exit, type Fiber, FiberRef, Option } from "effect"
import { DatabaseError, type LiveListening } from "../ports/store.js"
import { migrations } from "./migrations/index.js"
import { rowBuilder } from "../sql/rows.js"
import { columnValue } from "../domain/model.js"
import { rememberEntries, rememberedRead } from "../sql/remembered.js"

/** A database that cannot be used; the message names the server (host and port), never the password. */
export class PgDatabaseError extends DatabaseError {}

/** Whether a connection string names a PostgreSQL server rather than a SQLite file. */
export const isPostgresUrl = (target: string) => /^postgres(ql)?:\/\//i.test(target)

/** Where a URL points, for messages: host and port, no credentials. */
export const describeUrl = (url: string) => {
  try {
    const u = new URL(url)
    return `${u.hostname || "localhost"}:${u.port || "5432"}${u.pathname}`
  } catch {
    return "the PostgreSQL server"
  }
}

/** Required when a PostgreSQL database is first opened: a server on its SQLite file never holds the driver. */
let loaded: typeof pg | undefined
const driver = () => (loaded ??= createRequire(import.meta.url)("pg") as typeof pg)

/** PostgreSQL's text for an instant (the session is UTC: "2026-11-27 03:04:05.678+00") as convene writes one: ISO 8601, UTC, milliseconds. */
export const isoInstant = (text: string): string => {
  const m = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d)(\.\d+)?([+-]\d\d(?::?\d\d){0,2})$/.exec(text)
  if (m === null) return new Date(text).toISOString()
  const ms = (m[3] ?? ".").padEnd(4, "0").slice(0, 4)
  return m[4] === "+00" ? `${m[1]}T${m[2]}${ms}Z` : new Date(`${m[1]}T${m[2]}${ms}${m[4]!.length === 3 ? `${m[4]}:00` : m[4]}`).toISOString()
}

/** A column's text as the records hold it (the store's runner reads these): what each of the types convene's columns hold becomes. */
const RECORD_PARSERS: Readonly<Record<number, (text: string) => unknown>> = {
  // bigint (ids, counts, sums) as a number (ids stay far below 2^53)
  20: Number,
  16: (v) => v === "t",
  // timestamptz as ISO text, as written
  1184: isoInstant,
  // date as its text (YYYY-MM-DD), never a JavaScript Date at local midnight
  1082: (v) => v,
  3802: (v) => JSON.parse(v)
}

/**
 * Rows as SQLite gives them (flags as 0/1, JSON as compact text), whatever type PostgreSQL holds: for what reads
 * a convene database's tables directly rather than its records (`convene copy`, tools, tests comparing both stores).
 */
const SQLITE_PARSERS: Readonly<Record<number, (text: string) => unknown>> = {
  ...RECORD_PARSERS,
  16: (v) => (v === "t" ? 1 : 0),
  // PostgreSQL's text spaces its separators; one without a space is already compact
  3802: (v) => (v.includes(" ") ? JSON.stringify(JSON.parse(v)) : v)
}

const typesOf = (parsers: Readonly<Record<number, (text: string) => unknown>>) => ({
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    parsers[oid] ?? driver().types.getTypeParser(oid, format as "text")) as typeof pg.types.getTypeParser
})
/** A pool's type parsers for rows shaped as SQLite's (see SQLITE_PARSERS). */
export const pgRowTypes = typesOf(SQLITE_PARSERS)
/** The store's runner's: rows in the records' own types (flags as booleans, JSON parsed), which their declarations read. */
export const recordTypes = typesOf(RECORD_PARSERS)

/** Written once per SQL text: `?` and `@name` placeholders (the SQLite adapter's) become `$n`. */
export interface Compiled {
  /** the prepared statement's name on every connection (parsed and planned once per connection), if named */
  readonly name: string | undefined
  readonly text: string
  /** the names in order, for a statement written with `@name`; undefined for `?` */
  readonly names: ReadonlyArray<string> | undefined
}
const compiled = new Map<string, Compiled>()
const MAX_PREPARED = 2000
export const compile = (sql: string): Compiled => {
  let c = compiled.get(sql)
  if (c !== undefined) return c
  const names: Array<string> = []
  let n = 0
  let named = false
  // quoted text is copied as it is: a `?` or `@` inside a literal is not a placeholder
  const text = sql.replace(/'(?:[^']|'')*'|\?|@([A-Za-z_][A-Za-z0-9_]*)/g, (m, name: string | undefined) => {
    if (m.startsWith("'")) return m
    if (name === undefined) return `$${++n}`
    named = true
    const i = names.indexOf(name)
    if (i !== -1) return `$${i + 1}`
    names.push(name)
    return `$${names.length}`
  })
  // SQL texts are few (they depend on typed code, not on values): past this many something is generating them
  c = { name: compiled.size < MAX_PREPARED ? `convene_${compiled.size}` : undefined, text, names: named ? names : undefined }
  compiled.set(sql, c)
  return c
}

export const values = (c: Compiled, params: ReadonlyArray<unknown>): Array<unknown> => {
  if (c.names === undefined) return params.map(param)
  const o = (params[0] ?? {}) as Record<string, unknown>
  return c.names.map((k) => param(o[k]))
}
/**
 * Booleans stored as 0/1, as on SQLite (the records' mapping is shared); undefined is NULL. PostgreSQL's text
 * cannot hold NUL: it becomes U+FFFD, so a lookup by a value with a NUL finds nothing (no stored text has one)
 * instead of failing, and text written with one keeps every other character.
 */
const param = (v: unknown) =>
  v === undefined ? null : typeof v === "string" && v.includes("\0") ? v.replaceAll("\0", "\uFFFD") : columnValue(v)

/** A column as pg describes it (its RowDescription). */
interface Column {
  readonly name: string
  readonly dataTypeID: number
}
/** A statement's columns and the function that builds its rows (sql/rows.ts), kept per statement. */
interface Shape {
  readonly columns: ReadonlyArray<Column>
  readonly build: (values: ReadonlyArray<unknown>) => Record<string, unknown>
}
const shapes = new Map<string, Shape>()
const sameColumns = (a: ReadonlyArray<Column>, b: ReadonlyArray<Column>) =>
  a.length === b.length && a.every((column, i) => column.name === b[i]!.name && column.dataTypeID === b[i]!.dataTypeID)
const shapeOf = (columns: ReadonlyArray<Column>): Shape => {
  // pg's parser for a type it does not know gives the text back (String(text)): such a column is copied as it is
  const unknown = driver().types.getTypeParser(0 as never, "text")
  const parsers = columns.map((column) => {
    const parse = recordTypes.getTypeParser(column.dataTypeID, "text")
    return parse === unknown ? undefined : (parse as (text: string) => unknown)
  })
  return { columns, build: rowBuilder(columns.map((column) => column.name), parsers) }
}

/** What pg's Query holds that its published types leave out. */
interface QueryState {
  readonly _result: { readonly rows: Array<unknown> }
  _canceledDueToError: unknown
}
type RowsQuery = pg.Query & QueryState
/**
 * A statement as pg sends it, its rows built by its shape (one literal per row) instead of pg's way, which grows
 * each row a column at a time on a null-prototype object and copies it, and copies the query's options first
 * (`cloneQueryConfig`): 25-40 % of what a statement costs node (one at a time on one connection: 8 columns
 * 47-52 µs against 35-41, 60 columns 157-185 µs against 106-124). Everything else (preparing, binding, errors,
 * the command's row count) is pg's own. It reads and sets two members of pg's Query that pg does not publish
 * (`_result`, `_canceledDueToError`): test/pg-types.test.ts compares its rows with those pg builds itself, so a pg
 * that changes them fails there first.
 */
let rowsQueryClass: (new (c: Compiled, values: Array<unknown>) => RowsQuery) | undefined
const rowsQuery = () =>
  (rowsQueryClass ??= class extends (driver().Query as unknown as new (text: string, values: Array<unknown>) => RowsQuery) {
    private readonly key: string
    private shape: Shape | undefined
    constructor(c: Compiled, values: Array<unknown>) {
      // a text and values are taken as they are (options given as an object are copied property by property)
      super(c.text, values)
      ;(this as { name?: string }).name = c.name
      this.key = c.name ?? c.text
    }
    handleRowDescription(message: { readonly fields: ReadonlyArray<Column> }) {
      const kept = shapes.get(this.key)
      if (kept !== undefined && sameColumns(kept.columns, message.fields)) return void (this.shape = kept)
      this.shape = shapeOf(message.fields.map(({ name, dataTypeID }) => ({ name, dataTypeID })))
      shapes.set(this.key, this.shape)
    }
    handleDataRow(message: { readonly fields: ReadonlyArray<unknown> }) {
      if (this._canceledDueToError) return
      try {
        this._result.rows.push(this.shape!.build(message.fields))
      } catch (e) {
        // as pg does: the statement fails with it once the server is ready again
        this._canceledDueToError = e
      }
    }
  })

/** The connection a fiber's transaction holds. */
const current = FiberRef.unsafeMake<pg.PoolClient | undefined>(undefined)
/**
 * What the request running in this fiber (and the fibers it forks) has read and keeps: rows read twice, the
 * caches' epochs. Set by `request`; emptied when the request commits a write, so it reads its own write.
 */
const requestReads = FiberRef.unsafeMake<Map<string, unknown> | undefined>(undefined)

/** The caches' epochs (migration 7), as store/cache.ts reads them. */
const EPOCHS = "SELECT name, value FROM cache_epochs"
type EpochRow = { name: string; value: number }
const epochsOf = (rows: ReadonlyArray<EpochRow>): ReadonlyMap<string, number> => new Map(rows.map((row) => [row.name, row.value]))

export interface PgResult<T> {
  readonly rows: Array<T>
  readonly changes: number
}

export interface PgRunner {
  /** A statement: inside a transaction on its connection, else on any pooled connection (autocommit). */
  readonly query: <T = Record<string, unknown>>(sql: string, ...params: ReadonlyArray<unknown>) => Effect.Effect<PgResult<T>>
  readonly get: <T = Record<string, unknown>>(sql: string, ...params: ReadonlyArray<unknown>) => Effect.Effect<T | undefined>
  readonly all: <T = Record<string, unknown>>(sql: string, ...params: ReadonlyArray<unknown>) => Effect.Effect<Array<T>>
  /** A write: only inside a transaction (a write outside one is a programming error). */
  readonly run: (sql: string, ...params: ReadonlyArray<unknown>) => Effect.Effect<PgResult<Record<string, unknown>>>
  readonly transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** Runs one request's work, remembering what it reads twice (`remember`); a request inside a request joins it. */
  readonly request: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** A read whose answer is remembered for the rest of the request (read anyway outside one, and inside a transaction). */
  readonly remember: <A>(key: string, read: Effect.Effect<A>) => Effect.Effect<A>
  /** Values read beside another, remembered as `remember` would (store/client.ts `rememberBeside`). */
  readonly rememberBeside: (entries: () => ReadonlyArray<readonly [string, unknown]>) => Effect.Effect<void>
  /** The caches' epochs, read once a request; undefined outside a request and inside a transaction (nothing cached). */
  readonly cacheEpochs: Effect.Effect<ReadonlyMap<string, number> | undefined>
  /** Whether this fiber is inside a transaction (a lock outside one would end with its statement). */
  readonly inTransaction: Effect.Effect<boolean>
  readonly close: () => Promise<void>
}

/** The server's error, with its SQLSTATE, as a defect of the statement that failed. */
export class PgQueryError extends Error {
  override readonly name = "PgQueryError"
  constructor(readonly code: string | undefined, message: string) {
    super(message)
  }
}

/** How long a transaction is retried after serialization failures before the request gives up (503). */
const RETRY_BUDGET_MS = 10_000
/**
 * SQLSTATEs after which the whole transaction is run again: serialization failure and deadlock (two writers
 * locking rows in opposite orders: one is chosen to fail), and a unique violation, which a check-then-insert
 * meets when another server inserted the same row since the check (run again, the check finds it). A unique
 * violation that repeats is a real one: it is retried at most UNIQUE_RETRIES times.
 */
const RETRYABLE = new Set(["40001", "40P01"])
const UNIQUE_VIOLATION = "23505"
const UNIQUE_RETRIES = 2
const failedWith = (cause: Cause.Cause<unknown>) =>
  Option.getOrUndefined(Option.flatMap(Cause.dieOption(cause), (d) => d instanceof PgQueryError ? Option.some(d.code ?? "") : Option.none()))
/** The server is gone, refuses connections, or kept a lock too long: the request answers 503 (a DatabaseError). */
export class PgUnavailable extends DatabaseError {}

const asDefect = (e: unknown) => {
  const err = e as { code?: string; message?: string }
  // the server gone (08…, 57P01–57P03) or a lock not granted in time (55P03): unavailable for now, 503
  if (typeof err.code === "string" && /^[0-9A-Z]{5}$/.test(err.code) && !/^(08|57P0[1-3]|55P03)/.test(err.code)) {
    return new PgQueryError(err.code, err.message ?? String(e))
  }
  return new PgUnavailable(`the database is unavailable: ${err.message ?? String(e)}`)
}

/** pg's answer to a callback, as the Effect it resumes with: a failure is a defect (`asDefect`), as every statement's is. */
const resumeWith = <A>(resume: (effect: Effect.Effect<A>) => void, e: Error | null | undefined, value: () => A) =>
  resume(e !== undefined && e !== null ? Effect.die(asDefect(e)) : Effect.succeed(value()))

/**
 * `pool` serves reads; `writers` (by default the same pool) serves transactions. Apart, a write waiting for a
 * row another server's writer holds keeps a writing connection, never one a read needs.
 */
export const makePgRunner = (pool: pg.Pool, writers: pg.Pool = pool): PgRunner => {
  /** A statement on `client`, answered by `answer` from its result (one step: no map after it). */
  const exec = <A>(client: pg.Pool | pg.PoolClient, sql: string, params: ReadonlyArray<unknown>, answer: (r: pg.QueryResult) => A) =>
    Effect.async<A>((resume) => {
      const c = compile(sql)
      const send = client.query as (q: RowsQuery, values: undefined, done: (e: Error | undefined, r: pg.QueryResult) => void) => void
      try {
        send.call(client, new (rowsQuery())(c, values(c, params)), undefined, (e, r) => resumeWith(resume, e, () => answer(r)))
      } catch (e) {
        // pg refused to send it (a value it cannot bind): a defect, as a statement's failure always is
        resume(Effect.die(asDefect(e)))
      }
    })
  /** On the fiber's transaction's connection, else (a read) on any pooled one. */
  const statement = <A>(sql: string, params: ReadonlyArray<unknown>, answer: (r: pg.QueryResult) => A, write: boolean) =>
    Effect.withFiberRuntime<A>((fiber) => {
      const client = fiber.getFiberRef(current)
      if (client === undefined && write) return Effect.dieMessage("write outside Store.transaction")
      return exec(client ?? pool, sql, params, answer)
    })
  const result = (r: pg.QueryResult): PgResult<never> => ({ rows: r.rows as Array<never>, changes: r.rowCount ?? 0 })
  const query: PgRunner["query"] = (sql, ...params) => statement(sql, params, result, false)
  const run: PgRunner["run"] = (sql, ...params) => statement(sql, params, result, true)

  /** The request's remembered reads, where this fiber may remember any: inside a request, outside a transaction. */
  const remembering = (fiber: Fiber.RuntimeFiber<unknown, unknown>) =>
    fiber.getFiberRef(current) === undefined ? fiber.getFiberRef(requestReads) : undefined
  const remember: PgRunner["remember"] = (key, read) => Effect.withFiberRuntime((fiber) => rememberedRead(remembering(fiber), key, read))
  const rememberBeside: PgRunner["rememberBeside"] = (entries) => Effect.withFiberRuntime((fiber) => rememberEntries(remembering(fiber), entries))
  const cacheEpochs: PgRunner["cacheEpochs"] = Effect.withFiberRuntime((fiber) =>
    remembering(fiber) === undefined ? Effect.succeed(undefined) : remember("cache_epochs", Effect.map(query<EpochRow>(EPOCHS), (r) => epochsOf(r.rows)))
  )
  /**
   * After a commit the request reads again what it remembered (its own write), and the epochs as they stand after it,
   * read in the COMMIT's round trip.
   */
  const commit = (client: pg.PoolClient) =>
    Effect.withFiberRuntime<void>((fiber) => {
      const remembered = fiber.getFiberRef(requestReads)
      if (remembered === undefined) return Effect.asVoid(plain(client, "COMMIT"))
      return Effect.map(plain(client, `COMMIT; ${EPOCHS}`), (results) => {
        const epochs = (results as unknown as [pg.QueryResult, pg.QueryResult<EpochRow>])[1].rows
        remembered.clear()
        remembered.set("cache_epochs", epochsOf(epochs))
      })
    })

  // taken inside `attempt`'s uninterruptible region: a connection handed over is always released
  const connect = Effect.async<pg.PoolClient>((resume) => writers.connect((e, client) => resumeWith(resume, e, () => client!)))
  /** Text sent as it is (the simple protocol: several statements in one round trip, no parameters). */
  const plain = (client: pg.PoolClient, sql: string) =>
    Effect.async<pg.QueryResult>((resume) => client.query(sql, (e: Error | undefined, r: pg.QueryResult) => resumeWith(resume, e, () => r)))

  /**
   * One attempt, at READ COMMITTED: each statement sees what was committed before it began. Writers run side by
   * side, on one server and on several; what must stay ordered is ordered by the rows a write locks before it
   * checks (`lock`: the thread, poll, group or person, `FOR NO KEY UPDATE`) and by the rows its updates lock (a
   * counter `x = x + 1` waits for the other writer and adds to what it committed). A connection whose transaction
   * broke is discarded, not returned to the pool.
   */
  const attempt = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.uninterruptibleMask((restore) =>
      Effect.flatMap(connect, (client) => {
        let broken = false
        const settle = (exit: Exit.Exit<A, E>): Effect.Effect<A, E> =>
          Exit.isSuccess(exit)
            ? Effect.zipRight(commit(client), exit)
            : Effect.zipRight(Effect.catchAllDefect(Effect.asVoid(plain(client, "ROLLBACK")), () => Effect.sync(() => void (broken = true))), exit)
        return Effect.zipRight(
          plain(client, "BEGIN ISOLATION LEVEL READ COMMITTED"),
          Effect.flatMap(Effect.exit(restore(Effect.locally(effect, current, client))), settle)
        ).pipe(
          Effect.onExit((exit) =>
            Effect.sync(() => client.release(broken || (Exit.isFailure(exit) && Cause.isDie(exit.cause)) ? true : undefined)))
        )
      }))

  /**
   * Runs `effect` as one transaction, again from the start when the server reports a serialization failure or a
   * deadlock (RETRYABLE), or a lost race to insert (UNIQUE_VIOLATION, twice at most), after a random pause that
   * doubles each time (at most 250 ms). Past RETRY_BUDGET_MS of retrying, the request answers 503 (DatabaseError).
   */
  const transaction: PgRunner["transaction"] = (effect) =>
    Effect.flatMap(FiberRef.get(current), (client) => {
      if (client !== undefined) return effect
      const started = Date.now()
      let uniques = 0
      const loop = (n: number): Effect.Effect<any, any, any> =>
        Effect.catchAllCause(attempt(effect), (cause) => {
          const code = failedWith(cause)
          const again = code !== undefined && (RETRYABLE.has(code) || (code === UNIQUE_VIOLATION && uniques++ < UNIQUE_RETRIES))
          if (!again) return Effect.failCause(cause)
          if (Date.now() - started > RETRY_BUDGET_MS) {
            return Effect.die(new PgUnavailable(`the database is too busy: a transaction was retried ${n} times over ${RETRY_BUDGET_MS / 1000} s`))
          }
          return Effect.zipRight(Effect.sleep(Duration.millis(Math.random() * Math.min(250, 2 ** n))), loop(n + 1))
        })
      return loop(0)
    })

  return {
    query,
    get: (sql, ...params) => statement(sql, params, (r) => r.rows[0] as never, false),
    all: (sql, ...params) => statement(sql, params, (r) => r.rows as never, false),
    run,
    transaction,
    request: (effect) =>
      Effect.flatMap(FiberRef.get(requestReads), (remembered) => (remembered !== undefined ? effect : Effect.locally(effect, requestReads, new Map()))),
    remember,
    rememberBeside,
    cacheEpochs,
    inTransaction: Effect.map(FiberRef.get(current), (client) => client !== undefined),
    close: () => Promise.all([pool.end(), writers === pool ? undefined : writers.end()]).then(() => undefined)
  }
}

/**
 * `waitMs`: how long a request waits for a free connection before answering 503; writers wait longer (a busy
 * thread's writes queue for their turn here, each briefly).
 */
export const makePool = (url: string, max = 10, waitMs = 5_000) => {
  // a lock held past 10 s (another server stopped mid-transaction) fails the request with 503 instead of hanging it
  const pool = new (driver().Pool)({ connectionString: url, max, types: pgRowTypes, connectionTimeoutMillis: waitMs, idleTimeoutMillis: 30_000, options: "-c lock_timeout=10000 -c TimeZone=UTC" })
  // A connection that breaks (the server stopped) emits "error": when idle, on the pool; when checked out, on the
  // connection itself, even between the statements of a transaction. Unheard, either would end the process; the
  // statement in flight fails anyway, and a broken connection is discarded on release.
  pool.on("error", () => undefined)
  pool.on("connect", (client) => client.on("error", () => undefined))
  return pool
}

/** A connection of the pool; a server that cannot be reached is named by host and port (a DatabaseError). */
export const connectTo = async (pool: pg.Pool, url: string): Promise<pg.PoolClient> => {
  try {
    return await pool.connect()
  } catch (e) {
    throw new PgDatabaseError(`cannot connect to the database at ${describeUrl(url)}: ${(e as Error).message}`)
  }
}

/**
 * Applies the migrations the database lacks, under an advisory lock (servers starting together migrate once).
 * A database from a newer convene is refused, naming both versions.
 */
export const migratePg = async (pool: pg.Pool, url: string): Promise<number> => {
  const client = await connectTo(pool, url)
  try {
    await client.query("SELECT pg_advisory_lock(7301)")
    await client.query("CREATE TABLE IF NOT EXISTS convene_schema (version integer NOT NULL)")
    const found = await client.query<{ version: number }>("SELECT version FROM convene_schema")
    const currentVersion = found.rows[0]?.version ?? 0
    if (found.rows.length === 0) await client.query("INSERT INTO convene_schema (version) VALUES (0)")
    if (currentVersion > migrations.length) {
      throw new PgDatabaseError(
        `the database at ${describeUrl(url)} has schema version ${currentVersion}, written by a newer convene; this convene knows versions up to ` +
          `${migrations.length}. Upgrade convene, or restore a backup made before the upgrade.`
      )
    }
    for (let i = currentVersion; i < migrations.length; i++) {
      await client.query("BEGIN")
      try {
        await client.query(migrations[i]!)
        await client.query("UPDATE convene_schema SET version = $1", [i + 1])
        await client.query("COMMIT")
      } catch (e) {
        await client.query("ROLLBACK")
        throw new PgDatabaseError(`cannot prepare the database at ${describeUrl(url)}: migration ${i + 1}: ${(e as Error).message}`)
      }
    }
    return migrations.length
  } finally {
    await client.query("SELECT pg_advisory_unlock(7301)").catch(() => undefined)
    client.release()
  }
}

/**
 * The live pages' wake-up (decisions §13): one connection of its own LISTENs to `convene_live` (NOTIFY is sent by
 * migration 15's trigger when a live event commits, on any server) once someone listens; a connection that breaks
 * is opened again a second later (the hub's own polling covers the gap).
 */
export const makeLiveListener = (url: string) => {
  const listeners = new Set<() => void>()
  let client: pg.Client | undefined
  let closed = false
  let retry: NodeJS.Timeout | undefined
  // settles once a connection has its LISTEN in place (a NOTIFY sent before reaches nobody here); a lost one starts over
  let markReady = () => {}
  let ready = new Promise<void>((r) => (markReady = r))
  let isReady = false
  const connect = () => {
    if (closed || client !== undefined || listeners.size === 0) return
    const c = new (driver().Client)({ connectionString: url })
    client = c
    const lost = () => {
      if (client !== c) return
      client = undefined
      if (isReady) {
        isReady = false
        ready = new Promise<void>((r) => (markReady = r))
      }
      c.end().catch(() => undefined)
      if (!closed) retry = setTimeout(connect, 1_000).unref()
    }
    c.on("error", lost)
    c.on("end", lost)
    c.on("notification", () => {
      for (const l of listeners) l()
    })
    c.connect().then(() => c.query("LISTEN convene_live")).then(() => {
      isReady = true
      markReady()
    }, lost)
  }
  return {
    listen: (wake: () => void): LiveListening => {
      listeners.add(wake)
      connect()
      return {
        stop: () => void listeners.delete(wake),
        // a connection that cannot be made is no reason to hold a page: the hub's own polling carries on
        ready: () => Promise.race([ready, new Promise<void>((r) => setTimeout(r, 2_000).unref())])
      }
    },
    close: async () => {
      closed = true
      if (retry !== undefined) clearTimeout(retry)
      const c = client
      client = undefined
      await c?.end().catch(() => undefined)
    }
  }
}
