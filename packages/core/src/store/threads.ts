/** Threads (topics) and what they hold: discussions, comments, thread items, reactions, readers. */
import type { AttachableType } from "../domain/files.js"
import { filesKey } from "./files.js"
import { Effect } from "effect"
import { Comment, Discussion, type Id, Reaction, ThreadItem, Topic, type TopicFilter, TopicReader, type TopicScope } from "../domain/records.js"
import type { CommentsRepo, DiscussionsRepo, ItemsRepo, ReactionsRepo, ReadersRepo, TopicsRepo } from "../ports/store.js"
import { positionSegment, SELECT_COMMENT } from "../sql/records.js"
import { type IdList, scopeParams, scopeWhere, withPage } from "../sql/scope.js"
import { columnValue } from "../domain/model.js"
import { insertRow, returned, type Row, setClause, type SqlClient } from "./client.js"
import { groupAhead } from "./groups.js"
import { threadVolumeKey } from "./people.js"


/** The visible-threads clause (rules/topics.ts TopicScope) in a dialect, and its values. */
export const topicScope = (ids: IdList, tagged = "") => ({
  where: (filter: TopicFilter) => scopeWhere(filter, ids, tagged),
  params: (scope: TopicScope, filter: TopicFilter) => scopeParams(scope, filter, ids)
})

export const makeTopicsRepo = (c: SqlClient): TopicsRepo => {
  const { ids, tagged } = c.dialect
  const { where, params } = topicScope(ids, tagged)
  return {
    // remembered: a thread's record read with its discussion or poll is not read again in the request
    byId: (id) => c.remembered(topicKey(id), c.get(`SELECT * FROM topics WHERE id = ?`, [id], Topic.fromRow)),
    byIdLocked: (id) => c.remembered(topicKey(id), c.getLocked(`SELECT * FROM topics WHERE id = ?`, [id], Topic.fromRow)),
    byIds: (list) => (list.length === 0 ? Effect.succeed([]) : c.all(`SELECT * FROM topics WHERE ${ids.has("id", "ids")}`, { ids: ids.bind(list) }, Topic.fromRow)),
    visible: (scope, filter, page) =>
      c.all(`SELECT t.* ${where(filter)} ORDER BY t.last_activity_at DESC, t.id DESC LIMIT @limit OFFSET @offset`,
        withPage(params(scope, filter), page), Topic.fromRow),
    countVisible: (scope, filter) => Effect.map(c.get(`SELECT count(*) AS n ${where(filter)}`, params(scope, filter)), (r) => Number(r!.n)),
    insert: (t) => Effect.map(insertRow(c, "topics", Topic.toRow({ ...t, updated_at: t.created_at })), (r) => Topic.fromRow(r.rows[0])),
    setPrivacyIn: (groupIds, isPrivate, at) =>
      groupIds.length === 0 ? Effect.succeed(0) : Effect.map(
        c.run(`UPDATE topics SET private = @private, updated_at = @at WHERE ${ids.has("group_id", "ids")} AND private <> @private`,
          { ids: ids.bind(groupIds), private: columnValue(isPrivate), at }),
        (r) => r.changes
      ),
    update: (id, patch) => {
      const row = Topic.toRow(patch)
      return Effect.asVoid(c.run(`UPDATE topics SET ${setClause(row)} WHERE id = @id`, { ...row, id }))
    }
  }
}

/** Where a request remembers a thread's record it has read (SqlClient.remembered). */
const topicKey = (id: number) => `topics:${id}`
/** Where a request remembers a person's place in a thread (none: undefined, remembered as well). */
const readerKey = (topicId: Id, userId: Id) => `readers:${topicId}:${userId}`

const threadColumns = Topic.joined("t")
const readerColumns = TopicReader.joined("tr")
/**
 * A record's reads by id and by key (`SELECT ${select} FROM ${table} ${alias}`, its `topic_id` naming the thread),
 * each with the thread and the thread's group in one statement, and, for `readerOf`, that person's place in the
 * thread: all remembered for the request, whose next steps read them (the thread, its group and the caller's place for
 * the access check), so that a light read is two round trips on PostgreSQL (the caches' epochs, then this). The
 * statements are written once: a statement's text is its cache key (prepared statements).
 */
