/**
 * Markdown as HTML for pages and messages: raw HTML in the source is escaped; a link is live only where its
 * author wrote one (`[text](url)` or `<url>`), never a bare address in text (linkify off), so a plain-text field
 * escaped by `plainMarkdown` never becomes a link. Mail shows no images at all: it never loads a remote one.
 */
import type MarkdownIt from "markdown-it"
import { onFirstUse } from "../lazy.js"

const md = onFirstUse<typeof MarkdownIt, MarkdownIt>("markdown-it", (M) => new M({ html: false, linkify: false }))
const mailMd = onFirstUse<typeof MarkdownIt, MarkdownIt>("markdown-it", (M) => new M({ html: false, linkify: false }).disable("image"))

export const markdownToHtml = (text: string): string => md().render(text).trim()

/** Markdown of a mail body as HTML: as `markdownToHtml`, with any image shown as its text. */
export const mailMarkdownToHtml = (text: string): string => mailMd().render(text).trim()

/**
 * A plain-text field (a title, a name) placed in a markdown document: the characters that would make it a link,
 * an image, emphasis, code, a table cell or HTML are escaped, so it reads as it was written.
 */
export const plainMarkdown = (text: string): string => text.replace(/[\\`*_{}[\]()<>!|~#]/g, (c) => `\\${c}`)

const ESCAPES: Readonly<Record<string, string>> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;" }

/** Plain text placed in HTML (mail, search highlights, pages): the five characters that could be markup, escaped. */
export const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => ESCAPES[c]!)
