/**
 * Files (decisions §14), declared once: the bytes kept once per content (`Blob`) and each upload of them
 * (`Attachment`), unattached until a record takes it.
 */
import { Schema } from "effect"
import { Id as IdField, model, NullId, NullStamp, NullText, Stamp } from "./model.js"

/** The records a file may be attached to (Loomio's `files` on discussions, comments, polls and outcomes). */
export const ATTACHABLE_TYPES = ["Discussion", "Comment", "Poll", "Outcome"] as const
export type AttachableType = (typeof ATTACHABLE_TYPES)[number]
/** each one's table */
export const ATTACHABLE_TABLES: Readonly<Record<AttachableType, string>> = { Discussion: "discussions", Comment: "comments", Poll: "polls", Outcome: "outcomes" }

export const Blob = model("Blob", {
  id: IdField,
  sha256: Schema.String,
  /** where the file store keeps the bytes: the hash and a generation of this row's own */
  storage_key: Schema.String,
  byte_size: Schema.Int,
  /** sniffed from the bytes, never taken from the sender */
  content_type: Schema.String,
  preview_key: NullText,
  width: Schema.NullOr(Schema.Int),
  height: Schema.NullOr(Schema.Int),
  created_at: Stamp
})
export type Blob = typeof Blob.Type

export const Attachment = model("Attachment", {
  id: IdField,
  /** what a client sends back in `files` to attach it, and the file's address (`/files/{signed_id}/{filename}`) */
  signed_id: Schema.String,
  blob_id: IdField,
  filename: Schema.String,
  uploader_id: IdField,
  record_type: Schema.NullOr(Schema.Literal(...ATTACHABLE_TYPES)),
  record_id: NullId,
  position: Schema.Int,
  created_at: Stamp,
  attached_at: NullStamp
})
export type Attachment = typeof Attachment.Type

/** An attachment with its bytes' facts, as records and downloads show it. */
export interface AttachedFile {
  readonly attachment: Attachment
  readonly blob: Blob
}
