/**
 * Decisions §5: caches of rendered bodies are bounded in bytes, not entries. The pages' markdown cache keeps what it
 * renders up to a size: forty bodies of a megabyte do not grow it past its bound, a body too large for it is
 * rendered each time, and small bodies are kept.
 */
import t from "tap"
import { bodyHtml, renderedSize } from "../packages/http/src/pages/layout/bodies.js"

t.test("the rendered-body cache is bounded by size", async (t) => {
  const { maxChars } = renderedSize()
  const small = Array.from({ length: 50 }, (_, i) => `comment **${i}**`)
  for (const [i, text] of small.entries()) t.match(bodyHtml(text, "md"), new RegExp(`^<p>comment <strong>${i}</strong></p>`))
  t.equal(renderedSize().entries, 50, "small bodies are kept")

  // forty bodies of 1 MB (the largest a body may be): together 80 MB of text and HTML, five times the bound
  for (let i = 0; i < 40; i++) t.match(bodyHtml(`${i} ${"word ".repeat(200_000)}`, "md"), new RegExp(`^<p>${i} word`))
  t.ok(renderedSize().chars <= maxChars, `at most ${maxChars} characters held (${renderedSize().chars})`)
  t.ok(renderedSize().entries >= 50, "the small ones are still there: a body too large for the cache is not kept")

  // bodies that fit push out the oldest until they do
  for (let i = 0; i < 40; i++) bodyHtml(`${i} ${"x".repeat(400_000)}`, "md")
  t.ok(renderedSize().chars <= maxChars, "still within the bound")
  t.ok(renderedSize().entries < 90, "older entries went")
})
