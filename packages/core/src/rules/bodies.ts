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
