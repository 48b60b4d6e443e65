/**
 * Search (Loomio's SearchQuery and search controllers): an exact pass over the word index, then, when it
 * found fewer than the limit, a fuzzy pass with the vocabulary words a typo away. What a caller may find is
 * what they may read: threads in their topic scope (public threads of public groups without membership,
 * private ones only with access), and votes only where the caller may see the poll's results now.
 * Votes of anonymous polls are never indexed.
 */
import { Effect } from "effect"
import type { Group, Id, TopicScope, User } from "../domain/records.js"
import {
  SEARCH_ORDERS,
  SEARCH_RESULT_LIMIT,
  type SearchableType,
  SEARCHABLE_TYPES,
  type SearchHit,
  type SearchOrder,
  type SearchResult
} from "../domain/search.js"
import { badRequest, type BadRequest } from "../errors.js"
import type { SearchFilter, SearchMatch } from "../ports/search.js"
import { Store } from "../ports/store.js"
import type { Access } from "../rules/access.js"
import { fullName } from "../rules/groups.js"
import { resultsVisible } from "../rules/pollTypes.js"
import {
  foldTerm,
  fuzzyAlternatives,
  fuzzyEligible,
  fuzzyLengths,
  highlightHtml,
  MAX_FUZZY_TERMS,
  plainExcerpt,
  searchTerms
} from "../rules/search.js"
import { topicScope } from "../rules/topics.js"
import { displayName } from "../rules/users.js"
import { type GroupView, viewGroups } from "./groups.js"
import { candidateGroups } from "./threads/kernel.js"
import { isOneOf } from "../rules/values.js"

export interface SearchInput {
  /** text; always matched as text (exact words, prefixes, and words a typo away) */
  readonly query?: string | undefined
  /** one group */
  readonly group_id?: Id | undefined
  /** a parent group and its subgroups; 0: threads without a group */
  readonly org_id?: Id | undefined
  /** searchable type names (`type` and `types` together) */
  readonly types?: ReadonlyArray<string> | undefined
  readonly tag?: string | undefined
  readonly author_id?: Id | undefined
  readonly order?: string | undefined
}

export interface SearchResults {
  readonly results: ReadonlyArray<SearchResult>
  /** groups of the results, for side-loading (only when asked for) */
  readonly groups: ReadonlyArray<GroupView>
  /** authors of the results */
  readonly users: ReadonlyArray<User>
}

/** Rows fetched per round while votes hidden from the caller are skipped, and the most rows looked at. */
const CHUNK = 50
const MAX_SCANNED = 1_000
/** Vocabulary candidates weighed per mistyped word. */
const WORD_CANDIDATES = 200

/** A vote is found only where the caller may see the poll's results now (`resultsVisible`, as `canSeeResults`). */
const visibleHit = (h: SearchHit): boolean =>
  h.searchable_type !== "Stance" ||
  (h.poll_hide_results !== null && resultsVisible(h.poll_hide_results, h.poll_closed_at !== null, h.caller_has_voted))

/** Up to `want` visible hits of one pass, reading the store in chunks past hidden votes. */
const collect = Effect.fnUntraced(function*(scope: TopicScope, callerId: Id, match: SearchMatch | null, filter: SearchFilter, order: SearchOrder, want: number) {
  const store = yield* Store
  const found: Array<SearchHit> = []
  // the first round asks for exactly what is wanted (each row costs a snippet); hidden votes are rare
  for (let offset = 0, limit = want; found.length < want && offset < MAX_SCANNED; offset += limit, limit = CHUNK) {
    const rows = yield* store.search.find(scope, callerId, match, filter, order, { limit, offset })
    for (const h of rows) if (visibleHit(h) && found.length < want) found.push(h)
    if (rows.length < limit) break
  }
  return found
})

/** Each fuzzy-eligible term's alternatives from the vocabulary. */
const alternativesOf = Effect.fnUntraced(function*(terms: ReadonlyArray<string>) {
  const store = yield* Store
  const out = new Map<string, ReadonlyArray<string>>()
  for (const term of new Set(terms)) {
    if (!fuzzyEligible(term)) continue
    // the vocabulary holds words as FTS5's unicode61 tokenizer folds them
    const folded = foldTerm(term)
    const { max, min } = fuzzyLengths(folded)
    const words = yield* store.search.similarWords(folded, min, max, WORD_CANDIDATES)
    const alts = fuzzyAlternatives(folded, words)
    if (alts.length > 0) out.set(term, alts)
  }
  return out
})


/** Which groups' threads: one group, an organisation (the group and its subgroups), or threads with no group. */
const groupFilter = Effect.fnUntraced(function*(input: SearchInput): Effect.fn.Return<Pick<SearchFilter, "groupIds" | "direct">, never, Store> {
  const store = yield* Store
  if (input.org_id === 0) return input.group_id === undefined ? { direct: true } : { groupIds: [] }
  let ids: Array<Id> | undefined
  if (input.org_id !== undefined) ids = [input.org_id, ...(yield* store.groups.children([input.org_id])).map((g) => g.id)]
  if (input.group_id !== undefined) ids = ids === undefined || ids.includes(input.group_id) ? [input.group_id] : []
  return ids === undefined ? {} : { groupIds: ids }
})

