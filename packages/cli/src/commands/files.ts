/**
 * `convene files copy --to TARGET` (decisions §14): every file the database names, and its preview, copied from
 * where files live now (STORAGE_DIR, or AWS_BUCKET) to TARGET: a directory, or `s3://BUCKET` with the AWS_ variables'
 * keys, region and endpoint. Each file is streamed and checked against its hash; what TARGET has already stays.
 * Then point STORAGE_DIR or AWS_BUCKET at TARGET and restart.
 */
import { Attachments, type FileStorageService, openConvene } from "@convene/core"
import type { Command } from "commander"
import { existsSync } from "node:fs"
import { type CommonOptions, existingDatabase } from "../common.js"
import { io } from "../io.js"
import { CliError, EXIT_DOMAIN, makeOutput } from "../output.js"

/**
 * TARGET as a file store: `s3://BUCKET`, read as serve reads AWS_BUCKET (with the AWS_ variables' keys, region and
 * endpoint: `fileStorageFromEnv`), else a directory.
 */
const storageTarget = async (target: string, database: string): Promise<FileStorageService> => {
  const { fileStorageFromEnv } = await import("@convene/http")
  const m = /^s3:\/\/([^/]+)\/?$/.exec(target)
  try {
    return fileStorageFromEnv(m === null ? { STORAGE_DIR: target } : { ...io().env, AWS_BUCKET: m[1]! }, database)
  } catch (e) {
    throw new CliError(`${target}: ${e instanceof Error ? e.message : String(e)}`)
  }
}

/**
 * The directory an import reads files from (which must exist) or an export writes them into, and the store where
 * files live here (STORAGE_DIR or AWS_BUCKET, as serve reads them).
 */
export const filesDirectory = async (database: string, dir: string, use: "read" | "write") => {
  if (use === "read" && !existsSync(dir)) throw new CliError(`no directory at ${dir}`)
  const { fileStorageFromEnv } = await import("@convene/http")
  return { dir, storage: fileStorageFromEnv(io().env, database) }
}

/** Copies the files `database` names from where they live now to `target`; the lines to say it. */
export const copyFilesTo = async (database: string, target: string) => {
  const { fileStorageFromEnv } = await import("@convene/http")
  const from = fileStorageFromEnv(io().env, database)
  const to = await storageTarget(target, database)
  const convene = await openConvene({ database })
  try {
    const result = await convene.run(Attachments.copyFiles(from, to))
    return { from: from.describe, to: to.describe, ...result }
  } finally {
    await convene.close()
  }
}

export const filesLines = (r: Awaited<ReturnType<typeof copyFilesTo>>) => [
  `files: ${r.copied} copied from ${r.from} to ${r.to}, ${r.present} there already`,
  ...(r.missing.length > 0 ? [`files missing from ${r.from} (named by the database): ${r.missing.length}`, ...r.missing.map((k) => `  ${k}`)] : [])
]

export const registerFiles = (program: Command) => {
  const files = program.command("files").description("where files live (decisions §14)")
  files.command("copy")
    .description("copy every file the database names from where files live now (STORAGE_DIR or AWS_BUCKET) to a directory or s3://BUCKET")
    .requiredOption("--to <target>", "a directory, or s3://BUCKET (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION, AWS_ENDPOINT)")
    .action(async (opts: CommonOptions & { to: string }) => {
      const out = makeOutput(opts.json === true)
      try {
        const result = await copyFilesTo(existingDatabase(opts), opts.to)
        out.emit(result, filesLines(result))
        if (result.missing.length > 0) io().exitCode = EXIT_DOMAIN
      } catch (e) {
        out.fail(e)
      }
    })
}
