/** Stored bodies (descriptions, comments, details, outcomes) as a page shows them. */
import { Rules } from "@convene/core"

// rendering markdown was 40% of a 50-comment thread page's CPU (measured); a body renders the same every time, so
// the latest renderings are kept, by their text, up to a size (decisions §5: bounded in bytes, not entries): a few
// bodies of a megabyte cannot hold the memory thousands of short ones would, and one larger than a sixteenth of it
// is rendered each time instead of pushing out everything else
const RENDERED_MAX_CHARS = 16 * 1024 * 1024
const ENTRY_MAX_CHARS = RENDERED_MAX_CHARS / 16
const rendered = new Map<string, string>()
let renderedChars = 0
const markdownHtml = (text: string): string => {
  let html = rendered.get(text)
  if (html === undefined) {
    html = Rules.markdownToHtml(text)
    const size = text.length + html.length
    if (size > ENTRY_MAX_CHARS) return html
    while (renderedChars + size > RENDERED_MAX_CHARS) {
      const [oldest, oldestHtml] = rendered.entries().next().value!
      rendered.delete(oldest)
      renderedChars -= oldest.length + oldestHtml.length
    }
    rendered.set(text, html)
    renderedChars += size
  }
  return html
}

/** What the rendered bodies kept hold, in characters (their text and their HTML): for the tests of the bound. */
export const renderedSize = () => ({ entries: rendered.size, chars: renderedChars, maxChars: RENDERED_MAX_CHARS })

/** A stored body as HTML: html was sanitised when stored; markdown is rendered with raw HTML escaped. */
export const bodyHtml = (text: string | null, format: "md" | "html"): string =>
  text === null || text === "" ? "" : format === "html" ? text : markdownHtml(text)
