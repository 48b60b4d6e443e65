/**
 * Search, pure: turning what a person typed into a full-text expression that is always matched as text
 * (no operator, quote, star, parenthesis or NEAR of the user's ever reaches the engine), fuzzy alternatives
 * for mistyped words (trigram similarity, then an edit-distance check), and the highlight.
 */

import { escapeHtml } from "./markdown.js"

/** Marks around a matched word in an excerpt (control characters: never in stored text, escaped on output). */
export const MARK_START = "\u0002"
export const MARK_END = "\u0003"

/** Loomio runs the fuzzy pass only for short queries. */
export const MAX_FUZZY_TERMS = 8
/** Words shorter than this are not corrected (too many neighbours), as Loomio (4–64 characters). */
export const MIN_FUZZY_LENGTH = 4
export const MAX_FUZZY_LENGTH = 64
/** Alternatives tried per mistyped word. */
export const FUZZY_ALTERNATIVES = 3

const WORDY = /[\p{L}\p{N}]/u
const WORD = /^[\p{L}\p{N}]+$/u

/**
 * The terms of a query: whitespace-separated pieces that contain a letter or digit, lower-cased. Pieces made
 * only of punctuation (`-`, `*`, `(`, `"` …) carry nothing to match and are dropped; control characters (a NUL
 * would end the expression early) separate pieces.
 */
export const searchTerms = (query: string): ReadonlyArray<string> =>
  query.replace(/\p{Cc}/gu, " ").split(/\s+/u).filter((t) => WORDY.test(t)).map((t) => t.toLowerCase())

/** A word as FTS5's `unicode61 remove_diacritics 2` keeps it: lower case, diacritics removed ("Ärger" → "arger"). */
export const foldTerm = (term: string): string => term.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase()

/** One term as an FTS5 string: inside double quotes every character is text (a quote is doubled). */
export const quoteTerm = (term: string): string => `"${term.replace(/"/g, "\"\"")}"`

/**
 * The FTS5 expression: every term must match (AND); a term of three or more characters also matches as a
 * prefix ("budg" finds "budget"), as Loomio's `prefix: true`. Alternatives of a term (fuzzy pass) are ORed.
 */
export const matchExpression = (terms: ReadonlyArray<string>, alternatives: ReadonlyMap<string, ReadonlyArray<string>> = new Map()): string =>
  terms
    .map((term) => {
      const exact = quoteTerm(term) + ([...term].length >= 3 ? "*" : "")
      const alts = alternatives.get(term) ?? []
      return alts.length === 0 ? exact : `(${[exact, ...alts.map(quoteTerm)].join(" OR ")})`
    })
    .join(" AND ")

/** pg_trgm's trigrams: the word padded with two spaces in front and one behind, every 3 characters. */
export const trigramsOf = (word: string): ReadonlyArray<string> => {
  const chars = [..."  " + word.toLowerCase() + " "]
  const out = new Set<string>()
  for (let i = 0; i + 3 <= chars.length; i++) out.add(chars.slice(i, i + 3).join(""))
  return [...out]
}

/** The trigram expression that finds vocabulary words sharing any trigram with `word`. */
export const trigramExpression = (word: string): string => trigramsOf(word).map(quoteTerm).join(" OR ")

/** Shared trigrams over all trigrams (pg_trgm `similarity`), 0..1. */
export const similarity = (a: string, b: string): number => {
  const ta = new Set(trigramsOf(a))
  const tb = new Set(trigramsOf(b))
  let shared = 0
  for (const t of ta) if (tb.has(t)) shared++
  const union = ta.size + tb.size - shared
  return union === 0 ? 0 : shared / union
}

/** Edit distance with adjacent transpositions (optimal string alignment), by code point. */
export const editDistance = (a: string, b: string): number => {
  const s = [...a]
  const t = [...b]
  const d: Array<Array<number>> = Array.from({ length: s.length + 1 }, (_, i) => [i, ...new Array<number>(t.length).fill(0)])
  for (let j = 0; j <= t.length; j++) d[0]![j] = j
  for (let i = 1; i <= s.length; i++) {
    for (let j = 1; j <= t.length; j++) {
      const cost = s[i - 1] === t[j - 1] ? 0 : 1
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost)
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1)
      d[i]![j] = v
    }
  }
  return d[s.length]![t.length]!
}

/** Typos forgiven in a word: one up to 7 characters, two beyond. */
export const maxTypos = (term: string): number => ([...term].length <= 7 ? 1 : 2)

/** Whether a term gets fuzzy alternatives: a plain word of 4 to 64 characters. */
export const fuzzyEligible = (term: string): boolean => {
  const n = [...term].length
  return WORD.test(term) && n >= MIN_FUZZY_LENGTH && n <= MAX_FUZZY_LENGTH
}

/** Lengths of the words that may be a typo away from `term`. */
export const fuzzyLengths = (term: string): { min: number; max: number } => {
  const n = [...term].length
  return { min: Math.max(1, n - maxTypos(term)), max: n + maxTypos(term) }
}

/**
 * The best few vocabulary words for a mistyped term: within `maxTypos` edits, fewest edits first, then most
 * similar. The term itself is not an alternative.
 */
export const fuzzyAlternatives = (term: string, candidates: ReadonlyArray<string>, max = FUZZY_ALTERNATIVES): ReadonlyArray<string> => {
  const limit = maxTypos(term)
  return [...new Set(candidates.map((c) => c.toLowerCase()))]
    .filter((c) => c !== term)
    .map((c) => ({ c, d: editDistance(term, c), s: similarity(term, c) }))
    .filter((x) => x.d <= limit)
    .sort((x, y) => x.d - y.d || y.s - x.s || (x.c < y.c ? -1 : 1))
    .slice(0, max)
    .map((x) => x.c)
}


/** The `highlight` field: the excerpt as HTML, matched words in `<b>`, whitespace collapsed. */
export const highlightHtml = (excerpt: string): string =>
  escapeHtml(excerpt.replace(/\s+/gu, " ").trim())
    .split(MARK_START).join("<b>")
    .split(MARK_END).join("</b>")

/** Without a query: the start of the text, about 240 characters, cut at a word where possible. */
export const plainExcerpt = (text: string, length = 240): string => {
  const flat = text.replace(/\s+/gu, " ").trim()
  if (flat.length <= length) return flat
  const cut = flat.slice(0, length)
  const space = cut.lastIndexOf(" ")
  return (space > length / 2 ? cut.slice(0, space) : cut) + "…"
}