export const readAhead = <A>(c: SqlClient, select: string, table: string, alias: string, map: (row: Row) => A, files: AttachableType) => {
  // how many files the record has: none (most records) is remembered, so its document reads none (store/files.ts)
  const fileCount = `(SELECT count(*) FROM attachments fa WHERE fa.record_type = '${files}' AND fa.record_id = ${alias}.id) AS "files.count"`
  const sql = (column: "id" | "key", withReader: boolean) =>
    `SELECT ${select}, ${threadColumns.columns}, ${groupAhead.columns}, ${fileCount}${withReader ? `, ${readerColumns.columns}, tv.volume AS "tv.volume"` : ""} FROM ${table} ${alias}
     JOIN topics t ON t.id = ${alias}.topic_id LEFT JOIN groups g ON g.id = t.group_id
     ${withReader ? "LEFT JOIN topic_readers tr ON tr.topic_id = t.id AND tr.user_id = @reader LEFT JOIN thread_volumes tv ON tv.topic_id = t.id AND tv.user_id = @reader" : ""}
     WHERE ${alias}.${column} = @value`
  const read = (column: "id" | "key") => {
    const alone = sql(column, false)
    const withReader = sql(column, true)
    return (value: unknown, readerOf?: Id): Effect.Effect<A | undefined> =>
      Effect.flatMap(readerOf === undefined ? c.get(alone, { value }) : c.get(withReader, { reader: readerOf, value }), (row) => {
        if (row === undefined) return Effect.succeed(undefined)
        // mapped only where remembered (not inside a transaction, which reads and locks the thread itself)
        const topicId = row["t.id"] as number
        return Effect.as(
          c.rememberBeside(() => [
            [topicKey(topicId), threadColumns.fromRow(row)],
            ...groupAhead.entries(row),
            ...(Number(row["files.count"]) === 0 ? [[filesKey(files, row.id as Id), []] as const] : []),
            ...(readerOf === undefined ? [] : [
              [readerKey(topicId, readerOf), row["tr.id"] === null ? undefined : readerColumns.fromRow(row)] as const,
              [threadVolumeKey(topicId, readerOf), row["tv.volume"] ?? undefined] as const
            ])
          ]),
          map(row)
        )
      })
  }
  return { byId: read("id"), byKey: read("key") }
}

export const makeDiscussionsRepo = (c: SqlClient): DiscussionsRepo => {
  const { ids } = c.dialect
  const ahead = readAhead(c, "d.*", "discussions", "d", Discussion.fromRow, "Discussion")
  return {
    byId: ahead.byId,
    byKey: ahead.byKey,
    byTopicIds: (list) =>
      list.length === 0 ? Effect.succeed([]) : c.all(`SELECT * FROM discussions WHERE ${ids.has("topic_id", "ids")}`, { ids: ids.bind(list) }, Discussion.fromRow),
    insert: (d) =>
      Effect.map(
        c.run(`INSERT INTO discussions (key, topic_id, author_id, title, description, description_format, created_at, updated_at)
               VALUES (@key, @topic_id, @author_id, @title, @description, @description_format, @created_at, @created_at) RETURNING *`, d),
        (r) => Discussion.fromRow(returned(r))
      ),
    update: (id, patch) => Effect.asVoid(c.run(`UPDATE discussions SET ${setClause(patch)} WHERE id = @id`, { ...patch, id }))
  }
}

export const makeCommentsRepo = (c: SqlClient): CommentsRepo => {
  const { ids } = c.dialect
  return {
    byId: (id) => c.get(`${SELECT_COMMENT} WHERE c.id = ?`, [id], Comment.fromRow),
    byIds: (list) =>
      list.length === 0 ? Effect.succeed([]) : c.all(`${SELECT_COMMENT} WHERE ${ids.has("c.id", "ids")} ORDER BY c.id`, { ids: ids.bind(list) }, Comment.fromRow),
    // the row answers with its thread (read through the discussion): one statement
    insert: (comment) =>
      Effect.map(
        c.run(`INSERT INTO comments (discussion_id, parent_id, author_id, body, body_format, created_at, updated_at)
               VALUES (@discussion_id, @parent_id, @author_id, @body, @body_format, @created_at, @created_at)
               RETURNING *, (SELECT d.topic_id FROM discussions d WHERE d.id = comments.discussion_id) AS topic_id`, comment),
        (r) => Comment.fromRow(returned(r))
      ),
    update: (id, patch) => Effect.asVoid(c.run(`UPDATE comments SET ${setClause(patch)} WHERE id = @id`, { ...patch, id }))
  }
}

type Grown = { id: number; depth: number; position_key: string | null; child_count: number }
const GROWN = "id, depth, position_key, child_count"
const NEXT_SEQUENCE = `(SELECT coalesce(max(sequence_id), 0) + 1 FROM topic_items WHERE topic_id = @topic_id)`

