import type { Effect } from "effect"
import type { Id, Page, TopicScope } from "../domain/records.js"
import type { SearchableType, SearchHit, SearchOrder } from "../domain/search.js"

/** Narrows what search looks at; every field is optional (absent: no restriction). */
export interface SearchFilter {
  /** empty: every type */
  readonly types: ReadonlyArray<SearchableType>
  /** only threads of these groups */
  readonly groupIds?: ReadonlyArray<Id>
  /** only threads without a group (Loomio `org_id=0`) */
  readonly direct?: boolean
  /** only threads carrying this tag */
  readonly tag?: string
  readonly authorId?: Id
  /** documents already found (the fuzzy pass skips them) */
  readonly excludeIds?: ReadonlyArray<Id>
}

/**
 * What a search matches: every term (AND), a term of three or more characters also as a prefix ("budg" finds
 * "budget"), or any of its alternatives (the fuzzy pass's words a typo away). Each adapter writes it in its
 * own engine's language.
 */
export interface SearchMatch {
  readonly terms: ReadonlyArray<string>
  readonly alternatives: ReadonlyMap<string, ReadonlyArray<string>>
}

export interface SearchRepo {
  /**
   * Documents in threads of `scope` that match `match` (null: every document, newest first),
   * best match first unless `order` says otherwise. `callerId` decides `caller_has_voted`.
   */
  readonly find: (
    scope: TopicScope,
    callerId: Id,
    match: SearchMatch | null,
    filter: SearchFilter,
    order: SearchOrder,
    page: Page
  ) => Effect.Effect<ReadonlyArray<SearchHit>>
  /**
   * Words of the vocabulary that share trigrams (pg_trgm's, padded) with `word` (folded as the index folds
   * words), of a length within [min, max], most shared first, at most `limit`.
   */
  readonly similarWords: (word: string, min: number, max: number, limit: number) => Effect.Effect<ReadonlyArray<string>>
}
