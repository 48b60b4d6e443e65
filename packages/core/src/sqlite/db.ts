import Database from "better-sqlite3"
import { Effect, Exit, FiberRef } from "effect"
import { migrations } from "./migrations/index.js"

export type Db = Database.Database

/**
 * Two connections on one file: the write connection holds transactions; the read connection
 * (WAL snapshot) serves reads of fibers that are not inside a transaction, so a request never
 * sees another request's uncommitted rows. An in-memory database has only the one connection.
 */
export interface Connections {
  readonly write: Db
  readonly read: Db
  readonly close: () => void
}

/** A database that cannot be used, with its path in the message (every open error names the file). */
export class DatabaseError extends Error {
  override readonly name = "DatabaseError"
}

const open = (filename: string, readonly: boolean): Db => {
  try {
    const db = new Database(filename, readonly ? { readonly: true, fileMustExist: true } : {})
    db.pragma("busy_timeout = 5000")
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
  const write = open(filename, false)
  try {
    migrate(write)
  } catch (e) {
    write.close()
    if (e instanceof DatabaseError) throw e
    throw new DatabaseError(`cannot prepare the database ${filename}: ${(e as Error).message}`)
  }
  const memory = filename === ":memory:" || filename === ""
  const read = memory ? write : open(filename, true)
  return {
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
  readonly read: <A>(f: (db: Db, stmt: (sql: string) => Database.Statement) => A) => Effect.Effect<A>
  /** A write: only inside a transaction (a write outside one is a programming error). */
  readonly write: <A>(f: (db: Db, stmt: (sql: string) => Database.Statement) => A) => Effect.Effect<A>
  readonly transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}

const statementCache = (db: Db) => {
  const cache = new Map<string, Database.Statement>()
  return (sql: string) => {
    let s = cache.get(sql)
    if (s === undefined) {
      s = db.prepare(sql)
      cache.set(sql, s)
    }
    return s
  }
}

export const makeRunner = (conns: Connections): Runner => {
  const writeStmt = statementCache(conns.write)
  const readStmt = conns.read === conns.write ? writeStmt : statementCache(conns.read)
  const permit = Effect.unsafeMakeSemaphore(1)

  const read: Runner["read"] = (f) =>
    Effect.flatMap(FiberRef.get(inTransaction), (tx) =>
      Effect.sync(() => (tx ? f(conns.write, writeStmt) : f(conns.read, readStmt))))

  const write: Runner["write"] = (f) =>
    Effect.flatMap(FiberRef.get(inTransaction), (tx) =>
      tx
        ? Effect.sync(() => f(conns.write, writeStmt))
        : Effect.dieMessage("write outside Store.transaction"))

  const transaction: Runner["transaction"] = (effect) =>
    Effect.flatMap(FiberRef.get(inTransaction), (tx) =>
      tx
        ? effect
        : permit.withPermits(1)(
          Effect.uninterruptibleMask((restore) =>
            Effect.sync(() => conns.write.exec("BEGIN IMMEDIATE")).pipe(
              Effect.zipRight(Effect.exit(restore(Effect.locally(effect, inTransaction, true)))),
              Effect.flatMap((exit) =>
                Effect.sync(() => {
                  try {
                    if (Exit.isSuccess(exit)) conns.write.exec("COMMIT")
                  } finally {
                    // after a failed body or a failed COMMIT nothing of it may stay
                    if (conns.write.inTransaction) conns.write.exec("ROLLBACK")
                  }
                }).pipe(Effect.zipRight(exit))
              )
            )
          )
        ))

  return { read, write, transaction }
}