export const makeItemsRepo = (c: SqlClient): ItemsRepo => ({
  ofTopic: (topicId) => c.all(`SELECT * FROM topic_items WHERE topic_id = ? ORDER BY sequence_id`, [topicId], ThreadItem.fromRow),
  byId: (id) => c.get(`SELECT * FROM topic_items WHERE id = ?`, [id], ThreadItem.fromRow),
  byItemable: (type, id) =>
    c.get(`SELECT * FROM topic_items WHERE itemable_type = ? AND itemable_id = ? ORDER BY id LIMIT 1`, [type, id], ThreadItem.fromRow),
  fromPosition: (topicId, from, limit) =>
    c.all(`SELECT * FROM topic_items WHERE topic_id = ? AND position_key >= ? ORDER BY position_key LIMIT ?`, [topicId, from, limit], ThreadItem.fromRow),
  between: (topicId, from, until) =>
    c.all(`SELECT * FROM topic_items WHERE topic_id = ? AND position_key >= ? AND position_key < ? ORDER BY position_key`, [topicId, from, until], ThreadItem.fromRow),
  beforePosition: (topicId, before, limit) =>
    c.all(`SELECT * FROM topic_items WHERE topic_id = ? AND position_key < ? ORDER BY position_key DESC LIMIT ?`, [topicId, before, limit], ThreadItem.fromRow),
  bySequence: (topicId, sequenceId) => c.get(`SELECT * FROM topic_items WHERE topic_id = ? AND sequence_id = ?`, [topicId, sequenceId], ThreadItem.fromRow),
  fromSequence: (topicId, sequenceId) =>
    c.get(`SELECT * FROM topic_items WHERE topic_id = ? AND sequence_id >= ? ORDER BY sequence_id LIMIT 1`, [topicId, sequenceId], ThreadItem.fromRow),
  atPosition: (topicId, key) => c.get(`SELECT * FROM topic_items WHERE topic_id = ? AND position_key = ?`, [topicId, key], ThreadItem.fromRow),
  append: Effect.fnUntraced(function*({ parent, bump, ...item }) {
    // the thread's row first: writers appending to one thread (on any server) take their sequence ids in turn;
    // it answers the thread as this write leaves it
    const topic = Topic.fromRow(returned(yield* c.run(
      `UPDATE topics SET items_count = items_count + 1${bump ? ", last_activity_at = @at, updated_at = @at" : ""} WHERE id = @id RETURNING *`,
      { id: item.topic_id, ...(bump ? { at: item.created_at } : {}) }
    )))
    // the parent counts its new child and answers what the child's place is made from, in one statement (the
    // thread's own item found by its sequence, 0, without being read first)
    const grown = parent === null ? undefined : returned(yield* c.run<Grown>(
      parent === "thread"
        ? `UPDATE topic_items SET child_count = child_count + 1 WHERE topic_id = ? AND sequence_id = 0 RETURNING ${GROWN}`
        : `UPDATE topic_items SET child_count = child_count + 1 WHERE id = ? RETURNING ${GROWN}`,
      [parent === "thread" ? item.topic_id : parent.id]
    ))
    const position = grown === undefined ? 0 : Number(grown.child_count)
    const position_key = grown === undefined ? null
      : grown.position_key === null ? positionSegment(position) : `${grown.position_key}-${positionSegment(position)}`
    // the next sequence id found by the insert itself (a round trip fewer while the thread's row is held)
    const appended = ThreadItem.fromRow(returned(yield* c.run(
      `INSERT INTO topic_items (topic_id, kind, sequence_id, parent_id, depth, position, position_key, itemable_type, itemable_id, actor_id, created_at)
       VALUES (@topic_id, @kind, ${parent === null ? "0" : NEXT_SEQUENCE}, @parent_id, @depth, @position, @position_key, @itemable_type, @itemable_id, @actor_id, @created_at)
       RETURNING *`,
      Object.assign({}, item, { parent_id: grown === undefined ? null : Number(grown.id), depth: grown === undefined ? 0 : Number(grown.depth) + 1, position, position_key })
    )))
    return { item: appended, topic }
  })
})

export const makeReactionsRepo = (c: SqlClient): ReactionsRepo => {
  const { ids } = c.dialect
  return {
    byId: (id) => c.get(`SELECT * FROM reactions WHERE id = ?`, [id], Reaction.fromRow),
    ofTopic: (topicId) => c.all(`SELECT * FROM reactions WHERE topic_id = ? ORDER BY id`, [topicId], Reaction.fromRow),
    ofReactables: (type, list) =>
      list.length === 0
        ? Effect.succeed([])
        : c.all(`SELECT * FROM reactions WHERE reactable_type = @type AND ${ids.has("reactable_id", "ids")} ORDER BY id`, { type, ids: ids.bind(list) }, Reaction.fromRow),
    find: (r) =>
      c.get(`SELECT * FROM reactions WHERE reactable_type = ? AND reactable_id = ? AND user_id = ? AND reaction = ?`,
        [r.reactable_type, r.reactable_id, r.user_id, r.reaction], Reaction.fromRow),
    insert: (r) =>
      Effect.map(
        c.run<{ id: number }>(`INSERT INTO reactions (topic_id, reactable_type, reactable_id, user_id, reaction, created_at)
               VALUES (@topic_id, @reactable_type, @reactable_id, @user_id, @reaction, @created_at) RETURNING id`, r),
        (res) => ({ ...r, id: Number(returned(res).id) })
      ),
    delete: (id) => Effect.asVoid(c.run(`DELETE FROM reactions WHERE id = ?`, [id]))
  }
}

