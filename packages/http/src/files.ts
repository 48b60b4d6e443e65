/**
 * Files over HTTP (decisions §14). `POST /api/b2/attachments` takes one file (multipart, field `file`), streamed to
 * the file store while it is hashed and counted, so memory stays flat whatever its size; over the limit it answers
 * 413 and keeps nothing. `GET /files/{signed_id}/{filename}` answers only those who may read the file's record (a
 * session or a bearer key; 404 otherwise), with the type sniffed from the bytes, `nosniff`, a sandboxing CSP, and
 * `attachment` for everything but raster images; a `Range` asks for part of it.
 */
import * as Cookies from "@effect/platform/Cookies"
import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Attachments, type AttachedFile, Auth, Downloads, badRequest, FileStorage, type FileStorageService, loadAccess, People, type Received, ReceiveError, Rules, type Store } from "@convene/core"
import busboy from "busboy"
import { Cause, Effect, Exit, Option } from "effect"
import type * as http from "node:http"
import type { Readable } from "node:stream"
import { pipeline } from "node:stream/promises"
import { type ApiError, errorResponse, json, PayloadTooLarge } from "./errors.js"
import type { Answer } from "./routes.js"
import { SESSION_COOKIE } from "./pages/layout/kit.js"
import { attachmentJson } from "./api/serializers.js"

export type RunEffect = <A, E>(effect: Effect.Effect<A, E, Store | FileStorage>) => Promise<Exit.Exit<A, E>>
type Write = (req: http.IncomingMessage, res: http.ServerResponse, response: HttpServerResponse.HttpServerResponse) => void

/** what a multipart body carries besides the file's bytes (boundaries, part headers): a body past limit + this is refused unread */
const MULTIPART_OVERHEAD = 64 * 1024

const bearerOf = (req: http.IncomingMessage): string | undefined => {
  const header = req.headers.authorization ?? ""
  return header.startsWith("Bearer ") ? header.slice("Bearer ".length).trim() : undefined
}

const sessionOf = (req: http.IncomingMessage): string | undefined => Cookies.parseHeader(req.headers.cookie ?? "")[SESSION_COOKIE]

