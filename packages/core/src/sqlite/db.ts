import Database from "better-sqlite3"
import { Deferred, Effect, Exit, type Fiber, FiberId, FiberRef, Schedule } from "effect"
import { DatabaseError } from "../ports/store.js"
import { migrations } from "./migrations/index.js"
import { rowBuilder } from "../sql/rows.js"
import { rememberEntries, rememberedRead } from "../sql/remembered.js"

export type Db = Database.Database
/** What the repositories ask of a prepared statement (better-sqlite3's, rows built as below). */
export interface Prepared {
  readonly get: (...params: Array<unknown>) => unknown
  readonly all: (...params: Array<unknown>) => Array<unknown>
  readonly run: (...params: Array<unknown>) => Database.RunResult
  /** the same statement answering each row's first column */
  readonly pluck: () => Pick<Database.Statement, "get" | "all">
}

/** A connection's prepared-statement cache: the same SQL text is prepared once. */
export type Stmt = (sql: string) => Prepared

/**
 * The statements written once for both stores test a flag as PostgreSQL's booleans do (`latest = TRUE`). SQLite
 * reads TRUE as 1, but its planner uses a partial index only for the very expression the index was made with,
 * and this schema's partial indexes say `= 1` (`stances … WHERE latest = 1`, `stance_choices … WHERE counted = 1`):
 * written with `TRUE`, a poll's first voters were read by scanning every choice. The flags are written `= 1` and
 * `= 0` here, outside quoted text.
 */
const sqliteFlags = (sql: string) =>
  sql.replace(/'(?:[^']|'')*'|= TRUE\b|= FALSE\b/g, (m) => (m.startsWith("'") ? m : m === "= TRUE" ? "= 1" : "= 0"))

const prepare = (db: Db, written: string): Prepared => {
  const sql = sqliteFlags(written)
  const statement = db.prepare(sql)
  let plucked: Database.Statement | undefined
  const pluck = () => (plucked ??= db.prepare(sql).pluck())
  const run = (...params: Array<unknown>) => statement.run(...params)
  if (!statement.reader) return { get: (...params) => statement.get(...params), all: (...params) => statement.all(...params), run, pluck }
  statement.raw(true)
  const columns = statement.columns()
  const row = rowBuilder(columns.map((c) => c.name))
  // prepared once the statement answers a list (JSON pays from a few rows on; one row is cheaper as an array)
  let json: Database.Statement | null | undefined
  let many = false
  return {
    get: (...params) => {
      const values = statement.get(...params) as Array<unknown> | undefined
      return values === undefined ? undefined : row(values)
    },
    all: (...params) => {
      if (many && json === undefined) json = asJson(db, sql, columns)
      let rows: Array<Array<unknown>> | undefined
      if (many && json) {
        try {
          rows = JSON.parse(json.get(...params) as string) as Array<Array<unknown>>
        } catch {
          // a value JSON cannot hold (a BLOB written by another tool): this statement keeps the arrays
          json = null
        }
      }
      rows ??= statement.all(...params) as Array<Array<unknown>>
      many = rows.length >= MANY_ROWS
      return rows.map(row)
    },
    run,
    pluck
  }
}

/** From this many rows on, a statement's next answer comes as JSON (below). */
const MANY_ROWS = 4

/**
 * Many rows come faster as one JSON text that V8 parses than value by value through the engine's API: 50
 * discussions' page 13–29 % faster in process, 200 users 929 against 630 µs, 5 users 47 against 31 µs (one
 * user: 12 against 15 µs, so a statement answering one row keeps the arrays). Only for a SELECT whose every
 * column is a table's INTEGER or TEXT column under a name of its own, which JSON carries exactly (a REAL or
 * an expression's value might lose digits). The rows keep the statement's order: SQLite does not flatten an
 * ordered subquery into an aggregate.
 */
const asJson = (db: Db, sql: string, columns: ReadonlyArray<Database.ColumnDefinition>): Database.Statement | null => {
  if (!/^\s*SELECT\b/i.test(sql) || new Set(columns.map((c) => c.name)).size !== columns.length) return null
  if (!columns.every((c) => c.type !== null && /^(INTEGER|TEXT)$/i.test(c.type))) return null
  const list = columns.map((c) => `"${c.name.replaceAll('"', '""')}"`).join(", ")
  try {
    return db.prepare(`SELECT json_group_array(json_array(${list})) FROM (${sql}\n)`).pluck()
  } catch {
    return null
  }
}

/**
 * Two connections on one file: the write connection holds transactions; the read connection
 * (WAL snapshot) serves reads of fibers that are not inside a transaction, so a request never
 * sees another request's uncommitted rows. An in-memory database has only the one connection.
 */
