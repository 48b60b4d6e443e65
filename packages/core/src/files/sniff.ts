/**
 * A file's type, from its first bytes (decisions §14: never the sender's word): `file-type` knows the binary
 * formats by their signatures; text it cannot know, so markup that a browser would run (HTML, SVG, XML) is
 * recognised here as the WHATWG MIME sniffing rules do, and other UTF-8 text is text/plain.
 */
import { fileTypeFromBuffer } from "file-type"

const HTML = /^\s*<(?:!doctype\s+html|html|head|script|iframe|h1|div|font|table|a|style|title|b|body|br|p|!--)[\s>]/i
const SVG = /^\s*(?:<\?xml[^>]*>\s*)?(?:<!--[\s\S]*?-->\s*)*(?:<!doctype\s+svg[^>]*>\s*)?<svg[\s>]/i
const XML = /^\s*<\?xml/i

const isText = (bytes: Uint8Array): boolean => {
  if (bytes.includes(0)) return false
  try {
    // a multi-byte character cut at the end of the head is still text
    new TextDecoder("utf-8", { fatal: true }).decode(bytes.subarray(0, Math.max(0, bytes.length - 3)))
    return true
  } catch {
    return false
  }
}

export const sniffContentType = async (head: Uint8Array): Promise<string> => {
  const found = await fileTypeFromBuffer(head)
  if (found !== undefined) return found.mime === "application/xml" && SVG.test(new TextDecoder().decode(head)) ? "image/svg+xml" : found.mime
  if (!isText(head)) return "application/octet-stream"
  const text = new TextDecoder().decode(head.subarray(0, 1024)).replace(/^\uFEFF/, "")
  if (SVG.test(text)) return "image/svg+xml"
  if (HTML.test(text)) return "text/html"
  if (XML.test(text)) return "application/xml"
  return "text/plain"
}
