/**
 * `convene backup --to FILE`: a consistent copy of the database while the server keeps writing (SQLite's
 * online backup API), checked with `integrity_check` before it is reported done. `convene restore FILE`:
 * puts a backup in the database's place, refusing while a server (or anything) holds the database, and
 * saving the database it replaces beside it.
 */
import { backupDatabase, restoreDatabase } from "@convene/core"
import type { Command } from "commander"
import { existsSync } from "node:fs"
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
        out.emit({ from: source, to: opts.to, schema_version, integrity: "ok", ms: Date.now() - started },
          `backed up ${source} to ${opts.to} (schema version ${schema_version}, integrity ok)`)
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
        out.emit({ from: file, to: target, schema_version: restored.schema_version, previous: restored.previous ?? null }, [
          `restored ${file} to ${target} (schema version ${restored.schema_version}, integrity ok)`,
          ...(restored.previous === undefined ? [] : [`the database it replaced is saved at ${restored.previous}`])
        ])
      } catch (e) {
        out.fail(e)
      }
    })
}
