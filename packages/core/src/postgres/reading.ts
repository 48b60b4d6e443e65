/**
 * Search and reports on PostgreSQL. Search: each document's `tsv` (English stemming over folded words,
 * migration 001) matched by a tsquery built here, `ts_headline` for the highlight, `ts_rank` for relevance;
 * the vocabulary's trigram index (pg_trgm) finds the words a typo away. Visibility is the same topic scope.
 */
import { Effect } from "effect"
import type { Id } from "../domain/records.js"
import type { DayCount, ReportTotals, TagCount } from "../domain/reports.js"
import type { ReportsRepo } from "../ports/reports.js"
import type { SearchMatch, SearchRepo } from "../ports/search.js"
import { foldTerm } from "../rules/search.js"
import { type ActivitySource, ACTIVITY_SOURCES, DAY_KINDS, personActivity, reportSql } from "../sql/reports.js"
import { bool } from "../sql/rows.js"
import { withPage } from "../sql/scope.js"
import { searchBindings, searchSql, SNIPPET_WORDS, toHit } from "../sql/search.js"
import type { PgRunner } from "./db.js"
import { PG_IDS } from "./dialect.js"

/**
 * A term as tsquery text: its letters and digits as the parser splits them (every piece must match), each a
 * quoted lexeme (nothing in it is an operator), a prefix from three characters on, as on SQLite.
 */
const lexemes = (term: string, prefix: boolean) => {
  const pieces = foldTerm(term).split(/[^\p{L}\p{N}]+/u).filter((p) => p !== "")
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

/** The tsvector column, ts_headline and ts_rank. */
const findSql = searchSql({
  lists: PG_IDS,
  from: () => "search_documents sd",
  matches: "sd.tsv @@ to_tsquery('english', @match)",
  snippet: `ts_headline('english', sd.content, to_tsquery('english', @match),
         'StartSel=' || chr(2) || ', StopSel=' || chr(3) || ', MaxWords=${SNIPPET_WORDS}, MinWords=${SNIPPET_WORDS / 2}, ShortWord=0')`,
  relevance: "ts_rank(sd.tsv, to_tsquery('english', @match)) DESC",
  tagged: "t.tags @> jsonb_build_array(@tag::text)",
  no: "false"
})

export const makeSearchRepo = (q: PgRunner): SearchRepo => ({
  find: (scope, callerId, match, filter, order, page) => {
    const query = match === null ? null : tsquery(match)
    // a query of nothing the parser keeps matches nothing (as an FTS5 expression of no word would)
    if (query === "") return Effect.succeed([])
    return Effect.map(
      q.all(findSql(query !== null, filter, order), withPage(searchBindings(PG_IDS, scope, callerId, query, filter), page)),
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

const SQL = reportSql(PG_IDS, "jsonb_array_elements_text(t.tags) j(value)", (at) => `to_char(${at} AT TIME ZONE 'UTC', 'YYYY-MM-DD')`)
/** PostgreSQL promises no order for a GROUP BY without one (SQLite's follows the grouping). */
const ordered = (sql: string, by: string) => `${sql} ORDER BY ${by}`

export const makeReportsRepo = (q: PgRunner): ReportsRepo => ({
  members: (groupIds) =>
    Effect.map(q.all<{ user_id: Id; delegate: number }>(ordered(SQL.members, "user_id"), SQL.args(groupIds)), (rows) =>
      rows.map((r) => ({ user_id: r.user_id, delegate: bool(r.delegate) }))),
  people: (ids) => q.all(ordered(SQL.people, "id"), { ids: PG_IDS.bind(ids) }),
  activityByPerson: Effect.fnUntraced(function*(groupIds, w) {
    const a = SQL.args(groupIds, w)
    const bySource: Array<readonly [ActivitySource, ReadonlyArray<{ user_id: Id; n: number }>]> = []
    for (const kind of ACTIVITY_SOURCES) bySource.push([kind, yield* q.all<{ user_id: Id; n: number }>(ordered(SQL.byPerson(kind), "1"), a)])
    return personActivity(bySource, yield* q.all<{ user_id: Id; issued: number; cast: number }>(ordered(SQL.votes, "1"), a))
  }),
  activityByDay: Effect.fnUntraced(function*(groupIds, w) {
    const out: Array<DayCount> = []
    for (const kind of DAY_KINDS) {
      for (const r of yield* q.all<{ day: string; n: number }>(ordered(SQL.byDay(kind), "day"), SQL.args(groupIds, w))) out.push({ kind, day: r.day, n: r.n })
    }
    return out
  }),
  totals: (groupIds, w) => Effect.map(q.get<ReportTotals>(SQL.totals, SQL.args(groupIds, w)), (r) => r!),
  tags: (groupIds, w) => q.all<TagCount>(SQL.tags, SQL.args(groupIds, w))
})
