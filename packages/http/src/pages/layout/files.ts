/**
 * Files on pages (decisions §14): what a form's "Attach files" sent, kept as the person's uploads; and a record's
 * files as a page shows them (an image by its preview, at its size; anything else a link with its size).
 */
import { type Access, Attachments, type AttachedFile, Rules } from "@convene/core"
import { Effect } from "effect"
import { PageUploads } from "../../routes.js"
import { sizeText } from "./i18n.js"
import type { Reader } from "./kit.js"

/** The uploads of the form being answered (PageUploads), each kept as the person's file: their signed ids, for the record's `files`. */
export const keptUploads = (access: Access) =>
  Effect.flatMap(PageUploads, (uploads) => Effect.forEach(uploads, (u) => Effect.map(Attachments.uploadFile(access, u.received, u.filename), (f) => f.attachment.signed_id)))

/** A preview's size: the image's, fitted within 1280 px as the preview was made (undefined: not known). */
const previewBox = (width: number | null, height: number | null) => {
  if (width === null || height === null || width <= 0 || height <= 0) return undefined
  const scale = Math.min(1, 1280 / Math.max(width, height))
  return { width: Math.round(width * scale), height: Math.round(height * scale) }
}

export interface FileView {
  readonly signedId: string
  readonly href: string
  /** an image: its preview where one was made, else the file */
  readonly src: string
  /** the preview's size, so the page does not move as images load */
  readonly box: { readonly width: number; readonly height: number } | undefined
  readonly name: string
  readonly image: boolean
  readonly size: string
}

export const filesView = (who: Reader, files: ReadonlyArray<AttachedFile>): ReadonlyArray<FileView> =>
  files.map((f) => {
    const href = Rules.downloadPathOf(f.attachment.signed_id, f.attachment.filename)
    return {
      signedId: f.attachment.signed_id,
      href,
      src: f.blob.preview_key === null ? href : `${href}?preview=1`,
      box: previewBox(f.blob.width, f.blob.height),
      name: f.attachment.filename,
      image: Rules.isInline(f.blob.content_type),
      size: sizeText(who.locale, f.blob.byte_size)
    }
  })

/**
 * An edit form's files from then on (Loomio's `files` on update): where the form listed the record's files, those
 * left checked ("Keep"), then those just attached; where it did not, the record's own and those just attached; none
 * attached and none listed: unchanged (undefined).
 */
export const filesAfterEdit = (listed: boolean, keep: ReadonlyArray<string>, added: ReadonlyArray<string>, current: ReadonlyArray<AttachedFile>): ReadonlyArray<string> | undefined => {
  const own = current.map((f) => f.attachment.signed_id)
  if (listed) return [...own.filter((id) => keep.includes(id)), ...added]
  return added.length === 0 ? undefined : [...own, ...added]
}
