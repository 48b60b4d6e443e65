/**
 * The directory file store (decisions §14, the default: `STORAGE_DIR`, else `files/` beside the SQLite file). An
 * upload streams into `tmp/` while it is hashed and counted, is synced, and is kept by a rename under its key (the
 * same file system: atomic); a kept object is never rewritten. Keys are made by the core (hex, `/`, `-`, `.`), never
 * taken from a request; anything else is refused before the file system sees it.
 */
import { createHash, randomBytes } from "node:crypto"
import { createReadStream, createWriteStream } from "node:fs"
import { mkdir, open, rename, rm, stat } from "node:fs/promises"
import { dirname, join } from "node:path"
import { Readable, Transform } from "node:stream"
import { pipeline } from "node:stream/promises"
import { type ByteRange, checkedKey, type FileStorageService, type Received, ReceiveError } from "../ports/files.js"

const HEAD_BYTES = 4100


/** Hashes, counts and keeps the first bytes of what passes; past `limit` bytes it fails the stream. */
export const measuring = (limit: number) => {
  const hash = createHash("sha256")
  const head: Array<Buffer> = []
  let size = 0
  let headSize = 0
  const transform = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length
      if (size > limit) return done(new ReceiveError({ _tag: "TooLarge", limit }))
      hash.update(chunk)
      if (headSize < HEAD_BYTES) {
        const part = chunk.subarray(0, HEAD_BYTES - headSize)
        head.push(part)
        headSize += part.length
      }
      done(null, chunk)
    }
  })
  return { transform, result: () => ({ sha256: hash.digest("hex"), byteSize: size, head: new Uint8Array(Buffer.concat(head)) }) }
}

const syncDir = async (dir: string) => {
  const handle = await open(dir, "r")
  try {
    await handle.sync()
  } finally {
    await handle.close()
  }
}

export const directoryStorage = (root: string): FileStorageService => {
  const tmp = join(root, "tmp")
  const pathOf = (key: string) => join(root, checkedKey(key))
  const writeSynced = async (source: Readable, path: string, through?: Transform) => {
    const handle = await open(path, "wx", 0o600)
    try {
      const out = createWriteStream("", { fd: handle.fd, autoClose: false })
      await (through === undefined ? pipeline(source, out) : pipeline(source, through, out))
      await handle.sync()
    } finally {
      await handle.close()
    }
  }
  return {
    kind: "directory",
    describe: root,
    receive: async (source, limit): Promise<Received> => {
      await mkdir(tmp, { recursive: true })
      const temp = `tmp/${randomBytes(16).toString("hex")}`
      const m = measuring(limit)
      try {
        await writeSynced(source, join(root, temp), m.transform)
      } catch (e) {
        await rm(join(root, temp), { force: true })
        // the source is left unread past the limit: its sender is answered, not waited for
        throw e instanceof ReceiveError ? e : new ReceiveError({ _tag: "Aborted", cause: e })
      }
      return { temp, ...m.result() }
    },
    keep: async (temp, key) => {
      const path = pathOf(key)
      await mkdir(dirname(path), { recursive: true })
      await rename(pathOf(temp), path)
      await syncDir(dirname(path))
    },
    discard: (temp) => rm(pathOf(temp), { force: true }),
    read: async (key, range?: ByteRange) => {
      const path = pathOf(key)
      try {
        await stat(path)
      } catch {
        return undefined
      }
      // 512 KiB reads: a large file goes out in fewer, larger writes
      return createReadStream(path, { highWaterMark: 512 * 1024, ...(range === undefined ? {} : { start: range.start, end: range.end }) })
    },
    put: async (key, bytes) => {
      const path = pathOf(key)
      await mkdir(dirname(path), { recursive: true })
      await mkdir(tmp, { recursive: true })
      const temp = join(tmp, randomBytes(16).toString("hex"))
      try {
        await writeSynced(Readable.from([Buffer.from(bytes)]), temp)
        await rename(temp, path)
      } finally {
        await rm(temp, { force: true })
      }
      await syncDir(dirname(path))
    },
    remove: (key) => rm(pathOf(key), { force: true }),
    exists: (key) => stat(pathOf(key)).then(() => true, () => false)
  }
}