const byAuthoredAt = (order: SearchOrder) => (a: SearchHit, b: SearchHit) =>
  order === "authored_at_asc"
    ? (a.authored_at < b.authored_at ? -1 : a.authored_at > b.authored_at ? 1 : a.id - b.id)
    : (a.authored_at < b.authored_at ? 1 : a.authored_at > b.authored_at ? -1 : b.id - a.id)

/** GET /search: at most 20 results, no total. Unknown `type`/`types` or `order` → 400 naming it. */
export const search = Effect.fnUntraced(function*(
  access: Access,
  input: SearchInput,
  want: { groups: boolean } = { groups: true }
): Effect.fn.Return<SearchResults, BadRequest, Store> {
  const store = yield* Store
  const types = [...new Set(input.types ?? [])]
  const unknown = types.find((t) => !isOneOf(SEARCHABLE_TYPES, t))
  if (unknown !== undefined) return yield* badRequest(`type must be one of ${SEARCHABLE_TYPES.join(", ")} (got ${JSON.stringify(unknown)})`)
  const order = input.order === undefined || input.order === "" ? "relevance" : input.order
  if (!isOneOf(SEARCH_ORDERS, order)) return yield* badRequest(`order must be ${SEARCH_ORDERS.filter((o) => o !== "relevance").join(" or ")}`)

  const scope = topicScope(access, yield* candidateGroups(access))
  const filter: SearchFilter = {
    types: types as Array<SearchableType>,
    ...(yield* groupFilter(input)),
    ...(input.tag === undefined || input.tag === "" ? {} : { tag: input.tag }),
    ...(input.author_id === undefined ? {} : { authorId: input.author_id })
  }
  if (filter.groupIds !== undefined && filter.groupIds.length === 0) return { results: [], groups: [], users: [] }

  const hasQuery = input.query !== undefined && input.query.trim() !== ""
  const terms = hasQuery ? searchTerms(input.query!) : []
  let hits: Array<SearchHit>
  if (!hasQuery) {
    // without a query: recent visible activity (of `author_id`, or matching the other filters)
    hits = yield* collect(scope, access.user.id, null, filter, order === "authored_at_asc" ? order : "authored_at_desc", SEARCH_RESULT_LIMIT)
  } else if (terms.length === 0) {
    // nothing but punctuation: nothing to match
    hits = []
  } else {
    hits = yield* collect(scope, access.user.id, { terms, alternatives: new Map() }, filter, order, SEARCH_RESULT_LIMIT)
    if (hits.length < SEARCH_RESULT_LIMIT && terms.length <= MAX_FUZZY_TERMS) {
      const alternatives = yield* alternativesOf(terms)
      if (alternatives.size > 0) {
        const more = yield* collect(
          scope,
          access.user.id,
          { terms, alternatives },
          { ...filter, excludeIds: hits.map((h) => h.id) },
          order,
          SEARCH_RESULT_LIMIT - hits.length
        )
        hits = [...hits, ...more]
        if (order !== "relevance") hits.sort(byAuthoredAt(order))
      }
    }
  }

  const groupIds = [...new Set(hits.flatMap((h) => (h.group_id === null ? [] : [h.group_id])))]
  const groups = yield* store.groups.byIds(groupIds)
  const known = new Map<Id, Group>(groups.map((g) => [g.id, g]))
  const parentIds = [...new Set(groups.flatMap((g) => (g.parent_id !== null && !known.has(g.parent_id) ? [g.parent_id] : [])))]
  for (const p of yield* store.groups.byIds(parentIds)) known.set(p.id, p)
  const users = yield* store.users.byIds([...new Set(hits.flatMap((h) => (h.author_id === null ? [] : [h.author_id])))])
  const names = new Map(users.map((u) => [u.id, displayName(u)]))

  const results = hits.map((h): SearchResult => {
    const g = h.group_id === null ? undefined : known.get(h.group_id)
    return {
      id: h.id,
      searchable_type: h.searchable_type,
      searchable_id: h.searchable_id,
      highlight: highlightHtml(hasQuery ? h.excerpt : plainExcerpt(h.excerpt)),
      topic_id: h.topic_id,
      group_id: h.group_id,
      group_name: g === undefined ? null : fullName(g, g.parent_id === null ? undefined : known.get(g.parent_id)),
      group_key: g?.key ?? null,
      group_handle: g?.handle ?? null,
      discussion_id: h.discussion_id,
      discussion_key: h.discussion_key,
      discussion_title: h.discussion_title,
      poll_id: h.poll_id,
      poll_key: h.poll_key,
      poll_title: h.poll_title,
      author_id: h.author_id,
      author_name: h.author_id === null ? null : names.get(h.author_id) ?? null,
      authored_at: h.authored_at,
      tags: h.tags
    }
  })
  return { results, groups: want.groups ? yield* viewGroups(groups) : [], users }
})
