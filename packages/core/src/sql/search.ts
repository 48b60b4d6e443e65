/**
 * The search statement, the same on both stores but for the full-text engine's words (SQLite's FTS5 table,
 * PostgreSQL's tsvector column) and how lists are read. One statement per shape of request (which filters are
 * present, with or without a query, the order), so each variant is prepared once; values are bound. Thread
 * visibility is the topic scope of `rules/topics.ts`, the same as every list.
 */
import type { Id, TopicFilter, TopicScope } from "../domain/records.js"
import type { SearchHit, SearchOrder } from "../domain/search.js"
import type { SearchFilter } from "../ports/search.js"
import { bool, json } from "./rows.js"
import { type IdList, scopeParams, scopeWhere } from "./scope.js"

/** Words of context around the matches in a highlight. */
export const SNIPPET_WORDS = 32
/** Characters of text shown without a query. */
export const EXCERPT_CHARS = 400

export interface SearchDialect {
  readonly lists: IdList
  /** the documents and, with a query, what matches them (`sd` is search_documents) */
  readonly from: (withMatch: boolean) => string
  /** the condition that a document matches `@match` */
  readonly matches: string
  /** the excerpt around the matched words, marked with rules/search.ts MARK_START and MARK_END */
  readonly snippet: string
  /** best match first */
  readonly relevance: string
  /** the condition that the thread `t` carries `@tag` */
  readonly tagged: string
  readonly no: string
}

export const searchSql = (d: SearchDialect) => (withMatch: boolean, filter: SearchFilter, order: SearchOrder) => {
  const clauses: Array<string> = []
  if (withMatch) clauses.push(d.matches)
  if (filter.types.length > 0) clauses.push(d.lists.has("sd.searchable_type", "types", "text"))
  if (filter.groupIds !== undefined) clauses.push(d.lists.has("t.group_id", "group_ids"))
  if (filter.direct === true) clauses.push("t.group_id IS NULL")
  if (filter.tag !== undefined) clauses.push(d.tagged)
  if (filter.authorId !== undefined) clauses.push("sd.author_id = @author_id")
  if (filter.excludeIds !== undefined) clauses.push(`NOT (${d.lists.has("sd.id", "exclude")})`)
  // votes and outcomes of a deleted poll are gone with it
  clauses.push("(sd.poll_id IS NULL OR p.discarded_at IS NULL)")
  const orderBy = order === "authored_at_desc"
    ? "sd.authored_at DESC, sd.id DESC"
    : order === "authored_at_asc"
    ? "sd.authored_at ASC, sd.id ASC"
    : withMatch
    ? `${d.relevance}, sd.id DESC`
    : "sd.authored_at DESC, sd.id DESC"
  return `SELECT sd.id, sd.searchable_type, sd.searchable_id, sd.topic_id, t.group_id, t.tags, sd.author_id, sd.authored_at,
      ${withMatch ? d.snippet : `substr(sd.content, 1, ${EXCERPT_CHARS})`} AS excerpt,
      d.id AS discussion_id, d.key AS discussion_key, d.title AS discussion_title,
      p.id AS poll_id, p.key AS poll_key, p.title AS poll_title, p.hide_results AS poll_hide_results, p.closed_at AS poll_closed_at,
      CASE WHEN sd.searchable_type = 'Stance' THEN EXISTS (
        SELECT 1 FROM stances ms WHERE ms.poll_id = sd.poll_id AND ms.participant_id = @caller AND ms.latest = TRUE
          AND ms.revoked_at IS NULL AND ms.cast_at IS NOT NULL) ELSE ${d.no} END AS caller_has_voted
    FROM ${d.from(withMatch)}
    JOIN (SELECT t.id, t.group_id, t.tags ${scopeWhere({} satisfies TopicFilter, d.lists)}) t ON t.id = sd.topic_id
    LEFT JOIN discussions d ON d.topic_id = sd.topic_id
    LEFT JOIN polls p ON p.id = sd.poll_id
    WHERE ${clauses.join(" AND ")}
    ORDER BY ${orderBy}
    LIMIT @limit OFFSET @offset`
}

/** The values of a search statement; `match` is the engine's own expression (null: no query). */
export const searchBindings = (lists: IdList, scope: TopicScope, callerId: Id, match: string | null, filter: SearchFilter) => {
  const values: Record<string, unknown> = scopeParams(scope, {}, lists)
  values.caller = callerId
  if (match !== null) values.match = match
  if (filter.types.length > 0) values.types = lists.bind(filter.types)
  if (filter.groupIds !== undefined) values.group_ids = lists.bind(filter.groupIds)
  if (filter.tag !== undefined) values.tag = filter.tag
  if (filter.authorId !== undefined) values.author_id = filter.authorId
  if (filter.excludeIds !== undefined) values.exclude = lists.bind(filter.excludeIds)
  return values
}

export const toHit = (row: Record<string, unknown>): SearchHit =>
  Object.assign({}, row as unknown as SearchHit, {
    tags: json<Array<string>>(row.tags),
    excerpt: String(row.excerpt ?? ""),
    caller_has_voted: bool(row.caller_has_voted)
  })
