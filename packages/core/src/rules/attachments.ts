/**
 * Files (decisions §14): what a file's name may be, which types a browser may show inline, and a file's icon
 * (Loomio's doctypes). Pure: the bytes are the file store's, the rows the Store's.
 */

/** 25 MiB, Loomio-like; ATTACHMENT_MAX_BYTES changes it. */
export const ATTACHMENT_MAX_BYTES = 25 * 1024 * 1024
/** An upload no record takes within this long is deleted (decisions §14). */
export const UNATTACHED_TTL_MS = 24 * 60 * 60 * 1000

/** What is wrong with a file's name as sent (path separators, control characters, too long), or null. */
export const filenameErrors = (name: string): string | null => {
  if (name.trim() === "") return "can't be blank"
  if (/[/\\]/.test(name)) return "must not contain a path separator"
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name)) return "must not contain control characters"
  if (name === "." || name === "..") return "is not a file name"
  if (Buffer.byteLength(name) > 255) return "is too long (maximum is 255 bytes)"
  return null
}

/** Raster images, shown inline; everything else (SVG and HTML above all) is downloaded, never rendered by the browser. */
const INLINE = new Set(["image/png", "image/jpeg", "image/gif", "image/webp", "image/avif", "image/bmp"])
export const isInline = (contentType: string): boolean => INLINE.has(contentType)

/** Images a preview is made for (sharp reads them). */
export const isPreviewable = (contentType: string): boolean => INLINE.has(contentType) && contentType !== "image/bmp"

/** Loomio's icon for a file (`config/doctypes.yml`), by its sniffed type, else its name. */
export const iconOf = (contentType: string, filename: string): string => {
  const ext = /\.([a-z0-9]+)$/i.exec(filename)?.[1]?.toLowerCase() ?? ""
  if (contentType.startsWith("image/")) return "image"
  if (contentType === "application/pdf") return "file-pdf-box"
  if (contentType.startsWith("audio/")) return "file-music"
  if (contentType.startsWith("video/")) return "file-video"
  if (/^(docx?|odt|rtf)$/.test(ext)) return "file-word-box"
  if (/^(xlsx?|ods|csv)$/.test(ext)) return "file-excel-box"
  if (/^(pptx?|odp|key)$/.test(ext)) return "file-powerpoint-box"
  if (/^(zip|gz|tgz|7z|rar|tar)$/.test(ext) || contentType === "application/zip") return "zip-box"
  if (contentType.startsWith("text/")) return "file-document-box"
  return "file"
}

/** A file's address on this server (the download route answers it; Loomio's `download_url`). */
export const downloadPathOf = (signedId: string, filename: string): string => `/files/${signedId}/${encodeURIComponent(filename)}`
