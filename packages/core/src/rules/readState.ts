/**
 * What a person has read of a thread, decided here once (decisions §13, Loomio's reader: `app/extras/range_set.rb`,
 * `discussion_reader.rb`). Read items are ranges of sequence ids, written as Loomio writes them ("1-5,7-9"); a
 * thread's items are 1…its last sequence id (0 is the thread's own item, never counted), less those deleted.
 */
import type { Topic, TopicReader } from "../domain/records.js"

/** Inclusive [first, last] pairs, sorted and apart (normalised). */
export type Ranges = ReadonlyArray<readonly [number, number]>

/** Sorted, overlapping and touching ranges joined; nonsense (reversed, below 1) left out. */
export const normaliseRanges = (ranges: Iterable<readonly [number, number]>): Ranges => {
  const sorted = [...ranges].filter(([a, b]) => Number.isSafeInteger(a) && Number.isSafeInteger(b) && a >= 1 && b >= a).sort((x, y) => x[0] - y[0])
  const out: Array<[number, number]> = []
  for (const [a, b] of sorted) {
    const last = out.at(-1)
    if (last !== undefined && a <= last[1] + 1) last[1] = Math.max(last[1], b)
    else out.push([a, b])
  }
  return out
}

/** Loomio's text ("1-5,7-9,12"); pieces that are not ranges are left out (a reader's text is ours, or an import's). */
export const parseRanges = (text: string | null | undefined): Ranges => {
  if (text == null || text === "") return []
  const pairs: Array<[number, number]> = []
  for (const piece of text.split(",")) {
    const m = /^\s*(\d{1,15})(?:-(\d{1,15}))?\s*$/.exec(piece)
    if (m !== null) pairs.push([Number(m[1]), Number(m[2] ?? m[1])])
  }
  return normaliseRanges(pairs)
}

/** What is wrong with ranges a client sends (null: nothing): Loomio's text, digits and dashes separated by commas. */
export const rangesErrors = (text: string): string | null =>
  text.trim() === "" || /^\s*\d{1,15}(-\d{1,15})?\s*(,\s*\d{1,15}(-\d{1,15})?\s*)*$/.test(text) ? null : "must be ranges of sequence ids, like 1-5,9-9"

export const formatRanges = (ranges: Ranges): string => ranges.map(([a, b]) => (a === b ? `${a}` : `${a}-${b}`)).join(",")

export const mergeRanges = (a: Ranges, b: Iterable<readonly [number, number]>): Ranges => normaliseRanges([...a, ...b])

/** The ranges of a set of sequence ids (the thread's own item, 0, left out). */
export const rangesOf = (sequenceIds: Iterable<number>): Ranges => normaliseRanges([...sequenceIds].map((s) => [s, s] as const))

const lengthOf = (ranges: Ranges) => ranges.reduce((n, [a, b]) => n + b - a + 1, 0)

/** The read state of one person in one thread, as lists, pages and records show it. */
export interface ReadState {
  /** never read: the thread opens at its start */
  readonly neverRead: boolean
  /** items not read yet (Loomio's `itemsCount − length(readRanges)`: an item deleted after it was read is not counted twice) */
  readonly unread: number
  /** whether a list shows the thread as new: not read, or something unread, unless dismissed since its last activity */
  readonly isNew: boolean
  /** the first sequence id not read (undefined: nothing unread, or never read) */
  readonly firstUnread: number | undefined
}

/** `items_count` counts the thread's own item too. */
export const readStateOf = (topic: Pick<Topic, "items_count" | "last_activity_at">, reader: Pick<TopicReader, "last_read_at" | "read_ranges" | "dismissed_at"> | undefined): ReadState => {
  const items = Math.max(topic.items_count - 1, 0)
  if (reader === undefined || reader.last_read_at === null) {
    const dismissed = reader?.dismissed_at != null && reader.dismissed_at >= topic.last_activity_at
    return { neverRead: true, unread: items, isNew: !dismissed, firstUnread: undefined }
  }
  const ranges = parseRanges(reader.read_ranges)
  const unread = Math.max(items - lengthOf(ranges), 0)
  let first: number | undefined = 1
  for (const [a, b] of ranges) {
    if (a > first) break
    first = b + 1
  }
  const dismissed = reader.dismissed_at !== null && reader.dismissed_at >= topic.last_activity_at
  // the first gap: an item not read, or one deleted (the page then opens at the next item there is)
  return { neverRead: false, unread, isNew: unread > 0 && !dismissed, firstUnread: unread > 0 ? first : undefined }
}

/** The reader's ranges with `seen` added: undefined when nothing changes and the thread was read before (no write needed). */
export const rangesAfterReading = (reader: Pick<TopicReader, "last_read_at" | "read_ranges"> | undefined, seen: Ranges): string | undefined => {
  const before = reader?.read_ranges ?? ""
  const after = formatRanges(mergeRanges(parseRanges(before), seen))
  return after === before && reader?.last_read_at != null ? undefined : after
}
