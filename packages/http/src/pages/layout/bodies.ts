/** Stored bodies (descriptions, comments, details, outcomes) as a page shows them. */
import { Rules } from "@convene/core"

// rendering markdown was 40% of a 50-comment thread page's CPU (measured); a body renders the same every time, so
// the last few thousand renderings are kept, by their text
const RENDERED_MAX = 4000
const rendered = new Map<string, string>()
const markdownHtml = (text: string): string => {
  let html = rendered.get(text)
  if (html === undefined) {
    html = Rules.markdownToHtml(text)
    if (rendered.size >= RENDERED_MAX) rendered.delete(rendered.keys().next().value!)
    rendered.set(text, html)
  }
  return html
}

/** A stored body as HTML: html was sanitised when stored; markdown is rendered with raw HTML escaped. */
export const bodyHtml = (text: string | null, format: "md" | "html"): string =>
  text === null || text === "" ? "" : format === "html" ? text : markdownHtml(text)
