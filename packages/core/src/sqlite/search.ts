import type { Id, Page, TopicScope } from "../domain/records.js"
import type { SearchOrder } from "../domain/search.js"
import type { SearchFilter, SearchMatch, SearchRepo } from "../ports/search.js"
import { matchExpression, trigramExpression } from "../rules/search.js"
import { withPage } from "../sql/scope.js"
import { searchBindings, searchSql, SNIPPET_WORDS, toHit } from "../sql/search.js"
import type { Stmt } from "./db.js"
import type { Offloader } from "./offload.js"
import { SQLITE_IDS } from "./dialect.js"

/** FTS5: the porter-stemmed index of the documents, its snippet() and rank. */
const findSql = searchSql({
  lists: SQLITE_IDS,
  from: (withMatch) => (withMatch ? "search_fts JOIN search_documents sd ON sd.id = search_fts.rowid" : "search_documents sd"),
  matches: "search_fts MATCH @match",
  snippet: `snippet(search_fts, 0, char(2), char(3), '…', ${SNIPPET_WORDS})`,
  relevance: "search_fts.rank",
  tagged: "EXISTS (SELECT 1 FROM json_each(t.tags) WHERE value = @tag)",
  no: "0"
})

/** The search queries as plain functions of a statement cache, runnable on a reader thread (sqlite/offload.ts). */
export const SEARCH_QUERIES = {
  find: (s: Stmt, scope: TopicScope, callerId: Id, match: SearchMatch | null, filter: SearchFilter, order: SearchOrder, page: Page) =>
    (s(findSql(match !== null, filter, order)).all(
      withPage(searchBindings(SQLITE_IDS, scope, callerId, match === null ? null : matchExpression(match.terms, match.alternatives), filter), page)
    ) as Array<Record<string, unknown>>).map(toHit),
  similarWords: (s: Stmt, word: string, min: number, max: number, limit: number) =>
    s(`SELECT w.word FROM search_trigrams JOIN search_words w ON w.id = search_trigrams.rowid
       WHERE search_trigrams MATCH @match AND length(w.word) BETWEEN @min AND @max
       ORDER BY search_trigrams.rank LIMIT @limit`)
      .pluck()
      .all({ match: trigramExpression(word), min, max, limit }) as Array<string>
}

/** A search over many threads: it runs on a reader thread, never holding the event loop. */
export const makeSearchRepo = (offloader: Offloader): SearchRepo => offloader.repo("search", SEARCH_QUERIES)
