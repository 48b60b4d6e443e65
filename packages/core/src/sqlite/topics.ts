import type { TopicFilter, TopicScope } from "../domain/records.js"
import type { TopicsRepo } from "../ports/store.js"
import type { Runner } from "./db.js"
import { toTopic, topicRow } from "../sql/records.js"
import { placeholders, setClause } from "../sql/rows.js"
import { type IdList, scopeParams, scopeWhere } from "../sql/scope.js"

const maybe = (row: unknown) => (row === undefined ? undefined : toTopic(row))

/** Id lists as JSON arrays read by json_each. */
export const SQLITE_IDS: IdList = { has: (column, param) => `${column} IN (SELECT value FROM json_each(@${param}))`, bind: (ids) => JSON.stringify(ids) }

export const where = (filter: TopicFilter) => scopeWhere(filter, SQLITE_IDS)
export const params = (scope: TopicScope, filter: TopicFilter) => scopeParams(scope, filter, SQLITE_IDS)

export const makeTopicsRepo = (run: Runner): TopicsRepo => ({
  byId: (id) => run.read((_, s) => maybe(s(`SELECT * FROM topics WHERE id = ?`).get(id))),
  byIds: (ids) =>
    ids.length === 0
      ? run.read(() => [])
      : run.read((_, s) => s(`SELECT * FROM topics WHERE id IN (${placeholders(ids.length)})`).all(...ids).map(toTopic)),
  visible: (scope, filter, page) =>
    run.read((_, s) =>
      s(`SELECT t.* ${where(filter)} ORDER BY t.last_activity_at DESC, t.id DESC LIMIT @limit OFFSET @offset`)
        .all({ ...params(scope, filter), limit: page.limit, offset: page.offset })
        .map(toTopic)),
  countVisible: (scope, filter) =>
    run.read((_, s) => (s(`SELECT count(*) AS n ${where(filter)}`).get(params(scope, filter)) as { n: number }).n),
  insert: (t) =>
    run.write((_, s) => {
      const row = topicRow({ ...t, updated_at: t.created_at })
      const cols = Object.keys(row)
      const info = s(`INSERT INTO topics (${cols.join(", ")}) VALUES (${cols.map((c) => "@" + c).join(", ")})`).run(row)
      return toTopic(s(`SELECT * FROM topics WHERE id = ?`).get(info.lastInsertRowid))
    }),
  update: (id, patch) =>
    run.write((_, s) => {
      const row = topicRow(patch)
      s(`UPDATE topics SET ${setClause(row)} WHERE id = @id`).run({ ...row, id })
    })
})
