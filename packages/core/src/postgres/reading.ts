/**
 * Search and reports on PostgreSQL. Search: each document's `tsv` (English stemming over folded words,
 * migration 001) matched by a tsquery built here, `ts_headline` for the highlight, `ts_rank` for relevance;
 * the vocabulary's trigram index (pg_trgm) finds the words a typo away. Visibility is the same topic scope.
 */
import { Effect } from "effect"
import type { Id } from "../domain/records.js"
import type { BaseKind, DayCount, PersonActivity, ReportTotals, ReportWindow, TagCount } from "../domain/reports.js"
import type { SearchHit, SearchOrder } from "../domain/search.js"
import type { ReportsRepo } from "../ports/reports.js"
import type { SearchFilter, SearchMatch, SearchRepo } from "../ports/search.js"
import { bool } from "../sqlite/rows.js"
import type { PgRunner } from "./db.js"
import { scopeParams, scopeWhere } from "./records.js"

/** Words of context around the matches in a highlight, and characters of text shown without a query. */
const SNIPPET_WORDS = 32
const EXCERPT_CHARS = 400

/**
 * A term as tsquery text: its letters and digits as the parser splits them (every piece must match), each a
 * quoted lexeme (nothing in it is an operator), a prefix from three characters on, as on SQLite.
 */
const lexemes = (term: string, prefix: boolean) => {
  const pieces = term.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((p) => p !== "")
  if (pieces.length === 0) return undefined
  const star = prefix && [...term].length >= 3 ? ":*" : ""
  const parts = pieces.map((p) => `'${p}'${star}`)
  return parts.length === 1 ? parts[0]! : `(${parts.join(" & ")})`
}

export const tsquery = (match: SearchMatch): string =>
  match.terms
    .flatMap((term) => {
      const exact = lexemes(term, true)
      const alts = (match.alternatives.get(term) ?? []).flatMap((a) => lexemes(a, false) ?? [])
      if (exact === undefined) return []
      return [alts.length === 0 ? exact : `(${[exact, ...alts].join(" | ")})`]
    })
    .join(" & ")

