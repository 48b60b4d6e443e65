import { Schema } from "effect"
import { Id as IdField, model, NullId, NullText, Stamp } from "./model.js"
import type { HideResults } from "./polls.js"
import type { Id } from "./records.js"

/** What search finds (spec: Search result). */
export const SEARCHABLE_TYPES = ["Discussion", "Comment", "Poll", "Stance", "Outcome"] as const
export type SearchableType = (typeof SEARCHABLE_TYPES)[number]

/** `relevance` (default), or by authoring time (Loomio's `order=authored_at_desc`, and `_asc`). */
export const SEARCH_ORDERS = ["relevance", "authored_at_desc", "authored_at_asc"] as const
export type SearchOrder = (typeof SEARCH_ORDERS)[number]

/** At most this many results, as Loomio's `SearchQuery::RESULT_LIMIT`; there is no paging and no total. */
export const SEARCH_RESULT_LIMIT = 20

/**
 * A document the store found, with what its result row and the visibility rules need. `excerpt` is the
 * matched part of the text with each matched word between `\u0002` and `\u0003` (or, without a query, the
 * start of the text).
 */
export interface SearchHit {
  readonly id: Id
  readonly searchable_type: SearchableType
  readonly searchable_id: Id
  readonly topic_id: Id
  readonly group_id: Id | null
  readonly tags: ReadonlyArray<string>
  readonly author_id: Id | null
  readonly authored_at: string
  readonly excerpt: string
  readonly discussion_id: Id | null
  readonly discussion_key: string | null
  readonly discussion_title: string | null
  readonly poll_id: Id | null
  readonly poll_key: string | null
  readonly poll_title: string | null
  /** for votes: whether the caller may see them now is `resultsVisible(hide_results, closed, caller has voted)` */
  readonly poll_hide_results: HideResults | null
  readonly poll_closed_at: string | null
  readonly caller_has_voted: boolean
}

/** One element of `search_results` (spec fields plus Loomio's extra ones). A field that does not apply is null. */
export const SearchResult = model("SearchResult", {
  id: IdField,
  searchable_type: Schema.Literal(...SEARCHABLE_TYPES),
  searchable_id: IdField,
  /** HTML: the text escaped, matched words in `<b>` */
  highlight: Schema.String,
  topic_id: IdField,
  group_id: NullId,
  group_name: NullText,
  group_key: NullText,
  group_handle: NullText,
  discussion_id: NullId,
  discussion_key: NullText,
  discussion_title: NullText,
  poll_id: NullId,
  poll_key: NullText,
  poll_title: NullText,
  author_id: NullId,
  author_name: NullText,
  authored_at: Stamp,
  tags: Schema.Array(Schema.String)
})
export type SearchResult = typeof SearchResult.Type
