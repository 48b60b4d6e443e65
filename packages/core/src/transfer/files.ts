/**
 * Files moving with a group (decisions §14). `convene export --files DIR` writes each file the export names into
 * DIR under its SHA-256 (the `key` of its `attachments` line); `convene import loomio --files DIR` finds each file a
 * line names in DIR — by that key, by the line's download path, or by its filename — and attaches it to the record
 * the import wrote. A file DIR lacks is counted and named; the import goes on. The records commit first, the files
 * after them: a file that fails leaves the records as they are.
 */
import { createHash } from "node:crypto"
import { createReadStream, createWriteStream, mkdirSync, renameSync, rmSync, statSync } from "node:fs"
import { pipeline } from "node:stream/promises"
import { Transform } from "node:stream"
import { join, resolve, sep } from "node:path"
import { Effect } from "effect"
import { type FileStorageService, FileStorage, type Received } from "../ports/files.js"
import type { Store } from "../ports/store.js"
import * as Attachments from "../services/attachments.js"
import type { ImportedFile, ImportResult, StagedImport } from "./loomio/stage.js"

/** The core over the database imported into (openConvene), for the files' step. */
export interface Opened {
  readonly run: <A>(effect: Effect.Effect<A, never, Store>) => Promise<A>
  readonly close: () => Promise<void>
}

/** The directory files move through, and the store they live in here. */
export interface FilesDirectory {
  readonly dir: string
  readonly storage: FileStorageService
}

const isFile = (path: string) => {
  try {
    return statSync(path).isFile()
  } catch {
    return false
  }
}

const decoded = (path: string) => {
  try {
    return decodeURIComponent(path)
  } catch {
    return path
  }
}

/** Where a line's bytes are in `dir` (never outside it): by its key, its download path, its filename. */
export const findIn = (dir: string, f: Pick<ImportedFile, "key" | "path" | "filename">): string | undefined => {
  const root = resolve(dir)
  const names = [f.key, f.path, f.path === null ? null : decoded(f.path), f.filename].filter((n): n is string => n !== null && n !== "")
  for (const name of names) {
    const at = resolve(root, name.replace(/^\/+/, ""))
    if (at.startsWith(root + sep) && isFile(at)) return at
  }
  return undefined
}

const SHA256 = /^[0-9a-f]{64}$/

/**
 * The files of an import found in the directory and attached (a dry run only looks for them). Without a directory
 * the files are left behind, counted and said.
 */
export const bringFiles = async (
  open: () => Promise<Opened>,
  staged: StagedImport,
  files: FilesDirectory | undefined,
  dryRun: boolean
): Promise<ImportResult> => {
  const { attachments, ...result } = staged
  if (files === undefined) {
    if (attachments.length === 0) return result
    return {
      ...result,
      skipped: { ...result.skipped, attachments: (result.skipped.attachments ?? 0) + attachments.length },
      warnings: [...result.warnings, `${attachments.length} files the export names were left behind: give --files DIR (the directory holding them) to bring them`]
    }
  }
  const missing: Array<string> = []
  const found: Array<{ file: ImportedFile; at: string }> = []
  for (const file of attachments) {
    const at = findIn(files.dir, file)
    if (at === undefined) missing.push(`line ${file.line}: ${file.filename}`)
    else found.push({ file, at })
  }
  if (dryRun || found.length === 0) return { ...result, files: { attached: found.length, missing } }

  const received: Array<{ file: ImportedFile; received: Received }> = []
  try {
    for (const { file, at } of found) {
      const r = await files.storage.receive(createReadStream(at), Number.MAX_SAFE_INTEGER)
      // convene's own export names the bytes by their hash: other bytes under that name are not the file
      if (file.key !== null && SHA256.test(file.key) && r.sha256 !== file.key) {
        await files.storage.discard(r.temp)
        missing.push(`line ${file.line}: ${file.filename} (${at} does not hold the bytes of its key)`)
      } else received.push({ file, received: r })
    }
    const convene = await open()
    try {
      const done = await convene.run(Effect.provideService(
        Attachments.attachBrought(received.map(({ file, received }) => ({
          type: file.record_type, recordId: file.record_id, uploaderId: file.uploader_id, filename: file.filename, received
        }))),
        FileStorage,
        files.storage
      ))
      received.length = 0
      return { ...result, files: { attached: done.attached, missing }, warnings: [...result.warnings, ...done.refused.map((r) => `file left out: ${r}`)] }
    } finally {
      await convene.close()
    }
  } finally {
    // bytes received but never kept (a failure on the way)
    for (const r of received) await files.storage.discard(r.received.temp).catch(() => undefined)
  }
}

export interface ExportedFiles {
  readonly written: number
  /** in the directory already, by its hash */
  readonly present: number
  /** named by the database but not in the store */
  readonly missing: ReadonlyArray<string>
}

/** Each blob an export names written into the directory under its SHA-256, checked against it on the way. */
export const writeExportFiles = async (blobs: ReadonlyMap<string, string>, files: FilesDirectory): Promise<ExportedFiles> => {
  mkdirSync(files.dir, { recursive: true })
  let written = 0
  let present = 0
  const missing: Array<string> = []
  for (const [sha256, storageKey] of blobs) {
    const to = join(files.dir, sha256)
    if (isFile(to)) {
      present++
      continue
    }
    const source = await files.storage.read(storageKey)
    if (source === undefined) {
      missing.push(storageKey)
      continue
    }
    const temp = `${to}.part`
    const hash = createHash("sha256")
    const hashing = new Transform({
      transform(chunk: Buffer, _, done) {
        hash.update(chunk)
        done(null, chunk)
      }
    })
    try {
      await pipeline(source, hashing, createWriteStream(temp, { flags: "wx" }))
      if (hash.digest("hex") !== sha256) throw new Error(`${storageKey}: the bytes read do not match their hash`)
      renameSync(temp, to)
      written++
    } finally {
      rmSync(temp, { force: true })
    }
  }
  return { written, present, missing }
}
