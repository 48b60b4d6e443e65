import type { Id, Page, TopicFilter, TopicScope } from "../domain/records.js"
import { columnValue } from "../domain/model.js"

/** How a dialect asks whether a column is in a bound list (of ids, or of text), and how the list is bound. */
export interface IdList {
  readonly has: (column: string, param: string, of?: "id" | "text") => string
  readonly bind: (list: ReadonlyArray<Id | string>) => unknown
}

/**
 * The WHERE clause of `rules/topics.ts` TopicScope plus a filter. The SQL text depends only on which
 * filters are present (typed code), so each variant is prepared once; values are bound.
 */
export const scopeWhere = (filter: TopicFilter, ids: IdList, tagged = "") => {
  const clauses = ["t.discarded_at IS NULL"]
  if (filter.groupId !== undefined) clauses.push("t.group_id = @group_id")
  if (filter.topicableType !== undefined) clauses.push("t.topicable_type = @topicable_type")
  if (filter.status === "open") clauses.push("t.closed_at IS NULL")
  if (filter.status === "closed") clauses.push("t.closed_at IS NOT NULL")
  if (filter.tag !== undefined) clauses.push(tagged)
  clauses.push(`(
    ${ids.has("t.group_id", "all_in")}
    OR (t.private = FALSE AND (${ids.has("t.group_id", "public_in")}
                           OR (@public_groups = 1 AND EXISTS (SELECT 1 FROM groups g WHERE g.id = t.group_id AND g.is_visible_to_public = TRUE AND g.archived_at IS NULL))))
    OR (EXISTS (SELECT 1 FROM topic_readers r
                WHERE r.topic_id = t.id AND r.user_id = @guest AND r.guest = TRUE AND r.revoked_at IS NULL)
        AND NOT EXISTS (SELECT 1 FROM groups g WHERE g.id = t.group_id AND g.archived_at IS NOT NULL)))`)
  return `FROM topics t WHERE ${clauses.join(" AND ")}`
}

/** A statement's values with its page (`LIMIT @limit OFFSET @offset`), set on them (they are the caller's own). */
export const withPage = (values: Record<string, unknown>, page: Page) => Object.assign(values, { limit: page.limit, offset: page.offset })

export const scopeParams = (scope: TopicScope, filter: TopicFilter, ids: IdList) => {
  const values: Record<string, unknown> = {
    all_in: ids.bind(scope.allIn),
    public_in: ids.bind(scope.publicIn),
    public_groups: columnValue(scope.publicGroups),
    guest: scope.guestUserId
  }
  if (filter.groupId !== undefined) values.group_id = filter.groupId
  if (filter.topicableType !== undefined) values.topicable_type = filter.topicableType
  if (filter.tag !== undefined) values.tag = filter.tag
  return values
}
