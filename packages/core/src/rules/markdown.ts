/** Markdown as HTML for messages (webhook Matrix bodies, mail): raw HTML in the source is escaped, links made live. */
import MarkdownIt from "markdown-it"

const md = new MarkdownIt({ html: false, linkify: true })

export const markdownToHtml = (text: string): string => md.render(text).trim()
