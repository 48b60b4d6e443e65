import type { Topic, TopicFilter, TopicScope } from "../domain/records.js"
import type { TopicsRepo } from "../ports/store.js"
import type { Runner } from "./db.js"
import { fromBools, placeholders, setClause, toBools } from "./rows.js"

const toTopic = (row: unknown): Topic => {
  const t = toBools<Topic & { tags: unknown }>(row as Record<string, unknown>, ["private"])
  return { ...t, tags: JSON.parse(String(t.tags)) as Array<string> }
}
const maybe = (row: unknown) => (row === undefined ? undefined : toTopic(row))

const toRow = (patch: Record<string, unknown>) =>
  fromBools(patch.tags === undefined ? patch : { ...patch, tags: JSON.stringify(patch.tags) })

/**
 * The WHERE clause of `rules/topics.ts` TopicScope plus a filter. The SQL text depends only on which
 * filters are present (typed code), so each variant is prepared once; values are bound.
 */
export const where = (filter: TopicFilter) => {
  const clauses = ["t.discarded_at IS NULL"]
  if (filter.groupId !== undefined) clauses.push("t.group_id = @group_id")
  if (filter.topicableType !== undefined) clauses.push("t.topicable_type = @topicable_type")
  if (filter.status === "open") clauses.push("t.closed_at IS NULL")
  if (filter.status === "closed") clauses.push("t.closed_at IS NOT NULL")
  clauses.push(`(
    t.group_id IN (SELECT value FROM json_each(@all_in))
    OR (t.private = 0 AND (t.group_id IN (SELECT value FROM json_each(@public_in))
                           OR (@public_groups = 1 AND EXISTS (SELECT 1 FROM groups g WHERE g.id = t.group_id AND g.is_visible_to_public = 1))))
    OR EXISTS (SELECT 1 FROM topic_readers r
               WHERE r.topic_id = t.id AND r.user_id = @guest AND r.guest = 1 AND r.revoked_at IS NULL))`)
  return `FROM topics t WHERE ${clauses.join(" AND ")}`
}

export const params = (scope: TopicScope, filter: TopicFilter) => ({
  all_in: JSON.stringify(scope.allIn),
  public_in: JSON.stringify(scope.publicIn),
  public_groups: scope.publicGroups ? 1 : 0,
  guest: scope.guestUserId,
  ...(filter.groupId === undefined ? {} : { group_id: filter.groupId }),
  ...(filter.topicableType === undefined ? {} : { topicable_type: filter.topicableType })
})

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
      const row = toRow({ ...t, updated_at: t.created_at })
      const cols = Object.keys(row)
      const info = s(`INSERT INTO topics (${cols.join(", ")}) VALUES (${cols.map((c) => "@" + c).join(", ")})`).run(row)
      return toTopic(s(`SELECT * FROM topics WHERE id = ?`).get(info.lastInsertRowid))
    }),
  update: (id, patch) =>
    run.write((_, s) => {
      const row = toRow(patch)
      s(`UPDATE topics SET ${setClause(row)} WHERE id = @id`).run({ ...row, id })
    })
})
