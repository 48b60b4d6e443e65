/**
 * Moving a group between servers (decisions §7): `convene import loomio FILE` reads a Loomio group export
 * (or convene's own) into this database in one transaction; `convene export GROUP --to FILE` writes one.
 * `convene copy --from SOURCE --to TARGET` moves a whole install between stores.
 */
import { copyInstall, type CopyProgress, exportGroup, type ImportProgress, importLoomioExport, type ImportResult } from "@convene/core"
import cliProgress from "cli-progress"
import type { Command } from "commander"
import { copyFilesTo, filesDirectory, filesLines } from "./files.js"
import { type CommonOptions, existingDatabase } from "../common.js"
import { EXIT_DOMAIN, makeOutput } from "../output.js"
import { io } from "../io.js"


/** A bar on stderr, gone when done. */
const newBar = (format: string) =>
  new cliProgress.SingleBar({ stream: process.stderr, format, hideCursor: true, clearOnComplete: true }, cliProgress.Presets.shades_classic)

/** A bar on a terminal only: a pipe or a log gets the result alone. */
const progressBar = (enabled: boolean) => {
  if (!enabled) return { update: (_: ImportProgress) => {}, stop: () => {} }
  const bar = newBar("{phase} [{bar}] {percentage}% {value}/{total}")
  let phase: string | undefined
  return {
    update: (p: ImportProgress) => {
      if (phase !== p.phase) {
        if (phase !== undefined) bar.stop()
        phase = p.phase
        bar.start(p.total, p.done, { phase: p.phase === "reading" ? "reading (bytes)" : "writing (records)" })
      } else bar.update(p.done)
    },
    stop: () => {
      if (phase !== undefined) bar.stop()
    }
  }
}

const summary = (r: ImportResult): Array<string> => [
  `${r.dry_run ? "would import" : "imported"} group ${r.group?.name ?? "?"} (${r.dry_run ? "key" : `id ${r.group?.id}, key`} ${r.group?.key ?? "?"})`,
  ...Object.entries(r.imported).map(([table, n]) => `  ${table}: ${n}`),
  ...(r.users_matched > 0 ? [`  people who already had an account here (matched by e-mail): ${r.users_matched}`] : []),
  ...(Object.keys(r.skipped).length > 0
    ? ["left out (convene has no place for them):", ...Object.entries(r.skipped).map(([t, n]) => `  ${t}: ${n}`)]
    : []),
  ...(r.references_dropped > 0 ? [`references to people not in the file, left empty: ${r.references_dropped}`] : []),
  ...(r.files === undefined ? [] : [
    `files: ${r.files.attached} ${r.dry_run ? "found" : "attached"}${r.files.missing.length > 0 ? `, ${r.files.missing.length} missing from the directory:` : ""}`,
    ...r.files.missing.map((m) => `  ${m}`)
  ]),
  ...r.warnings.map((w) => `warning: ${w}`),
  ...(r.dry_run ? ["dry run: nothing was written"] : [])
]

export const registerTransfer = (program: Command) => {
  program.command("import")
    .description("bring a group in from another server")
    .command("loomio")
    .description("import a Loomio group export (JSON Lines) in one transaction: all of it, or nothing")
    .argument("<file>", "the export file")
    .option("--dry-run", "check the whole file and report what would be imported; write nothing")
    .option("--files <dir>", "attach the files the export names, found in this directory by key, path or filename (a missing one is reported; the import goes on)")
    .action(async (file: string, opts: CommonOptions & { dryRun?: boolean; files?: string }) => {
      const out = makeOutput(opts.json === true)
      const bar = progressBar(opts.json !== true && process.stderr.isTTY === true)
      try {
        const database = existingDatabase(opts)
        const files = opts.files === undefined ? undefined : await filesDirectory(database, opts.files, "read")
        const result = await importLoomioExport(database, file, { dryRun: opts.dryRun === true, onProgress: bar.update, ...(files === undefined ? {} : { files }) })
        bar.stop()
        out.emit(result, summary(result))
      } catch (e) {
        bar.stop()
        out.fail(e)
      }
    })

  program.command("export")
    .description("write a group, its subgroups, their people (without secrets) and all their content as a Loomio group export")
    .argument("<group>", "the group's id, key or handle")
    .requiredOption("--to <file>", "where to write the export (must not exist)")
    .option("--files <dir>", "also write the files it names into this directory (made when missing), each under its SHA-256")
    .action(async (ref: string, opts: CommonOptions & { to: string; files?: string }) => {
      const out = makeOutput(opts.json === true)
      try {
        const database = existingDatabase(opts)
        const files = opts.files === undefined ? undefined : await filesDirectory(database, opts.files, "write")
        const result = await exportGroup(database, ref, opts.to, files)
        out.emit(result, [
          `exported group ${result.group.name} (id ${result.group.id}) to ${result.file}`,
          ...Object.entries(result.records).map(([table, n]) => `  ${table}: ${n}`),
          ...(result.files === undefined ? [] : [
            `files: ${result.files.written} written to ${opts.files}, ${result.files.present} there already`,
            ...(result.files.missing.length > 0 ? [`files missing from where they live (named by the database): ${result.files.missing.length}`, ...result.files.missing.map((k) => `  ${k}`)] : [])
          ])
        ])
        if (result.files !== undefined && result.files.missing.length > 0) io().exitCode = EXIT_DOMAIN
      } catch (e) {
        out.fail(e)
      }
    })

  program.command("copy")
    .description("copy a whole install into an empty database (a SQLite file or a PostgreSQL URL; either way): every record, key, session and waiting delivery, in one transaction")
    .requiredOption("--from <source>", "the database to copy: a SQLite file or postgres://…")
    .requiredOption("--to <target>", "an empty database (a SQLite file is made when missing) or postgres://…")
    .option("--files-to <target>", "also copy the files it names from where they live now (STORAGE_DIR or AWS_BUCKET) to a directory or s3://BUCKET")
    .action(async (opts: CommonOptions & { from: string; to: string; filesTo?: string }) => {
      const out = makeOutput(opts.json === true)
      const bar = copyBar(opts.json !== true && process.stderr.isTTY === true)
      try {
        const result = await copyInstall(opts.from, opts.to, bar.update)
        bar.stop()
        const files = opts.filesTo === undefined ? undefined : await copyFilesTo(opts.from, opts.filesTo)
        const rows = Object.values(result.copied).reduce((a, b) => a + b, 0)
        out.emit({ ...result, ...(files === undefined ? {} : { files }) }, [
          `copied ${rows} records from ${result.from} to ${result.to}`,
          ...Object.entries(result.copied).filter(([, n]) => n > 0).map(([table, n]) => `  ${table}: ${n}`),
          ...(files === undefined ? [] : filesLines(files))
        ])
        if (files !== undefined && files.missing.length > 0) io().exitCode = EXIT_DOMAIN
      } catch (e) {
        bar.stop()
        out.fail(e)
      }
    })
}

/** The copy's bar, on a terminal only: records written of the source's records, the table being written. */
const copyBar = (enabled: boolean) => {
  if (!enabled) return { update: (_: CopyProgress) => {}, stop: () => {} }
  const bar = newBar("copying [{bar}] {percentage}% {value}/{total} {table}")
  let started = false
  return {
    update: (p: CopyProgress) => {
      if (!started) bar.start(p.total, p.done, { table: p.table })
      else bar.update(p.done, { table: p.table })
      started = true
    },
    stop: () => {
      if (started) bar.stop()
    }
  }
}
