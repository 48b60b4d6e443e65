/**
 * `convene backup --to FILE`: a consistent copy of the database while the server keeps writing (SQLite's
 * online backup API), checked with `integrity_check` before it is reported done; with files in a directory
 * (STORAGE_DIR, decisions §14), every file the copy names is copied to FILE.files/ beside it (a kept file never
 * changes, so the copy after the snapshot is the snapshot's). `convene restore FILE`: puts a backup in the
 * database's place, refusing while a server (or anything) holds the database, and saving the database it replaces
 * beside it; FILE.files/ goes back into the file directory (what is there already is kept).
 */
import { backupDatabase, restoreDatabase } from "@convene/core"
import Database from "better-sqlite3"
import type { Command } from "commander"
import { existsSync } from "node:fs"
import { copyFile, mkdir, readdir } from "node:fs/promises"
import { dirname, join, relative } from "node:path"
import { io } from "../io.js"
import { type CommonOptions, dbPath } from "../common.js"
import { EXIT_USAGE, makeOutput } from "../output.js"

export const registerBackup = (program: Command) => {
  program.command("backup")
    .description("copy the database consistently while the server runs, then check the copy")
    .requiredOption("--to <file>", "where to write the copy (must not exist)")
    .action(async (opts: CommonOptions & { to: string }) => {
      const out = makeOutput(opts.json === true)
      const source = dbPath(opts)
      try {
        const started = Date.now()
        const { schema_version } = await backupDatabase(source, opts.to)
        const files = await backupFiles(source, opts.to)
        out.emit({ from: source, to: opts.to, schema_version, integrity: "ok", ms: Date.now() - started, files }, [
          `backed up ${source} to ${opts.to} (schema version ${schema_version}, integrity ok)`,
          files.kind === "s3" ? "files: on S3-compatible storage, not copied (the service keeps them)" : `files: ${files.copied} copied to ${files.to}${files.missing > 0 ? `; ${files.missing} named by the database were not in ${files.from}` : ""}`
        ])
      } catch (e) {
        out.fail(e)
      }
    })

  program.command("restore")
    .description("replace the database with a backup (stop the server first; the current database is saved beside it)")
    .argument("<file>", "the backup to restore")
    .option("--yes", "replace an existing database")
    .action(async (file: string, opts: CommonOptions & { yes?: boolean }, cmd: Command) => {
      const target = dbPath(opts)
      if (existsSync(target) && opts.yes !== true) {
        cmd.error(`error: ${target} exists and would be replaced by ${file}: pass --yes to do it (it is saved beside itself first)`, { exitCode: EXIT_USAGE })
      }
      const out = makeOutput(opts.json === true)
      try {
        const restored = await restoreDatabase(file, target)
        const files = await restoreFiles(file, target)
        out.emit({ from: file, to: target, schema_version: restored.schema_version, previous: restored.previous ?? null, files_restored: files }, [
          `restored ${file} to ${target} (schema version ${restored.schema_version}, integrity ok)`,
          ...(files === 0 ? [] : [`files: ${files} put back`]),
          ...(restored.previous === undefined ? [] : [`the database it replaced is saved at ${restored.previous}`])
        ])
      } catch (e) {
        out.fail(e)
      }
    })
}

/** Where files live for this database, as serve reads it (a directory, or S3: then nothing to copy). */
const fileDirectory = async (database: string): Promise<string | undefined> => {
  if (io().env.AWS_BUCKET) return undefined
  const { storageDirFromEnv } = await import("@convene/http")
  return storageDirFromEnv(io().env, database)
}

/** Every file the backup's rows name (and their previews), copied from the file directory to BACKUP.files/. */
const backupFiles = async (database: string, backup: string) => {
  const from = await fileDirectory(database)
  if (from === undefined) return { kind: "s3" as const }
  const to = `${backup}.files`
  const db = new Database(backup, { readonly: true })
  const keys = db.prepare(`SELECT storage_key AS k FROM blobs UNION ALL SELECT preview_key FROM blobs WHERE preview_key IS NOT NULL`).pluck().all() as Array<string>
  db.close()
  let copied = 0
  let missing = 0
  for (const key of keys) {
    if (!existsSync(join(from, key))) {
      missing++
      continue
    }
    await mkdir(dirname(join(to, key)), { recursive: true })
    await copyFile(join(from, key), join(to, key))
    copied++
  }
  return { kind: "directory" as const, from, to, copied, missing }
}

/** BACKUP.files/ put back into the file directory: files not there yet (a kept file never changes). */
const restoreFiles = async (backup: string, database: string): Promise<number> => {
  const from = `${backup}.files`
  const to = await fileDirectory(database)
  if (to === undefined || !existsSync(from)) return 0
  let restored = 0
  for (const entry of await readdir(from, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue
    const key = relative(from, join(entry.parentPath, entry.name))
    if (existsSync(join(to, key))) continue
    await mkdir(dirname(join(to, key)), { recursive: true })
    await copyFile(join(from, key), join(to, key))
    restored++
  }
  return restored
}
