/**
 * What an operator does to the database file itself (decisions §6): a consistent backup while the server
 * writes (SQLite's online backup API), a restore that refuses while anything holds the file, and an
 * inspection for `doctor` that neither migrates nor writes.
 */
import Database from "better-sqlite3"
import { existsSync, rmSync } from "node:fs"
import type { DatabaseReport } from "../ports/database.js"
import { type Db, DatabaseError, openFile } from "./db.js"
import { migrations } from "./migrations/index.js"
import { backlogOf } from "./outbox.js"

/** The first schema version with both outboxes as `backlogOf` reads them. */
const OUTBOXES_SINCE = 12


const openReadonly = (path: string): Db => {
  if (!existsSync(path)) throw new DatabaseError(`no database at ${path}`)
  return openFile(path, true)
}

/** Reads a database without changing it: schema version, integrity and the outboxes. */
export const inspectDatabase = (path: string): DatabaseReport => {
  const db = openReadonly(path)
  try {
    const version = db.pragma("user_version", { simple: true }) as number
    const problems = (db.pragma("integrity_check") as Array<{ integrity_check: string }>).map((r) => r.integrity_check)
    const current = version >= OUTBOXES_SINCE && version <= migrations.length
    return {
      path,
      schema_version: version,
      known_version: migrations.length,
      integrity: problems.join("; "),
      outboxes: current ? { webhook: backlogOf(db, "webhook_deliveries"), mail: backlogOf(db, "mail_outbox") } : undefined
    }
  } finally {
    db.close()
  }
}

/** Checks a copy: integrity ok and a schema this convene can open; returns its version. */
const checkCopy = (path: string): number => {
  const db = openReadonly(path)
  try {
    const integrity = db.pragma("integrity_check", { simple: true })
    if (integrity !== "ok") throw new DatabaseError(`${path} failed integrity_check: ${String(integrity)}`)
    const version = db.pragma("user_version", { simple: true }) as number
    const hasUsers = db.prepare(`SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'users'`).get() !== undefined
    if (version === 0 || !hasUsers) throw new DatabaseError(`${path} is not a convene database`)
    if (version > migrations.length) {
      throw new DatabaseError(`${path} has schema version ${version}, written by a newer convene; this convene knows versions up to ${migrations.length}`)
    }
    return version
  } finally {
    db.close()
  }
}

/** Copies `from` to `to` (a new file) while others may write, then checks the copy. */
export const backupDatabase = async (from: string, to: string): Promise<{ readonly schema_version: number }> => {
  if (existsSync(to)) throw new DatabaseError(`${to} exists: choose a new file (a backup never overwrites)`)
  const db = openReadonly(from)
  try {
    await db.backup(to)
  } catch (e) {
    rmSync(to, { force: true })
    throw new DatabaseError(`cannot back up ${from} to ${to}: ${(e as Error).message}`)
  } finally {
    db.close()
  }
  return { schema_version: checkCopy(to) }
}

/**
 * Whether any connection (a running `serve`, another command) has the file open: a WAL database cannot be
 * locked exclusively while another connection holds it.
 */
export const databaseInUse = (path: string): boolean => {
  if (!existsSync(path)) return false
  const db = new Database(path, { fileMustExist: true, timeout: 200 })
  try {
    db.pragma("locking_mode = EXCLUSIVE")
    db.exec("BEGIN EXCLUSIVE")
    db.exec("COMMIT")
    return false
  } catch (e) {
    if ((e as { code?: string }).code === "SQLITE_BUSY") return true
    throw new DatabaseError(`cannot open the database ${path}: ${(e as Error).message}`)
  } finally {
    db.close()
  }
}

export interface RestoreResult {
  readonly schema_version: number
  /** where the database that was replaced was saved (undefined: there was none) */
  readonly previous: string | undefined
}

/**
 * Replaces the database at `to` with the backup `from`: the backup is checked first, the current database
 * is saved beside itself (`<to>.before-restore-<time>`), and nothing happens while anything holds `to`.
 * A backup from an older convene is migrated by the next `serve`.
 */
export const restoreDatabase = async (from: string, to: string, now = new Date()): Promise<RestoreResult> => {
  const version = checkCopy(from)
  if (databaseInUse(to)) {
    throw new DatabaseError(`the database ${to} is in use (is \`convene serve\` running on it?): stop the server, then restore`)
  }
  const previous = existsSync(to) ? `${to}.before-restore-${now.toISOString().replace(/[:.]/g, "-")}` : undefined
  if (previous !== undefined) await backupDatabase(to, previous)
  const source = openReadonly(from)
  try {
    await source.backup(to)
  } catch (e) {
    throw new DatabaseError(`cannot restore ${from} to ${to}: ${(e as Error).message}` + (previous === undefined ? "" : `; the previous database is saved at ${previous}`))
  } finally {
    source.close()
  }
  checkCopy(to)
  return { schema_version: version, previous }
}
