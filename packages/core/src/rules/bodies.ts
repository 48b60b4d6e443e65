/** Rich-text fields (`md` or `html`): HTML is sanitised with sanitize-html before it is stored. */
import type sanitizeHtml from "sanitize-html"
import { onFirstUse } from "../lazy.js"
import type { BodyFormat } from "../domain/records.js"

const sanitize = onFirstUse<typeof sanitizeHtml, (html: string) => string>("sanitize-html", (sanitizer) => {
  const options = allowing(sanitizer.defaults.allowedTags)
  return (html) => sanitizer(html, options)
})

const allowing = (defaultTags: ReadonlyArray<string>): sanitizeHtml.IOptions => ({
  allowedTags: [...defaultTags, "img", "h1", "h2", "del", "s", "u"],
  allowedAttributes: {
    a: ["href", "title", "target", "rel"],
    img: ["src", "alt", "title", "width", "height"],
    code: ["class"],
    span: ["class"],
    ol: ["start"],
    td: ["colspan", "rowspan"],
    th: ["colspan", "rowspan"]
  },
  allowedSchemes: ["http", "https", "mailto"],
  allowedSchemesByTag: { img: ["http", "https", "data"] }
})

/** Markdown is kept exactly as written; HTML loses scripts, event handlers and unsafe URLs. */
export const cleanBody = (text: string, format: BodyFormat): string => (format === "html" ? sanitize()(text) : text)

/**
 * A body as an update leaves it: the text given, or the stored one, cleaned for the format it is stored as from
 * now on (the format given; markdown for a text given without one; else the stored format). Every update of a
 * body goes through here, so changing only the format re-cleans the stored text (decisions §5): markdown
 * relabelled html is html from then on, and is sanitised as html.
 */
export const changedBody = (
  stored: { readonly text: string; readonly format: BodyFormat },
  given: { readonly text: string | null | undefined; readonly format: BodyFormat | null | undefined }
): { readonly text: string; readonly format: BodyFormat } => {
  const format = given.format ?? (given.text != null ? "md" : stored.format)
  return { text: cleanBody(given.text ?? stored.text, format), format }
}

/** The longest body any way in stores (decisions §5): the API's request limit, so mail and import hold no more than it. */
export const BODY_MAX_BYTES = 1024 * 1024
export const BODY_TOO_LONG = "is too long (at most 1 MiB)"

/** Why a body cannot be stored as it is, or null. */
export const bodyLengthErrors = (text: string | null | undefined): string | null =>
  // a character is at most 3 bytes in UTF-8 per UTF-16 unit: most bodies are decided without counting
  text == null || text.length * 3 <= BODY_MAX_BYTES || Buffer.byteLength(text, "utf8") <= BODY_MAX_BYTES ? null : BODY_TOO_LONG
