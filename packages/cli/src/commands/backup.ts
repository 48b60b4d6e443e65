/**
 * `convene backup --to FILE`: a consistent copy of the database while the server keeps writing (SQLite's
 * online backup API, through better-sqlite3), checked with `integrity_check` before it is reported done.
 */
import Database from "better-sqlite3"
import type { Command } from "commander"
import { existsSync, rmSync } from "node:fs"
import { type CommonOptions, dbPath } from "../common.js"
import { CliError, makeOutput } from "../output.js"

export const registerBackup = (program: Command) =>
  program.command("backup")
    .description("copy the database consistently while the server runs, then check the copy")
    .requiredOption("--to <file>", "where to write the copy (must not exist)")
    .action(async (opts: CommonOptions & { to: string }) => {
      const out = makeOutput(opts.json === true)
      const source = dbPath(opts)
      try {
        if (!existsSync(source)) throw new CliError(`no database at ${source}`)
        if (existsSync(opts.to)) throw new CliError(`${opts.to} exists: choose a new file (a backup never overwrites)`)
        const db = new Database(source, { readonly: true, fileMustExist: true })
        const started = Date.now()
        try {
          await db.backup(opts.to)
        } catch (e) {
          rmSync(opts.to, { force: true })
          throw new CliError(`cannot back up ${source} to ${opts.to}: ${(e as Error).message}`)
        } finally {
          db.close()
        }
        const copy = new Database(opts.to, { readonly: true })
        const check = copy.pragma("integrity_check", { simple: true })
        const version = copy.pragma("user_version", { simple: true })
        copy.close()
        if (check !== "ok") throw new CliError(`the copy ${opts.to} failed integrity_check: ${String(check)}`)
        out.emit({ from: source, to: opts.to, schema_version: version, integrity: "ok", ms: Date.now() - started },
          `backed up ${source} to ${opts.to} (schema version ${version}, integrity ok)`)
      } catch (e) {
        out.fail(e)
      }
    })
