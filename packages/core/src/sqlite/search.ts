import type { Id, Page, TopicScope } from "../domain/records.js"
import type { SearchHit, SearchOrder } from "../domain/search.js"
import type { SearchFilter, SearchMatch, SearchRepo } from "../ports/search.js"
import { matchExpression, trigramExpression } from "../rules/search.js"
import type { Stmt } from "./db.js"
import type { Offloader } from "./offload.js"
import { bool } from "./rows.js"
import { params as scopeParams, where as scopeWhere } from "./topics.js"

/** Words of context around the matches in a highlight. */
const SNIPPET_TOKENS = 32
/** Characters of text shown without a query. */
const EXCERPT_CHARS = 400

/**
 * One statement per shape of request (which filters are present, with or without a query, the order), so each
 * variant is prepared once; values are bound. Thread visibility is the topic scope of `rules/topics.ts`
 * (`sqlite/topics.ts` `where`), the same as every list.
 */
const findSql = (withMatch: boolean, filter: SearchFilter, order: SearchOrder) => {
  const clauses: Array<string> = []
  if (withMatch) clauses.push("search_fts MATCH @match")
  if (filter.types.length > 0) clauses.push("sd.searchable_type IN (SELECT value FROM json_each(@types))")
  if (filter.groupIds !== undefined) clauses.push("t.group_id IN (SELECT value FROM json_each(@group_ids))")
  if (filter.direct === true) clauses.push("t.group_id IS NULL")
  if (filter.tag !== undefined) clauses.push("EXISTS (SELECT 1 FROM json_each(t.tags) WHERE value = @tag)")
  if (filter.authorId !== undefined) clauses.push("sd.author_id = @author_id")
  if (filter.excludeIds !== undefined) clauses.push("sd.id NOT IN (SELECT value FROM json_each(@exclude))")
  // votes and outcomes of a deleted poll are gone with it
  clauses.push("(sd.poll_id IS NULL OR p.discarded_at IS NULL)")
  const excerpt = withMatch
    // the marks are rules/search.ts MARK_START and MARK_END
    ? `snippet(search_fts, 0, char(2), char(3), '…', ${SNIPPET_TOKENS})`
    : `substr(sd.content, 1, ${EXCERPT_CHARS})`
  const orderBy = order === "authored_at_desc"
    ? "sd.authored_at DESC, sd.id DESC"
    : order === "authored_at_asc"
    ? "sd.authored_at ASC, sd.id ASC"
    : withMatch
    ? "search_fts.rank, sd.id DESC"
    : "sd.authored_at DESC, sd.id DESC"
  return `SELECT sd.id, sd.searchable_type, sd.searchable_id, sd.topic_id, t.group_id, t.tags, sd.author_id, sd.authored_at,
      ${excerpt} AS excerpt,
      d.id AS discussion_id, d.key AS discussion_key, d.title AS discussion_title,
      p.id AS poll_id, p.key AS poll_key, p.title AS poll_title, p.hide_results AS poll_hide_results, p.closed_at AS poll_closed_at,
      CASE WHEN sd.searchable_type = 'Stance' THEN EXISTS (
        SELECT 1 FROM stances ms WHERE ms.poll_id = sd.poll_id AND ms.participant_id = @caller AND ms.latest = 1
          AND ms.revoked_at IS NULL AND ms.cast_at IS NOT NULL) ELSE 0 END AS caller_has_voted
    FROM ${withMatch ? "search_fts JOIN search_documents sd ON sd.id = search_fts.rowid" : "search_documents sd"}
    JOIN (SELECT t.id, t.group_id, t.tags ${scopeWhere({})}) t ON t.id = sd.topic_id
    LEFT JOIN discussions d ON d.topic_id = sd.topic_id
    LEFT JOIN polls p ON p.id = sd.poll_id
    WHERE ${clauses.join(" AND ")}
    ORDER BY ${orderBy}
    LIMIT @limit OFFSET @offset`
}

const toHit = (row: Record<string, unknown>): SearchHit => ({
  ...(row as unknown as SearchHit),
  tags: JSON.parse(String(row.tags)) as Array<string>,
  excerpt: String(row.excerpt ?? ""),
  caller_has_voted: bool(row.caller_has_voted)
})

const bindings = (scope: TopicScope, callerId: Id, match: string | null, filter: SearchFilter) => ({
  ...scopeParams(scope, {}),
  caller: callerId,
  ...(match === null ? {} : { match }),
  ...(filter.types.length > 0 ? { types: JSON.stringify(filter.types) } : {}),
  ...(filter.groupIds === undefined ? {} : { group_ids: JSON.stringify(filter.groupIds) }),
  ...(filter.tag === undefined ? {} : { tag: filter.tag }),
  ...(filter.authorId === undefined ? {} : { author_id: filter.authorId }),
  ...(filter.excludeIds === undefined ? {} : { exclude: JSON.stringify(filter.excludeIds) })
})

/** The search queries as plain functions of a statement cache, runnable on a reader thread (sqlite/offload.ts). */
export const SEARCH_QUERIES = {
  find: (s: Stmt, scope: TopicScope, callerId: Id, match: SearchMatch | null, filter: SearchFilter, order: SearchOrder, page: Page) =>
    (s(findSql(match !== null, filter, order)).all({
      ...bindings(scope, callerId, match === null ? null : matchExpression(match.terms, match.alternatives), filter),
      limit: page.limit,
      offset: page.offset
    }) as Array<Record<string, unknown>>).map(toHit),
  similarWords: (s: Stmt, word: string, min: number, max: number, limit: number) =>
    s(`SELECT w.word FROM search_trigrams JOIN search_words w ON w.id = search_trigrams.rowid
       WHERE search_trigrams MATCH @match AND length(w.word) BETWEEN @min AND @max
       ORDER BY search_trigrams.rank LIMIT @limit`)
      .pluck()
      .all({ match: trigramExpression(word), min, max, limit }) as Array<string>
}

/** A search over many threads: it runs on a reader thread, never holding the event loop. */
export const makeSearchRepo = (offloader: Offloader): SearchRepo => offloader.repo("search", SEARCH_QUERIES)
