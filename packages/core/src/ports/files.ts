/**
 * Files (decisions §14): where the bytes live (`FileStorage`: a directory or S3-compatible storage, behind one
 * port) and the rows that say what they are and whose (`FilesRepo`, in the Store).
 */
import { Context, type Effect } from "effect"
import type { Readable } from "node:stream"
import type { AttachableType, AttachedFile, Attachment, Blob } from "../domain/files.js"
import type { Id } from "../domain/records.js"

/** A storage key as the core makes them (hex, `/`, `-`, `.`); anything else is refused before a store sees it. */
export const checkedKey = (key: string): string => {
  if (!/^[a-z0-9]+(?:[/.-][a-z0-9]+)*$/.test(key)) throw new Error(`not a storage key: ${JSON.stringify(key)}`)
  return key
}

/** Bytes received into the storage, not yet kept under their key. */
export interface Received {
  /** the storage's own name for the bytes until they are kept or discarded */
  readonly temp: string
  readonly sha256: string
  readonly byteSize: number
  /** the first bytes (at most 4,100: enough to sniff the type) */
  readonly head: Uint8Array
}

/** What went wrong receiving: more bytes than the limit (nothing kept), or the sender's stream failed. */
export type ReceiveFailure = { readonly _tag: "TooLarge"; readonly limit: number } | { readonly _tag: "Aborted"; readonly cause: unknown }

export class ReceiveError extends Error {
  constructor(readonly failure: ReceiveFailure) {
    super(failure._tag === "TooLarge" ? `more than ${failure.limit} bytes` : `the upload was cut short: ${String(failure.cause)}`)
  }
}

/** A byte range of a stored object (both ends included), as an HTTP Range asks. */
export interface ByteRange {
  readonly start: number
  readonly end: number
}

/**
 * Where files' bytes live. Uploads stream through (memory stays flat whatever the size); a kept object is never
 * changed, only deleted.
 */
export interface FileStorageService {
  /** "directory" or "s3", for `convene doctor` and the log */
  readonly kind: string
  /** where, in words an operator recognises (a path, `s3://bucket`) */
  readonly describe: string
  /** Streams `source` into a temporary object, hashing and counting; past `limit` bytes it fails and keeps nothing. */
  readonly receive: (source: Readable, limit: number) => Promise<Received>
  /** Keeps received bytes under `key`. */
  readonly keep: (temp: string, key: string) => Promise<void>
  /** Forgets received bytes (a duplicate of kept ones, or a refused upload). */
  readonly discard: (temp: string) => Promise<void>
  /** The kept object's bytes, all or a range; undefined when there is no such object. */
  readonly read: (key: string, range?: ByteRange) => Promise<Readable | undefined>
  /** Puts bytes already in hand under `key` (a preview, a copy between stores, doctor's probe). */
  readonly put: (key: string, bytes: Uint8Array) => Promise<void>
  readonly remove: (key: string) => Promise<void>
  readonly exists: (key: string) => Promise<boolean>
}

export class FileStorage extends Context.Tag("@convene/core/FileStorage")<FileStorage, FileStorageService>() {}

export interface FilesRepo {
  readonly blobBySha: (sha256: string) => Effect.Effect<Blob | undefined>
  readonly insertBlob: (blob: Omit<Blob, "id">) => Effect.Effect<Blob>
  readonly insertAttachment: (a: Omit<Attachment, "id">) => Effect.Effect<Attachment>
  readonly bySignedId: (signedId: string) => Effect.Effect<AttachedFile | undefined>
  readonly bySignedIds: (signedIds: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<AttachedFile>>
  /** the files of records of one type, each record's in its order */
  readonly ofRecords: (type: AttachableType, ids: ReadonlyArray<Id>) => Effect.Effect<ReadonlyArray<AttachedFile>>
  /** attaches these uploads to the record in this order, and lets go of the record's others (they are deleted with the unattached) */
  readonly attach: (type: AttachableType, recordId: Id, attachmentIds: ReadonlyArray<Id>, at: string) => Effect.Effect<void>
  /** every blob's storage keys (its bytes, its preview) and hash, for copying a store */
  readonly everyBlob: () => Effect.Effect<ReadonlyArray<Pick<Blob, "sha256" | "storage_key" | "preview_key">>>
  /** uploads no record took, made before `before`, deleted; every blob no attachment holds deleted too (their storage keys returned) */
  readonly purgeUnattached: (before: string) => Effect.Effect<{ readonly attachments: number; readonly keys: ReadonlyArray<string> }>
}
