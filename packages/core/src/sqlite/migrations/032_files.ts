/**
 * Files (decisions §14): the bytes once per content (`blobs`: the SHA-256, the type sniffed from the bytes, where
 * the store keeps them, a preview's key for images), and each upload of them (`attachments`: the name it was sent
 * with, who sent it, the record it was attached to and its place there; unattached for at most a day). A blob's
 * storage key carries a generation of its own, so an object deleted with its last attachment is never one a new
 * upload of the same bytes wrote.
 *
 * Frozen SQL text: a released migration never changes (test: migration checksums).
 */
export const m032_files = String.raw`
CREATE TABLE blobs (
  id INTEGER PRIMARY KEY,
  sha256 TEXT NOT NULL UNIQUE,
  storage_key TEXT NOT NULL UNIQUE,
  byte_size INTEGER NOT NULL,
  content_type TEXT NOT NULL,
  preview_key TEXT,
  width INTEGER,
  height INTEGER,
  created_at TEXT NOT NULL
);
CREATE TABLE attachments (
  id INTEGER PRIMARY KEY,
  signed_id TEXT NOT NULL UNIQUE,
  blob_id INTEGER NOT NULL REFERENCES blobs(id),
  filename TEXT NOT NULL,
  uploader_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  record_type TEXT,
  record_id INTEGER,
  position INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  attached_at TEXT
);
CREATE INDEX attachments_record ON attachments(record_type, record_id, position);
CREATE INDEX attachments_blob ON attachments(blob_id);
CREATE INDEX attachments_unattached ON attachments(created_at) WHERE record_id IS NULL;
`
