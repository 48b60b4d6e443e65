/** Files' rows (decisions §14): blobs once per content, attachments per upload (ports/files.ts). */
import { Effect } from "effect"
import { type AttachableType, type AttachedFile, Attachment, Blob } from "../domain/files.js"
import type { Id } from "../domain/records.js"
import type { FilesRepo } from "../ports/files.js"
import { insertRow, returned, type Row, type SqlClient } from "./client.js"

const A = Attachment.joined("a")
const B = Blob.joined("b")
const SELECT = `SELECT ${A.columns}, ${B.columns} FROM attachments a JOIN blobs b ON b.id = a.blob_id`
const attached = (r: Row): AttachedFile => ({ attachment: A.fromRow(r), blob: B.fromRow(r) })

/** Where a request remembers one record's files (a record read ahead with none remembers [], store/threads.ts readAhead). */
export const filesKey = (type: AttachableType, id: Id) => `files:${type}:${id}`

export const makeFilesRepo = (c: SqlClient): FilesRepo => {
  const { ids } = c.dialect
  return {
    blobBySha: (sha256) => c.get(`SELECT * FROM blobs WHERE sha256 = ?`, [sha256], Blob.fromRow),
    insertBlob: (blob) => Effect.map(insertRow(c, "blobs", Blob.toRow(blob)), (r) => Blob.fromRow(returned(r))),
    insertAttachment: (a) => Effect.map(insertRow(c, "attachments", Attachment.toRow(a)), (r) => Attachment.fromRow(returned(r))),
    bySignedId: (signedId) => c.get(`${SELECT} WHERE a.signed_id = ?`, [signedId], attached),
    bySignedIds: (list) =>
      list.length === 0 ? Effect.succeed([]) : c.all(`${SELECT} WHERE ${ids.has("a.signed_id", "ids", "text")}`, { ids: ids.bind(list) }, attached),
    ofRecords: (type, list) => {
      if (list.length === 0) return Effect.succeed([])
      const read = c.all(`${SELECT} WHERE a.record_type = @type AND ${ids.has("a.record_id", "ids")} ORDER BY a.record_id, a.position, a.id`,
          { type, ids: ids.bind(list) }, attached)
      return list.length === 1 ? c.remembered(filesKey(type, list[0]!), read) : read
    },
    attach: (type, recordId, list, at) =>
      Effect.gen(function*() {
        // the record's files are the list, in its order: the others are let go (deleted with the unattached uploads)
        yield* c.run(`UPDATE attachments SET record_type = NULL, record_id = NULL, attached_at = NULL
                      WHERE record_type = @type AND record_id = @record AND NOT ${ids.has("id", "ids")}`, { type, record: recordId, ids: ids.bind(list) })
        for (const [position, id] of list.entries()) {
          yield* c.run(`UPDATE attachments SET record_type = @type, record_id = @record, position = @position, attached_at = coalesce(attached_at, @at) WHERE id = @id`,
            { type, record: recordId, position, at, id })
        }
      }),
    everyBlob: () => c.all(`SELECT sha256, storage_key, preview_key FROM blobs ORDER BY id`, [], (r) => ({
      sha256: String(r.sha256), storage_key: String(r.storage_key), preview_key: r.preview_key === null ? null : String(r.preview_key)
    })),
    purgeUnattached: (before) =>
      Effect.gen(function*() {
        const gone = yield* c.run(`DELETE FROM attachments WHERE record_id IS NULL AND created_at < ?`, [before])
        // every blob no attachment holds: the uploads just deleted, and those of records deleted with their author
        const blobs = yield* c.run<{ storage_key: string; preview_key: string | null }>(
          `DELETE FROM blobs WHERE NOT EXISTS (SELECT 1 FROM attachments a WHERE a.blob_id = blobs.id) RETURNING storage_key, preview_key`)
        return { attachments: gone.changes, keys: blobs.rows.flatMap((b) => (b.preview_key === null ? [b.storage_key] : [b.storage_key, b.preview_key])) }
      })
  }
}