export interface Connections {
  readonly filename: string
  readonly write: Db
  readonly read: Db
  readonly close: () => void
}

// every open error names the file
export { DatabaseError }

/** Opens one connection; every failure names the file (a file that is not SQLite fails here, not at the first query). */
export const openFile = (filename: string, readonly: boolean): Db => {
  try {
    const db = new Database(filename, readonly ? { readonly: true, fileMustExist: true } : {})
    db.pragma("busy_timeout = 5000")
    if (readonly) db.pragma("schema_version")
    if (!readonly) {
      db.pragma("journal_mode = WAL")
      db.pragma("synchronous = FULL")
    }
    db.pragma("foreign_keys = ON")
    return db
  } catch (e) {
    throw new DatabaseError(`cannot open the database ${filename}: ${(e as Error).message}`)
  }
}

/** Applies the migrations a database lacks; a database from a newer convene is refused, naming both versions. */
export const migrate = (db: Db): number => {
  const current = db.pragma("user_version", { simple: true }) as number
  if (current > migrations.length) {
    throw new DatabaseError(
      `the database ${db.name} has schema version ${current}, written by a newer convene; this convene knows versions up to ` +
        `${migrations.length}. Upgrade convene, or restore a backup made before the upgrade.`
    )
  }
  for (let i = current; i < migrations.length; i++) {
    db.transaction(() => {
      db.exec(migrations[i]!)
      db.pragma(`user_version = ${i + 1}`)
    }).immediate()
  }
  return migrations.length
}

export const openConnections = (filename: string): Connections => {
  const write = openFile(filename, false)
  try {
    migrate(write)
  } catch (e) {
    write.close()
    if (e instanceof DatabaseError) throw e
    throw new DatabaseError(`cannot prepare the database ${filename}: ${(e as Error).message}`)
  }
  // from here the runner waits for other writers itself, off the event loop (see `begin`)
  write.pragma("busy_timeout = 0")
  const memory = filename === ":memory:" || filename === ""
  const read = memory ? write : openFile(filename, true)
  return {
    filename: memory ? "" : filename,
    write,
    read,
    close: () => {
      if (read !== write) read.close()
      write.close()
    }
  }
}

/** Marks the fibers running inside `transaction`. */
const inTransaction = FiberRef.unsafeMake(false)

