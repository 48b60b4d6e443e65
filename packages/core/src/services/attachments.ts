/**
 * Files (decisions §14): an upload kept once per content and recorded as the uploader's; attached to a record by
 * its `signed_id` in the record's own write (`attachFiles`); deleted when no record took it within a day. Who may
 * download a file is `downloads.ts` (it asks the records' own services, which attach files here).
 */
import { randomBytes } from "node:crypto"
import { Effect } from "effect"
import type { AttachableType, AttachedFile } from "../domain/files.js"
import type { Id } from "../domain/records.js"
import { type Invalid, invalid } from "../errors.js"
import { FileStorage, type FileStorageService, type Received } from "../ports/files.js"
import { Store } from "../ports/store.js"
import type { Access } from "../rules/access.js"
import { filenameErrors, isPreviewable, UNATTACHED_TTL_MS } from "../rules/attachments.js"
import { makePreview, type Preview } from "../files/previews.js"
import { sniffContentType } from "../files/sniff.js"
import { nowIso } from "./common.js"

const newSignedId = () => randomBytes(18).toString("base64url")
/** The hash and a generation of the blob's own: a key deleted with its last attachment is never written again. */
const storageKey = (sha256: string) => `${sha256.slice(0, 2)}/${sha256.slice(2, 4)}/${sha256}-${randomBytes(6).toString("hex")}`

/**
 * Received bytes recorded as the uploader's file: the type sniffed, the bytes kept once per content (a duplicate's
 * received copy discarded). A refused name keeps nothing.
 */
export const uploadFile = (access: Access, received: Received, filename: string): Effect.Effect<AttachedFile, Invalid, Store | FileStorage> =>
  keepFile(access.user.id, received, filename)

/** Received bytes kept as `uploaderId`'s file, unattached (an upload's, or a file brought with an import). */
const keepFile = Effect.fnUntraced(function*(uploaderId: Id, received: Received, filename: string): Effect.fn.Return<AttachedFile, Invalid, Store | FileStorage> {
  const store = yield* Store
  const storage = yield* FileStorage
  const nameError = filenameErrors(filename)
  if (nameError !== null) {
    yield* Effect.promise(() => storage.discard(received.temp))
    return yield* invalid("filename", nameError)
  }
  const contentType = yield* Effect.promise(() => sniffContentType(received.head))
  const now = yield* nowIso
  // new bytes are kept under a new key before the row that names them commits: a crash leaves at most an object no
  // row names, never a row without its bytes
  let kept: string | undefined
  let preview: Preview | undefined
  for (;;) {
    if (kept === undefined && (yield* store.files.blobBySha(received.sha256)) === undefined) {
      kept = storageKey(received.sha256)
      // an image's preview, made once for its bytes, before the row that names it
      if (isPreviewable(contentType)) preview = yield* Effect.promise(() => makePreview(storage, received.temp, `${kept}-preview`))
      yield* Effect.promise(() => storage.keep(received.temp, kept!))
    }
    const fresh = kept
    const file = yield* store.transaction(Effect.gen(function*() {
      // the blob again, inside the write: another upload of the same bytes, or the purge, may have come between
      const blob = (yield* store.files.blobBySha(received.sha256)) ?? (fresh === undefined ? undefined : yield* store.files.insertBlob({
        sha256: received.sha256, storage_key: fresh, byte_size: received.byteSize, content_type: contentType,
        preview_key: preview?.key ?? null, width: preview?.width ?? null, height: preview?.height ?? null, created_at: now
      }))
      if (blob === undefined) return undefined
      const attachment = yield* store.files.insertAttachment({
        signed_id: newSignedId(), blob_id: blob.id, filename, uploader_id: uploaderId, record_type: null, record_id: null, position: 0, created_at: now, attached_at: null
      })
      return { attachment, blob }
    }))
    // the blob it found was purged meanwhile: round again, keeping the received bytes this time
    if (file === undefined) continue
    if (fresh === undefined) yield* Effect.promise(() => storage.discard(received.temp))
    else if (file.blob.storage_key !== fresh) {
      yield* Effect.promise(() => storage.remove(fresh))
      if (preview !== undefined) yield* Effect.promise(() => storage.remove(preview!.key))
    }
    return file
  }
})

/**
 * The files a record's write attaches (Loomio's `files`: signed ids, in order). Each must be an upload of the caller's
 * not attached elsewhere, or one the record already holds (an edit sends back what it keeps). Inside the record's
 * transaction, so the record and its files commit together.
 */
export const attachFiles = Effect.fnUntraced(function*(access: Access, type: AttachableType, recordId: Id, signedIds: ReadonlyArray<string>): Effect.fn.Return<ReadonlyArray<AttachedFile>, Invalid, Store> {
  const store = yield* Store
  const unique = [...new Set(signedIds)]
  const found = yield* store.files.bySignedIds(unique)
  const bySigned = new Map(found.map((f) => [f.attachment.signed_id, f]))
  for (const signedId of unique) {
    const f = bySigned.get(signedId)
    if (f === undefined) return yield* invalid("files", `unknown file ${signedId}`)
    const a = f.attachment
    const ours = a.record_id === null ? a.uploader_id === access.user.id : a.record_type === type && a.record_id === recordId
    if (!ours) return yield* invalid("files", `file ${signedId} is not yours to attach`)
  }
  const now = yield* nowIso
  yield* store.files.attach(type, recordId, unique.map((s) => bySigned.get(s)!.attachment.id), now)
  // the record's files as the write left them (its answer reads nothing after the COMMIT)
  return unique.map((signedId, position) => {
    const f = bySigned.get(signedId)!
    return { blob: f.blob, attachment: { ...f.attachment, record_type: type, record_id: recordId, position, attached_at: f.attachment.attached_at ?? now } }
  })
})