/** `attachment; filename=…` with an ASCII stand-in and the UTF-8 name (RFC 6266). */
export const contentDisposition = (kind: "inline" | "attachment", filename: string): string => {
  const ascii = filename.replace(/[^\x20-\x7e]/g, "_").replace(/["\\]/g, "_")
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`
}

/** One byte range of `size` bytes asked by a Range header; undefined: the whole; "unsatisfiable": 416. */
export const rangeOf = (header: string | undefined, size: number): { start: number; end: number } | undefined | "unsatisfiable" => {
  if (header === undefined) return undefined
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim())
  // several ranges, or another unit: the whole file (a server may ignore a Range it does not serve)
  if (m === null || (m[1] === "" && m[2] === "")) return undefined
  if (m[1] === "") {
    const suffix = Number(m[2])
    if (suffix === 0) return "unsatisfiable"
    return { start: Math.max(0, size - suffix), end: size - 1 }
  }
  const start = Number(m[1])
  const end = m[2] === "" ? size - 1 : Math.min(Number(m[2]), size - 1)
  if (start >= size || end < start) return "unsatisfiable"
  return { start, end }
}

export const makeFileRoutes = (run: RunEffect, write: Write, storage: FileStorageService, limit: number) => {
  const fail = (req: http.IncomingMessage, res: http.ServerResponse, e: ApiError) => write(req, res, errorResponse(e))

  /** The caller of an API request (its bearer key), or why not. */
  const apiAccess = (req: http.IncomingMessage) => Effect.flatMap(Auth.authenticate(bearerOf(req)), loadAccess)

  const upload: Answer = (req, res) => {
    if (storage.kind === "none") {
      req.resume()
      return write(req, res, json(503, { error: "This server keeps no files" }))
    }
    const declared = Number(req.headers["content-length"] ?? 0)
    if (declared > limit + MULTIPART_OVERHEAD) {
      // refused before a byte is read: the client is told at once, and the connection ends with the answer
      res.shouldKeepAlive = false
      req.resume()
      return fail(req, res, new PayloadTooLarge({ message: `The file is larger than ${limit} bytes` }))
    }
    void run(apiAccess(req)).then(async (caller) => {
      if (Exit.isFailure(caller)) {
        req.resume()
        return fail(req, res, Cause.squash(caller.cause) as ApiError)
      }
      // the one multipart reader (readForm, as a page's form is read): the field `file`, one file
      const read = await readForm(req, storage, limit, 1, MULTIPART_OVERHEAD, "file")
      if (read._tag === "TooLarge") {
        res.shouldKeepAlive = false
        return fail(req, res, new PayloadTooLarge({ message: `The file is larger than ${limit} bytes` }))
      }
      if (read._tag === "Malformed") return fail(req, res, badRequest("Send the file as multipart/form-data in a field named file; the body was malformed or incomplete"))
      const [got, ...extra] = read.uploads
      await Promise.all(extra.map((u) => storage.discard(u.received.temp)))
      if (got === undefined) return fail(req, res, badRequest("Missing required field: file"))
      const done = await run(Attachments.uploadFile(caller.value, got.received, got.filename))
      if (Exit.isFailure(done)) return fail(req, res, Cause.squash(done.cause) as ApiError)
      write(req, res, json(200, { attachment: attachmentJson(done.value) }))
    }).catch(() => {
      if (!res.headersSent) write(req, res, json(500, { error: "Internal server error" }))
    })
  }

  /** The reader of a download: a bearer key, else the session's person; undefined for nobody (still a 404, never a 401). */
  const downloadAccess = (req: http.IncomingMessage) =>
    Effect.gen(function*() {
      const key = bearerOf(req)
      if (key !== undefined) return yield* Effect.option(apiAccess(req))
      const user = yield* People.sessionUser(sessionOf(req))
      return user === undefined ? Option.none() : Option.some(yield* loadAccess(user))
    })

  const download: Answer = (req, res, params, search) => {
    const signedId = params.signed_id ?? ""
    const filename = params.filename ?? ""
    const preview = search.preview === "1"
    void run(Effect.flatMap(downloadAccess(req), (access) => Downloads.downloadable(Option.getOrUndefined(access), signedId, filename))).then(async (found) => {
      if (Exit.isFailure(found)) return fail(req, res, Cause.squash(found.cause) as ApiError)
      await (preview ? sendPreview(req, res, found.value) : send(req, res, found.value))
    }).catch(() => {
      if (!res.headersSent) write(req, res, json(500, { error: "Internal server error" }))
      else res.destroy()
    })
  }

  /** What every file's answer says: its type, never sniffed again, never run (sandbox), kept privately an hour. */
  const fileHeaders = (type: string, disposition: string, etag: string): Record<string, string> => ({
    "content-type": type,
    "x-content-type-options": "nosniff",
    "content-security-policy": "sandbox",
    "content-disposition": disposition,
    "cache-control": "private, max-age=3600",
    etag: `"${etag}"`
  })

  /** The body, or only the headers for a HEAD. */
  const stream = async (req: http.IncomingMessage, res: http.ServerResponse, body: Readable) => {
    if (req.method === "HEAD") {
      body.destroy()
      return void res.end()
    }
    await pipeline(body, res).catch(() => undefined)
  }

  /** An image's preview (WebP, made at upload): shown inline, whole. */
  const sendPreview = async (req: http.IncomingMessage, res: http.ServerResponse, file: AttachedFile) => {
    const body = file.blob.preview_key === null ? undefined : await storage.read(file.blob.preview_key)
    if (body === undefined) return write(req, res, json(404, { error: "File not found" }))
    res.writeHead(200, fileHeaders("image/webp", contentDisposition("inline", file.attachment.filename.replace(/\.[^.]*$/, "") + ".webp"), `${file.blob.sha256}-preview`))
    await stream(req, res, body)
  }

  const send = async (req: http.IncomingMessage, res: http.ServerResponse, file: AttachedFile) => {
    const { blob, attachment } = file
    const inline = Rules.isInline(blob.content_type)
    const headers = { ...fileHeaders(blob.content_type, contentDisposition(inline ? "inline" : "attachment", attachment.filename), blob.sha256), "accept-ranges": "bytes" }
    const range = rangeOf(typeof req.headers.range === "string" ? req.headers.range : undefined, blob.byte_size)
    if (range === "unsatisfiable") {
      res.writeHead(416, { "content-range": `bytes */${blob.byte_size}`, "content-type": "application/json" })
      return void res.end(JSON.stringify({ error: "Range not satisfiable" }))
    }
    const body = await storage.read(blob.storage_key, range)
    if (body === undefined) return write(req, res, json(404, { error: "File not found" }))
    if (range === undefined) res.writeHead(200, { ...headers, "content-length": String(blob.byte_size) })
    else res.writeHead(206, { ...headers, "content-length": String(range.end - range.start + 1), "content-range": `bytes ${range.start}-${range.end}/${blob.byte_size}` })
    await stream(req, res, body)
  }

  return { upload, download }
}

/** A page's multipart form as read: its fields (urlencoded, as a form without files sends them) and its files received. */
export type FormRead =
  | { readonly _tag: "Form"; readonly fields: string; readonly uploads: ReadonlyArray<{ readonly filename: string; readonly received: Received }> }
  | { readonly _tag: "TooLarge" }
  | { readonly _tag: "Malformed" }

/**
 * Reads a multipart form (decisions §14: a page's "Attach files", the API's upload): its fields into text (at most
 * `fieldBytes` in all), and each file of the field `fileField` streamed into the store (at most `maxFiles`, each at most `limit` bytes; a
 * part with no name and no bytes is a file input left empty). On any failure, what was received is discarded.
 */
export const readForm = (req: http.IncomingMessage, storage: FileStorageService, limit: number, maxFiles: number, fieldBytes: number, fileField = "files"): Promise<FormRead> =>
  new Promise((resolve) => {
    let parser: busboy.Busboy
    try {
      parser = busboy({ headers: req.headers, preservePath: true, defParamCharset: "utf8", limits: { files: maxFiles, fields: 50, fieldSize: fieldBytes, parts: maxFiles + 50, fileSize: limit + 1 } })
    } catch {
      req.resume()
      return resolve({ _tag: "Malformed" })
    }
    const fields = new URLSearchParams()
    let fieldSize = 0
    const receiving: Array<Promise<{ readonly filename: string; readonly received?: Received; readonly error?: unknown }>> = []
    let failure: "TooLarge" | "Malformed" | undefined
    let settled = false
    const finish = async () => {
      if (settled) return
      settled = true
      const all = await Promise.all(receiving)
      const kept = all.flatMap((r) => (r.received === undefined ? [] : [{ filename: r.filename, received: r.received }]))
      const tooLarge = all.some((r) => r.error instanceof ReceiveError && r.error.failure._tag === "TooLarge")
      if (failure !== undefined || tooLarge || all.some((r) => r.error !== undefined)) {
        await Promise.all(kept.map((k) => storage.discard(k.received.temp)))
        if (tooLarge || failure === "TooLarge") {
          req.unpipe(parser)
          req.resume()
          return resolve({ _tag: "TooLarge" })
        }
        return resolve({ _tag: "Malformed" })
      }
      // an empty file input sends a part with no name and no bytes: nothing was attached
      const uploads = kept.filter((k) => !(k.filename === "" && k.received.byteSize === 0))
      await Promise.all(kept.filter((k) => !uploads.includes(k)).map((k) => storage.discard(k.received.temp)))
      resolve({ _tag: "Form", fields: fields.toString(), uploads })
    }
    parser.on("field", (name, value, info) => {
      fieldSize += name.length + value.length
      if (info.valueTruncated || fieldSize > fieldBytes) failure = "TooLarge"
      else fields.append(name, value)
    })
    parser.on("file", (name, stream, info) => {
      stream.on("error", () => undefined)
      if (name !== fileField) return void stream.resume()
      const filename = info.filename ?? ""
      type Got = { readonly filename: string; readonly received?: Received; readonly error?: unknown }
      const got = storage.receive(stream, limit).then((received): Got => ({ filename, received }), (error: unknown): Got => ({ filename, error }))
      receiving.push(got)
      // over the limit: answered now, not once the rest has come
      void got.then((r) => (r.error instanceof ReceiveError && r.error.failure._tag === "TooLarge" ? finish() : undefined))
    })
    parser.on("filesLimit", () => {
      failure = "TooLarge"
    })
    parser.on("error", () => {
      failure ??= "Malformed"
    })
    pipeline(req, parser).then(finish, () => {
      failure ??= "Malformed"
      return finish()
    }).catch(() => resolve({ _tag: "Malformed" }))
  })