const findSql = (withMatch: boolean, filter: SearchFilter, order: SearchOrder) => {
  const clauses: Array<string> = []
  if (withMatch) clauses.push("sd.tsv @@ to_tsquery('english', @match)")
  if (filter.types.length > 0) clauses.push("sd.searchable_type = ANY(@types::text[])")
  if (filter.groupIds !== undefined) clauses.push("t.group_id = ANY(@group_ids::bigint[])")
  if (filter.direct === true) clauses.push("t.group_id IS NULL")
  if (filter.tag !== undefined) clauses.push("t.tags::jsonb @> jsonb_build_array(@tag::text)")
  if (filter.authorId !== undefined) clauses.push("sd.author_id = @author_id::bigint")
  if (filter.excludeIds !== undefined) clauses.push("NOT (sd.id = ANY(@exclude::bigint[]))")
  clauses.push("(sd.poll_id IS NULL OR p.discarded_at IS NULL)")
  // the marks are rules/search.ts MARK_START and MARK_END
  const excerpt = withMatch
    ? `ts_headline('english', sd.content, to_tsquery('english', @match),
         'StartSel=' || chr(2) || ', StopSel=' || chr(3) || ', MaxWords=${SNIPPET_WORDS}, MinWords=${SNIPPET_WORDS / 2}, ShortWord=0')`
    : `substr(sd.content, 1, ${EXCERPT_CHARS})`
  const orderBy = order === "authored_at_desc"
    ? "sd.authored_at DESC, sd.id DESC"
    : order === "authored_at_asc"
    ? "sd.authored_at ASC, sd.id ASC"
    : withMatch
    ? "ts_rank(sd.tsv, to_tsquery('english', @match)) DESC, sd.id DESC"
    : "sd.authored_at DESC, sd.id DESC"
  return `SELECT sd.id, sd.searchable_type, sd.searchable_id, sd.topic_id, t.group_id, t.tags, sd.author_id, sd.authored_at,
      ${excerpt} AS excerpt,
      d.id AS discussion_id, d.key AS discussion_key, d.title AS discussion_title,
      p.id AS poll_id, p.key AS poll_key, p.title AS poll_title, p.hide_results AS poll_hide_results, p.closed_at AS poll_closed_at,
      CASE WHEN sd.searchable_type = 'Stance' THEN EXISTS (
        SELECT 1 FROM stances ms WHERE ms.poll_id = sd.poll_id AND ms.participant_id = @caller::bigint AND ms.latest = 1
          AND ms.revoked_at IS NULL AND ms.cast_at IS NOT NULL) ELSE false END AS caller_has_voted
    FROM search_documents sd
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

export const makeSearchRepo = (q: PgRunner): SearchRepo => ({
  find: (scope, callerId, match, filter, order, page) => {
    const query = match === null ? null : tsquery(match)
    // a query of nothing the parser keeps matches nothing (as an FTS5 expression of no word would)
    if (query === "") return Effect.succeed([])
    return Effect.map(
      q.all(findSql(query !== null, filter, order), {
        ...scopeParams(scope, {}),
        caller: callerId,
        ...(query === null ? {} : { match: query }),
        ...(filter.types.length > 0 ? { types: [...filter.types] } : {}),
        ...(filter.groupIds === undefined ? {} : { group_ids: [...filter.groupIds] }),
        ...(filter.tag === undefined ? {} : { tag: filter.tag }),
        ...(filter.authorId === undefined ? {} : { author_id: filter.authorId }),
        ...(filter.excludeIds === undefined ? {} : { exclude: [...filter.excludeIds] }),
        limit: page.limit,
        offset: page.offset
      }),
      (rows) => rows.map(toHit)
    )
  },
  similarWords: (word, min, max, limit) =>
    Effect.map(
      q.all<{ word: string }>(`SELECT word FROM search_words WHERE length(word) BETWEEN @min AND @max
                               ORDER BY word <-> @word, word LIMIT @limit`, { word, min, max, limit }),
      (rows) => rows.map((r) => r.word)
    )
})

/** Kept threads of the selected groups. */
const IN_GROUPS = "t.group_id = ANY(@groups::bigint[]) AND t.discarded_at IS NULL"
const within = (col: string) => `${col} >= @start AND ${col} < @end`

const SOURCES = {
  threads: { who: "d.author_id", at: "d.created_at", from: "discussions d JOIN topics t ON t.id = d.topic_id", kept: "d.discarded_at IS NULL" },
  comments: {
    who: "c.author_id",
    at: "c.created_at",
    from: "comments c JOIN discussions d ON d.id = c.discussion_id JOIN topics t ON t.id = d.topic_id",
    kept: "c.discarded_at IS NULL AND d.discarded_at IS NULL"
  },
  polls: { who: "p.author_id", at: "p.created_at", from: "polls p JOIN topics t ON t.id = p.topic_id", kept: "p.discarded_at IS NULL" },
  outcomes: {
    who: "o.author_id",
    at: "o.created_at",
    from: "outcomes o JOIN polls p ON p.id = o.poll_id JOIN topics t ON t.id = p.topic_id",
    kept: "p.discarded_at IS NULL"
  },
  reactions: { who: "r.user_id", at: "r.created_at", from: "reactions r JOIN topics t ON t.id = r.topic_id", kept: "TRUE" }
} as const

const BALLOTS = `stances s JOIN polls p ON p.id = s.poll_id JOIN topics t ON t.id = p.topic_id
  WHERE s.latest = 1 AND s.revoked_at IS NULL AND p.discarded_at IS NULL AND ${IN_GROUPS} AND ${within("s.created_at")}`

const byDaySql = (kind: BaseKind) => {
  if (kind === "stances") return `SELECT substr(s.created_at, 1, 10) AS day, count(*) AS n FROM ${BALLOTS} AND s.cast_at IS NOT NULL GROUP BY day`
  if (kind === "topics") return `SELECT substr(t.created_at, 1, 10) AS day, count(*) AS n FROM topics t WHERE ${IN_GROUPS} AND ${within("t.created_at")} GROUP BY day`
  const src = SOURCES[kind === "discussions" ? "threads" : kind]
  return `SELECT substr(${src.at}, 1, 10) AS day, count(*) AS n FROM ${src.from} WHERE ${src.kept} AND ${IN_GROUPS} AND ${within(src.at)} GROUP BY day`
}
const KINDS: ReadonlyArray<BaseKind> = ["topics", "discussions", "comments", "polls", "stances", "outcomes", "reactions"]
const args = (groupIds: ReadonlyArray<Id>, w?: ReportWindow) => ({ groups: [...groupIds], ...(w === undefined ? {} : { start: w.start, end: w.end }) })

export const makeReportsRepo = (q: PgRunner): ReportsRepo => ({
  members: (groupIds) =>
    Effect.map(
      q.all<{ user_id: Id; delegate: number }>(`SELECT user_id, max(delegate) AS delegate FROM memberships
        WHERE group_id = ANY(@groups::bigint[]) AND revoked_at IS NULL GROUP BY user_id ORDER BY user_id`, args(groupIds)),
      (rows) => rows.map((r) => ({ user_id: r.user_id, delegate: bool(r.delegate) }))
    ),
  people: (ids) => q.all(`SELECT id, name, username, country FROM users WHERE id = ANY(?) ORDER BY id`, [...ids]),
  activityByPerson: Effect.fnUntraced(function*(groupIds, w) {
    const people = new Map<Id, { -readonly [K in keyof PersonActivity]: PersonActivity[K] }>()
    const person = (id: Id) => {
      let p = people.get(id)
      if (p === undefined) {
        p = { user_id: id, threads: 0, comments: 0, polls: 0, outcomes: 0, reactions: 0, votes_issued: 0, votes_cast: 0 }
        people.set(id, p)
      }
      return p
    }
    const a = args(groupIds, w)
    for (const kind of Object.keys(SOURCES) as Array<keyof typeof SOURCES>) {
      const src = SOURCES[kind]
      const rows = yield* q.all<{ user_id: Id; n: number }>(`SELECT ${src.who} AS user_id, count(*) AS n FROM ${src.from}
        WHERE ${src.kept} AND ${IN_GROUPS} AND ${within(src.at)} GROUP BY ${src.who} ORDER BY ${src.who}`, a)
      for (const r of rows) person(r.user_id)[kind] = r.n
    }
    const votes = yield* q.all<{ user_id: Id; issued: number; cast: number }>(`SELECT s.participant_id AS user_id, count(*) AS issued, count(s.cast_at) AS cast
      FROM ${BALLOTS} AND p.anonymous = 0 GROUP BY s.participant_id ORDER BY s.participant_id`, a)
    for (const r of votes) {
      const p = person(r.user_id)
      p.votes_issued = r.issued
      p.votes_cast = r.cast
    }
    return [...people.values()]
  }),
  activityByDay: Effect.fnUntraced(function*(groupIds, w) {
    const out: Array<DayCount> = []
    for (const kind of KINDS) {
      for (const r of yield* q.all<{ day: string; n: number }>(`${byDaySql(kind)} ORDER BY day`, args(groupIds, w))) out.push({ kind, day: r.day, n: r.n })
    }
    return out
  }),
  totals: (groupIds, w) =>
    Effect.map(
      q.get<ReportTotals>(`SELECT
         (SELECT count(*) FROM topics t WHERE ${IN_GROUPS} AND ${within("t.created_at")}) AS topics_count,
         (SELECT count(*) FROM topics t WHERE ${IN_GROUPS} AND ${within("t.created_at")} AND t.topicable_type = 'Discussion') AS discussion_topics_count,
         (SELECT count(*) FROM topics t WHERE ${IN_GROUPS} AND ${within("t.created_at")} AND t.topicable_type = 'Poll') AS poll_topics_count,
         (SELECT count(*) FROM polls p JOIN topics t ON t.id = p.topic_id
           WHERE p.discarded_at IS NULL AND ${IN_GROUPS} AND ${within("p.created_at")}) AS polls_count,
         (SELECT count(*) FROM polls p JOIN topics t ON t.id = p.topic_id
           WHERE p.discarded_at IS NULL AND ${IN_GROUPS} AND ${within("p.created_at")}
             AND EXISTS (SELECT 1 FROM outcomes o WHERE o.poll_id = p.id)) AS polls_with_outcomes_count`, args(groupIds, w)),
      (r) => r!
    ),
  tags: (groupIds, w) =>
    q.all<TagCount>(`SELECT j.value AS name, count(*) AS count FROM topics t, jsonb_array_elements_text(t.tags::jsonb) j(value)
       WHERE ${IN_GROUPS} AND ${within("t.created_at")} GROUP BY j.value ORDER BY count DESC, name`, args(groupIds, w))
})