/** Every item of a thread as read ranges ("1-N"; "" for a thread with only its own item), for the thread `t.id`. */
const ALL_READ = `coalesce((SELECT '1-' || max(i.sequence_id) FROM topic_items i WHERE i.topic_id = t.id AND i.sequence_id > 0), '')`
const READ_ALL_SET = `ON CONFLICT (topic_id, user_id) DO UPDATE SET read_ranges = excluded.read_ranges, last_read_at = excluded.last_read_at, dismissed_at = excluded.dismissed_at`

export const makeReadersRepo = (c: SqlClient): ReadersRepo => {
  const { ids, tagged } = c.dialect
  const scope = topicScope(ids, tagged)
  return {
  find: (topicId, userId) => c.remembered(readerKey(topicId, userId), c.get(`SELECT * FROM topic_readers WHERE topic_id = ? AND user_id = ?`, [topicId, userId], TopicReader.fromRow)),
  upsert: (r) =>
    Effect.map(
      c.run(`INSERT INTO topic_readers (topic_id, user_id, inviter_id, guest, created_at)
             VALUES (@topic_id, @user_id, @inviter_id, @guest, @created_at)
             ON CONFLICT (topic_id, user_id) DO UPDATE SET guest = ${c.dialect.greater("topic_readers.guest", "excluded.guest")}, revoked_at = NULL
             RETURNING *`, TopicReader.toRow(r)),
      (res) => TopicReader.fromRow(returned(res))
    ),
  guestsOf: (topicId) =>
    c.all(`SELECT user_id FROM topic_readers WHERE topic_id = ? AND guest = TRUE AND revoked_at IS NULL`, [topicId], (r) => Number(r.user_id)),
  guestsIn: (topicIds) =>
    topicIds.length === 0 ? Effect.succeed([]) : c.all(`SELECT topic_id, user_id FROM topic_readers WHERE ${ids.has("topic_id", "ids")} AND guest = TRUE AND revoked_at IS NULL`,
      { ids: ids.bind(topicIds) }, (r) => ({ topic_id: Number(r.topic_id), user_id: Number(r.user_id) })),
  ofTopics: (userId, topicIds) =>
    topicIds.length === 0 ? Effect.succeed([]) : c.all(`SELECT * FROM topic_readers WHERE user_id = @user AND ${ids.has("topic_id", "ids")}`, { user: userId, ids: ids.bind(topicIds) }, TopicReader.fromRow),
  markRead: (r) =>
    Effect.asVoid(c.run(`INSERT INTO topic_readers (topic_id, user_id, guest, created_at, last_read_at, read_ranges)
           VALUES (@topic_id, @user_id, FALSE, @at, @at, @ranges)
           ON CONFLICT (topic_id, user_id) DO UPDATE SET read_ranges = excluded.read_ranges, last_read_at = excluded.last_read_at
           WHERE coalesce(topic_readers.read_ranges, '') = @previous`, { ...r, previous: r.previous ?? "" })),
  markThreadRead: (topicId, userId, at) =>
    Effect.asVoid(c.run(`INSERT INTO topic_readers (topic_id, user_id, guest, created_at, last_read_at, read_ranges, dismissed_at)
           SELECT t.id, @user, FALSE, @at, @at, ${ALL_READ}, @at FROM topics t WHERE t.id = @topic ${READ_ALL_SET}`, { topic: topicId, user: userId, at })),
  // every visible thread but those dismissed since their last activity (already marked)
  markAllRead: (userId, visible, at) =>
    Effect.map(c.run(`INSERT INTO topic_readers (topic_id, user_id, guest, created_at, last_read_at, read_ranges, dismissed_at)
           SELECT t.id, @user, FALSE, @at, @at, ${ALL_READ}, @at ${scope.where({})}
             AND NOT EXISTS (SELECT 1 FROM topic_readers r WHERE r.topic_id = t.id AND r.user_id = @user
                             AND r.dismissed_at >= t.last_activity_at)
           ${READ_ALL_SET}`, Object.assign(scope.params(visible, {}), { user: userId, at })), (r) => r.changes)
  }
}