export interface Runner {
  /** A read: on the write connection inside a transaction, else on the read connection. */
  readonly read: <A>(f: (db: Db, stmt: Stmt) => A) => Effect.Effect<A>
  /**
   * A read whose answer is remembered, under `key`, for the rest of the turn's shared snapshot (below): a second
   * read of the same row in the turn would give the same answer. Inside a transaction it simply reads.
   */
  readonly remember: <A>(key: string, read: Effect.Effect<A>) => Effect.Effect<A>
  /** Values read beside another, remembered as `remember` would (store/client.ts `rememberBeside`). */
  readonly rememberBeside: (entries: () => ReadonlyArray<readonly [string, unknown]>) => Effect.Effect<void>
  /**
   * The caches' epochs (store/cache.ts) as the reading connection sees them: inside the turn's shared snapshot,
   * read once for the snapshot and every cache. Undefined inside a write transaction.
   */
  readonly cacheEpochs: Effect.Effect<ReadonlyMap<string, number> | undefined>
  /** A write: only inside a transaction (a write outside one is a programming error). */
  readonly write: <A>(f: (db: Db, stmt: Stmt) => A) => Effect.Effect<A>
  readonly transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** Calls `listener` after each COMMIT (the live pages' wake-up); answers how to stop. */
  readonly onCommit: (listener: () => void) => () => void
  /** Whether this fiber is inside a transaction (its reads see its own uncommitted writes). */
  readonly inTransaction: Effect.Effect<boolean>
  /** The database file ("" for an in-memory database, which only this process's connection can read). */
  readonly filename: string
  /** Commits what waits for its COMMIT, then closes the connections. */
  readonly close: () => void
}

export const statementCache = (db: Db): Stmt => {
  const cache = new Map<string, Prepared>()
  return (sql: string) => {
    let s = cache.get(sql)
    if (s === undefined) {
      s = prepare(db, sql)
      cache.set(sql, s)
    }
    return s
  }
}

export const makeRunner = (conns: Connections): Runner => {
  const writeStmt = statementCache(conns.write)
  const readStmt = conns.read === conns.write ? writeStmt : statementCache(conns.read)
  const permit = Effect.unsafeMakeSemaphore(1)

  /**
   * Reads outside a transaction share one read transaction per turn of the event loop: in WAL mode every
   * statement in autocommit starts its own (finding its snapshot in the WAL index, about 5 µs), which was
   * a tenth of a light read. The snapshot ends when the turn does, so a later turn sees later commits,
   * and when this process commits, so a request reads its own write.
   */
  let snapshot = false
  const remembered = new Map<string, unknown>()
  const endSnapshot = () => {
    snapshot = false
    remembered.clear()
    if (conns.read.open && conns.read.inTransaction) conns.read.exec("COMMIT")
  }
  const shared = conns.read !== conns.write
  const readConnection = () => {
    if (shared && !snapshot) {
      snapshot = true
      if (!conns.read.inTransaction) conns.read.exec("BEGIN")
      setImmediate(endSnapshot)
    }
    return conns.read
  }

  // one step of the fiber per read, not three (a light read makes about ten); a throw is a defect, as in Effect.sync
  const onConnection = <A>(fiber: Fiber.RuntimeFiber<unknown, unknown>, f: (db: Db, stmt: Stmt) => A) =>
    fiber.getFiberRef(inTransaction) ? f(conns.write, writeStmt) : f(readConnection(), readStmt)

  const read: Runner["read"] = (f) => Effect.withFiberRuntime((fiber) => Effect.succeed(onConnection(fiber, f)))

  /** The turn's remembered reads, where this fiber may remember any; the snapshot begins first, so what is remembered ends with it. */
  const remembering = (fiber: Fiber.RuntimeFiber<unknown, unknown>) => {
    // inside a transaction, or on an in-memory database (no snapshot apart from its writes), nothing is remembered
    if (fiber.getFiberRef(inTransaction) || !shared) return undefined
    readConnection()
    return remembered
  }

  const remember: Runner["remember"] = (key, effect) => Effect.withFiberRuntime((fiber) => rememberedRead(remembering(fiber), key, effect))
  const rememberBeside: Runner["rememberBeside"] = (entries) => Effect.withFiberRuntime((fiber) => rememberEntries(remembering(fiber), entries))

  const loadEpochs = (s: Stmt) =>
    new Map((s(`SELECT name, value FROM cache_epochs`).all() as Array<{ name: string; value: number }>).map((r) => [r.name, r.value]))
  const cacheEpochs: Runner["cacheEpochs"] = Effect.withFiberRuntime((fiber) => {
    // a write transaction's uncommitted rows are not what a cache follows
    if (fiber.getFiberRef(inTransaction)) return Effect.succeed(undefined)
    readConnection()
    // remembered with the snapshot's other rows, so it ends with them
    if (!(shared && snapshot)) return Effect.succeed(loadEpochs(readStmt))
    if (!remembered.has("cache_epochs")) remembered.set("cache_epochs", loadEpochs(readStmt))
    return Effect.succeed(remembered.get("cache_epochs") as ReadonlyMap<string, number>)
  })

  // one step of the fiber per write, as a read
  const write: Runner["write"] = (f) =>
    Effect.withFiberRuntime((fiber) =>
      fiber.getFiberRef(inTransaction)
        ? Effect.succeed(f(conns.write, writeStmt))
        : Effect.dieMessage("write outside Store.transaction"))

  /**
   * Group commit. Transactions that arrive within one turn of the event loop form a batch; when the turn
   * ends the batch runs: one BEGIN IMMEDIATE, each body in its own SAVEPOINT (a body that fails rolls back
   * only itself), and one COMMIT (one fsync, synchronous = FULL) after the batch's last body. Every caller
   * resumes only once that COMMIT returned: nothing is answered before it is durable. The write lock is held
   * only while the batch's bodies run, never across an idle turn, so other connections (another process, a
   * test's own) are not kept waiting by a batch that is still forming.
   */
  interface Batch {
    readonly ready: Deferred.Deferred<void>
    members: number
    finished: number
  }
  let forming: Batch | undefined
  /** Members whose body succeeded, waiting for the COMMIT. */
  let waiting: Array<Deferred.Deferred<void, DatabaseError>> = []
  const db = conns.write
  const committedListeners = new Set<() => void>()

  /** Ends the open transaction: COMMIT, then every body in it resumes; a failed COMMIT fails them all. */
  const commitWaiting = () => {
    const done = waiting
    waiting = []
    let outcome: Exit.Exit<void, DatabaseError> = Exit.void
    try {
      if (db.inTransaction) {
        db.exec("COMMIT")
        // whoever resumes now reads what was just committed, not the turn's older snapshot
        endSnapshot()
        for (const listener of committedListeners) listener()
      } else if (done.length > 0) throw new Error("the transaction was rolled back")
    } catch (e) {
      if (db.inTransaction) db.exec("ROLLBACK")
      outcome = Exit.fail(new DatabaseError(`cannot commit to the database ${db.name}: ${(e as Error).message}`))
    }
    for (const d of done) Deferred.unsafeDone(d, outcome)
  }

  /** Joins the batch that is forming (or starts one, run when this turn of the event loop ends). */
  const join = (): Batch => {
    if (forming === undefined) {
      const batch: Batch = { ready: Deferred.unsafeMake<void>(FiberId.none), members: 0, finished: 0 }
      forming = batch
      setImmediate(() => {
        if (forming === batch) forming = undefined
        Deferred.unsafeDone(batch.ready, Exit.void)
      })
    }
    forming.members++
    return forming
  }

  /**
   * Opens the shared transaction unless it is open. Another connection's write lock (another process, or
   * another store in this one) is waited for off the event loop: the write connection's busy_timeout is 0
   * and BEGIN is tried again every 2 ms for up to 5 s, so that the holder's COMMIT can run meanwhile.
   */
  const tryBegin: Effect.Effect<void, Error> = Effect.suspend(() => {
    if (db.inTransaction) return Effect.void
    try {
      db.exec("BEGIN IMMEDIATE")
      return Effect.void
    } catch (e) {
      return (e as { code?: string }).code === "SQLITE_BUSY" ? Effect.fail(e as Error) : Effect.die(e)
    }
  })
  const waitForBegin = tryBegin.pipe(
    Effect.retry({ schedule: Schedule.spaced("2 millis"), times: 2500 }),
    Effect.catchAll((e) => Effect.die(new DatabaseError(`cannot write to the database ${db.name}: ${e.message}`)))
  )
  // the retry's schedule is set up only when the lock is held elsewhere (it costs more than the BEGIN)
  const begin: Effect.Effect<void> = Effect.catchAll(tryBegin, () => waitForBegin)

  /** Runs one member's body in the batch; returns its exit and, when it succeeded, what resolves at COMMIT. */
  const runMember = <A, E, R>(batch: Batch, effect: Effect.Effect<A, E, R>) =>
    permit.withPermits(1)(
      Effect.uninterruptibleMask((restore) =>
        Effect.exit(Effect.zipRight(begin, Effect.sync(() => db.exec("SAVEPOINT tx")))).pipe(
          Effect.flatMap((opened) =>
            Exit.isFailure(opened)
              ? Effect.succeed({ exit: Exit.failCause(opened.cause) as Exit.Exit<A, E>, committed: undefined })
              : Effect.flatMap(Effect.exit(restore(Effect.locally(effect, inTransaction, true))), (exit) => Effect.sync(() => settle(exit)))
          ),
          Effect.ensuring(Effect.sync(() => {
            batch.finished++
            // the batch's last body (no one joins a batch once it runs): its COMMIT, which also takes any body of
            // the next batch that ran in this open transaction
            if (batch.finished === batch.members) commitWaiting()
          }))
        )
      )
    )

  /** After a body: keep it (RELEASE) and wait for the COMMIT, or undo only it (ROLLBACK TO). */
  const settle = <A, E>(exit: Exit.Exit<A, E>): { exit: Exit.Exit<A, E>; committed: Deferred.Deferred<void, DatabaseError> | undefined } => {
    if (!db.inTransaction) {
      // SQLite rolled the whole transaction back (an I/O error, a full disk): the bodies before this one
      // are gone too, and are told so
      commitWaiting()
      const lost = new DatabaseError(`the database ${db.name} rolled the transaction back`)
      return { exit: Exit.isSuccess(exit) ? Exit.die(lost) : exit, committed: undefined }
    }
    if (Exit.isFailure(exit)) {
      db.exec("ROLLBACK TO tx")
      db.exec("RELEASE tx")
      return { exit, committed: undefined }
    }
    db.exec("RELEASE tx")
    const committed = Deferred.unsafeMake<void, DatabaseError>(FiberId.none)
    waiting.push(committed)
    return { exit, committed }
  }

  const transaction: Runner["transaction"] = (effect) =>
    Effect.flatMap(FiberRef.get(inTransaction), (tx) => {
      if (tx) return effect
      return Effect.uninterruptibleMask((restore) => {
        const batch = join()
        return Effect.zipRight(
          Deferred.await(batch.ready),
          Effect.flatMap(runMember(batch, restore(effect)), ({ committed, exit }) =>
            committed === undefined ? exit : Effect.zipRight(Effect.orDie(Deferred.await(committed)), exit))
        )
      })
    })

  return {
    read,
    remember,
    rememberBeside,
    cacheEpochs,
    write,
    transaction,
    onCommit: (listener) => {
      committedListeners.add(listener)
      return () => void committedListeners.delete(listener)
    },
    inTransaction: FiberRef.get(inTransaction),
    filename: conns.filename,
    // closing commits what is waiting for its COMMIT: a body that finished is never lost
    close: () => {
      commitWaiting()
      conns.close()
    }
  }
}
