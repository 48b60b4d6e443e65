/**
 * The operator's entry points that take a database as the command line names it: a SQLite file, or a
 * `postgres://` URL. Each store's own implementation answers; what one store has no use for says what to do.
 */
import { DatabaseError } from "./ports/store.js"
import type { DatabaseReport } from "./ports/database.js"
import { isPostgresUrl } from "./postgres/db.js"
import { exportGroupFromPg, importLoomioExportToPg } from "./transfer/postgres.js"
import { inspectPgDatabase } from "./postgres/maintenance.js"
import { exportGroup as exportFromFile, type StagedExport } from "./transfer/loomio/export.js"
import { type ImportOptions, importLoomioExport as importIntoFile, type StagedImport } from "./transfer/loomio/import.js"
import { backupDatabase as backupFile, inspectDatabase as inspectFile, restoreDatabase as restoreFile, type RestoreResult } from "./sqlite/maintenance.js"

/** A Loomio group export's records into the database: all of them, or none (the files it names follow: index.ts). */
export const importLoomioRows = (database: string, file: string, options: ImportOptions = {}): Promise<StagedImport> =>
  isPostgresUrl(database) ? importLoomioExportToPg(database, file, options) : importIntoFile(database, file, options)

/** A group, its subgroups, people and content as a Loomio group export (the files it names follow: index.ts). */
export const exportGroupRows = (database: string, ref: string, to: string): Promise<StagedExport> =>
  isPostgresUrl(database) ? exportGroupFromPg(database, ref, to) : exportFromFile(database, ref, to)

/** What `doctor` reads of the database, changing nothing. */
export const inspectAnyDatabase = (database: string): Promise<DatabaseReport> =>
  isPostgresUrl(database) ? inspectPgDatabase(database) : Promise.resolve(inspectFile(database))

/** PostgreSQL has its own tools for this, which also copy a live database consistently. */
const USE_PG_DUMP =
  "backup and restore work on a SQLite file; back up a PostgreSQL database with pg_dump (pg_dump --format=custom URL > FILE) and restore it with pg_restore"

/** A consistent copy of a SQLite file while the server writes. */
export const backupDatabase = (from: string, to: string): Promise<{ readonly schema_version: number }> =>
  isPostgresUrl(from) ? Promise.reject(new DatabaseError(USE_PG_DUMP)) : backupFile(from, to)

/** A backup put in a SQLite file's place. */
export const restoreDatabase = (from: string, to: string, now?: Date): Promise<RestoreResult> =>
  isPostgresUrl(to) ? Promise.reject(new DatabaseError(USE_PG_DUMP)) : restoreFile(from, to, now)
