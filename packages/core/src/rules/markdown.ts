/** Markdown as HTML for messages (webhook Matrix bodies, mail): raw HTML in the source is escaped, links made live. */
import type MarkdownIt from "markdown-it"
import { onFirstUse } from "./lazy.js"

const md = onFirstUse<typeof MarkdownIt, MarkdownIt>("markdown-it", (M) => new M({ html: false, linkify: true }))

export const markdownToHtml = (text: string): string => md().render(text).trim()
