/** A group's tags (decisions §12): what a tag's name and colour must be, and what a thread's list of names becomes. */
import { plainLineErrors } from "./values.js"

const TAG_NAME_MAX = 50
/** At most this many tags on one thread. */
export const TAGS_PER_THREAD = 20

/** Why a tag's name cannot be, or null: one line, 1–50 characters, no comma (a thread's tags are typed comma-separated). */
export const tagNameErrors = (name: string): string | null =>
  plainLineErrors(name, true) ??
    ([...name.trim()].length > TAG_NAME_MAX ? `is too long (at most ${TAG_NAME_MAX} characters)` : name.includes(",") ? "must not contain a comma" : null)

/** Why a colour cannot be a tag's, or null: `#rrggbb`. */
export const tagColorErrors = (color: string): string | null => (/^#[0-9a-fA-F]{6}$/.test(color) ? null : "must be #rrggbb")

/** The colours a tag gets when none is chosen (Loomio picks from a palette too), each dark enough for white text. */
export const TAG_PALETTE = ["#1f5f8b", "#7a3e9d", "#2e7d32", "#b04a00", "#8b1e3f", "#00695c", "#5d4037", "#37474f"] as const

/** A new tag's colour: the palette's next one after the group's `count` tags. */
export const paletteColor = (count: number): string => TAG_PALETTE[count % TAG_PALETTE.length]!

/** A thread's tag names as typed (comma-separated) or sent: trimmed, blank ones dropped, the same name (any case) once. */
export const tagNamesFrom = (names: ReadonlyArray<string>): ReadonlyArray<string> => {
  const seen = new Set<string>()
  const out: Array<string> = []
  for (const raw of names.flatMap((n) => n.split(","))) {
    const name = raw.trim()
    if (name === "" || seen.has(name.toLowerCase())) continue
    seen.add(name.toLowerCase())
    out.push(name)
  }
  return out
}

/** Why a thread's tags cannot be, or null. */
export const threadTagsErrors = (names: ReadonlyArray<string>): string | null =>
  names.length > TAGS_PER_THREAD ? `are too many (at most ${TAGS_PER_THREAD})` : names.map(tagNameErrors).find((e) => e !== null) ?? null