/**
 * Files brought with an import (decisions §14), each received bytes kept as its record author's file and attached
 * after what the record holds. The import wrote the records: no one's permission is asked. A name refused is
 * said, its file left out.
 */
export const attachBrought = Effect.fnUntraced(function*(files: ReadonlyArray<{
  readonly type: AttachableType
  readonly recordId: Id
  readonly uploaderId: Id
  readonly filename: string
  readonly received: Received
}>): Effect.fn.Return<{ readonly attached: number; readonly refused: ReadonlyArray<string> }, never, Store | FileStorage> {
  const store = yield* Store
  const byRecord = new Map<string, { type: AttachableType; recordId: Id; ids: Array<Id> }>()
  const refused: Array<string> = []
  for (const f of files) {
    const kept = yield* Effect.either(keepFile(f.uploaderId, f.received, f.filename))
    if (kept._tag === "Left") {
      refused.push(`${JSON.stringify(f.filename)}: the name ${Object.values(kept.left.errors).flat()[0] ?? "is refused"}`)
      continue
    }
    const k = `${f.type}:${f.recordId}`
    const entry = byRecord.get(k) ?? { type: f.type, recordId: f.recordId, ids: [] }
    byRecord.set(k, entry)
    entry.ids.push(kept.right.attachment.id)
  }
  const now = yield* nowIso
  let attached = 0
  for (const { type, recordId, ids } of byRecord.values()) {
    const held = (yield* store.files.ofRecords(type, [recordId])).map((f) => f.attachment.id)
    yield* store.transaction(store.files.attach(type, recordId, [...held, ...ids], now))
    attached += ids.length
  }
  return { attached, refused }
})

/** The files of records of one type, by record, each record's in its order. */
export const filesOf = (type: AttachableType, recordIds: ReadonlyArray<Id>): Effect.Effect<ReadonlyMap<Id, ReadonlyArray<AttachedFile>>, never, Store> =>
  Effect.map(Effect.flatMap(Store, (store) => store.files.ofRecords(type, recordIds)), (files) => {
    const out = new Map<Id, Array<AttachedFile>>()
    for (const f of files) {
      const id = f.attachment.record_id!
      const list = out.get(id)
      if (list === undefined) out.set(id, [f])
      else list.push(f)
    }
    return out
  })

/** The scheduler's job: uploads no record took within a day, and every blob left without an attachment, deleted. */
export const purgeUnattached = Effect.fnUntraced(function*(): Effect.fn.Return<{ readonly attachments: number; readonly blobs: number }, never, Store | FileStorage> {
  const store = yield* Store
  const storage = yield* FileStorage
  const before = new Date(Date.parse(yield* nowIso) - UNATTACHED_TTL_MS).toISOString()
  const purged = yield* store.transaction(store.files.purgeUnattached(before))
  // after the rows commit: a crash here leaves bytes no row names, never a row without its bytes
  for (const key of purged.keys) yield* Effect.promise(() => storage.remove(key))
  return { attachments: purged.attachments, blobs: purged.keys.length }
})

export interface FilesCopied {
  readonly copied: number
  /** already in the target (a kept object never changes) */
  readonly present: number
  /** named by the database but not in the source */
  readonly missing: ReadonlyArray<string>
}

/**
 * Every file the database names (and its preview) copied from one file store to another (decisions §14: a directory
 * and S3 either way), streamed, each checked against its hash; what the target has already is left as it is.
 */
export const copyFiles = Effect.fnUntraced(function*(from: FileStorageService, to: FileStorageService, onProgress?: (done: number, total: number) => void): Effect.fn.Return<FilesCopied, never, Store> {
  const store = yield* Store
  const blobs = yield* store.files.everyBlob()
  const items = blobs.flatMap((b) => [{ key: b.storage_key, sha256: b.sha256 as string | undefined }, ...(b.preview_key === null ? [] : [{ key: b.preview_key, sha256: undefined }])])
  let copied = 0
  let present = 0
  const missing: Array<string> = []
  for (const [i, item] of items.entries()) {
    yield* Effect.promise(async () => {
      if (await to.exists(item.key)) return void present++
      const source = await from.read(item.key)
      if (source === undefined) return void missing.push(item.key)
      const received = await to.receive(source, Number.MAX_SAFE_INTEGER)
      if (item.sha256 !== undefined && received.sha256 !== item.sha256) {
        await to.discard(received.temp)
        throw new Error(`${item.key}: the bytes read do not match their hash`)
      }
      await to.keep(received.temp, item.key)
      copied++
    })
    onProgress?.(i + 1, items.length)
  }
  return { copied, present, missing }
})
