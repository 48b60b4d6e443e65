/**
 * The repositories of users, groups, memberships, threads and their items on PostgreSQL. The SQL is the
 * SQLite adapter's where both dialects agree (the same columns, `?` and `@name` placeholders compiled by
 * db.ts); an id list is one array parameter (`= ANY(?)`), and an insert answers its row (`RETURNING`).
 */
import { Effect } from "effect"
import type { Comment, Discussion, Id, Identity, Reaction, ThreadItem, TopicFilter, TopicScope } from "../domain/records.js"
import type { CommentsRepo, DiscussionsRepo, GroupsRepo, ItemsRepo, MembershipsRepo, ReactionsRepo, ReadersRepo, TopicsRepo, UsersRepo } from "../ports/store.js"
import { countedGroup, positionSegment, SELECT_COMMENT, toGroup, toMembership, topicRow, toReader, toTopic, toUser, USER_COLUMNS } from "../sql/records.js"
import { fromBools, setClause } from "../sql/rows.js"
import { type IdList, scopeParams, scopeWhere } from "../sql/scope.js"
import type { PgRunner } from "./db.js"

/** Inserts a row object (its keys come from typed code, never from input) and answers the row. */
export const insertRow = (q: PgRunner, table: string, row: Record<string, unknown>, returning = "*") => {
  const cols = Object.keys(row)
  return q.run(`INSERT INTO ${table} (${cols.join(", ")}) VALUES (${cols.map((c) => "@" + c).join(", ")}) RETURNING ${returning}`, row)
}
const ids = (list: ReadonlyArray<Id>) => [...list]
const none = <A>(): Effect.Effect<Array<A>> => Effect.succeed([])

const maybeUser = (row: unknown) => (row === undefined ? undefined : toUser(row))
const adminFilter = (f: { is_admin?: boolean }) => (f.is_admin === undefined ? "" : `WHERE is_admin = ${f.is_admin ? 1 : 0}`)

export const makeUsersRepo = (q: PgRunner): UsersRepo => ({
  byId: (id) => Effect.map(q.get(`SELECT ${USER_COLUMNS} FROM users WHERE id = ?`, id), maybeUser),
  byIds: (list) =>
    list.length === 0 ? none() : Effect.map(q.all(`SELECT ${USER_COLUMNS} FROM users WHERE id = ANY(?) ORDER BY id`, ids(list)), (r) => r.map(toUser)),
  byEmail: (email) => Effect.map(q.get(`SELECT ${USER_COLUMNS} FROM users WHERE email = ?`, email), maybeUser),
  byUsername: (username) => Effect.map(q.get(`SELECT ${USER_COLUMNS} FROM users WHERE username = ?`, username), maybeUser),
  byApiKeyHash: (hash) =>
    Effect.map(q.get<Record<string, unknown> & { api_key_hash: string }>(`SELECT ${USER_COLUMNS}, api_key_hash FROM users WHERE api_key_hash = ?`, hash), (row) =>
      row === undefined ? undefined : { user: toUser(row), api_key_hash: row.api_key_hash }),
  byIdentity: (type, uid) =>
    Effect.map(
      q.get(`SELECT ${USER_COLUMNS.split(", ").map((c) => `u.${c}`).join(", ")} FROM users u JOIN identities i ON i.user_id = u.id
             WHERE i.identity_type = ? AND i.uid = ?`, type, uid),
      maybeUser
    ),
  list: (filter, page) =>
    Effect.map(q.all(`SELECT ${USER_COLUMNS} FROM users ${adminFilter(filter)} ORDER BY id LIMIT ? OFFSET ?`, page.limit, page.offset), (r) => r.map(toUser)),
  count: (filter) => Effect.map(q.get<{ n: number }>(`SELECT count(*) AS n FROM users ${adminFilter(filter)}`), (r) => r!.n),
  identitiesOf: (list) =>
    list.length === 0
      ? none()
      : q.all<Identity>(`SELECT id, user_id, identity_type, uid, email, name FROM identities WHERE user_id = ANY(?) ORDER BY id`, ids(list)),
  insert: (u) =>
    Effect.map(
      q.run(`INSERT INTO users (name, username, email, country, is_admin, bot, api_key_hash, created_at, updated_at)
             VALUES (@name, @username, @email, @country, @is_admin, @bot, @api_key_hash, @created_at, @updated_at) RETURNING ${USER_COLUMNS}`, fromBools({ ...u })),
      (r) => toUser(r.rows[0])
    ),
  update: (id, patch) => {
    const row = fromBools(patch)
    return Object.keys(row).length === 0 ? Effect.void : Effect.asVoid(q.run(`UPDATE users SET ${setClause(row)} WHERE id = @id`, { ...row, id }))
  },
  setApiKeyHash: (id, hash) => Effect.asVoid(q.run(`UPDATE users SET api_key_hash = ? WHERE id = ?`, hash, id)),
  addIdentity: (i) =>
    Effect.map(q.run(`INSERT INTO identities (user_id, identity_type, uid, email, name) VALUES (@user_id, @identity_type, @uid, @email, @name) RETURNING id`, i), (r) => ({
      ...i,
      id: r.rows[0]!.id as number
    })),
  deleteIdentities: (userId) => Effect.asVoid(q.run(`DELETE FROM identities WHERE user_id = ?`, userId)),
  delete: (id) => Effect.asVoid(q.run(`DELETE FROM users WHERE id = ?`, id))
})

const maybeGroup = (row: unknown) => (row === undefined ? undefined : toGroup(row))

export const makeGroupsRepo = (q: PgRunner): GroupsRepo => {
  const byId = (id: Id) => Effect.map(q.get(`SELECT * FROM groups WHERE id = ?`, id), maybeGroup)
  return {
    byId,
    byIds: (list) => (list.length === 0 ? none() : Effect.map(q.all(`SELECT * FROM groups WHERE id = ANY(?) ORDER BY id`, ids(list)), (r) => r.map(toGroup))),
    byRef: (ref) =>
      // ids are bigint: any number JavaScript holds exactly (a longer one is looked up as a key)
      Effect.flatMap(/^[0-9]{1,15}$/.test(ref) ? byId(Number(ref)) : Effect.succeed(undefined), (found) =>
        found !== undefined
          ? Effect.succeed(found)
          : Effect.map(q.get(`SELECT * FROM groups WHERE key = ? OR handle = ? ORDER BY key = ? DESC LIMIT 1`, ref, ref, ref), maybeGroup)),
    byHandle: (handle) => Effect.map(q.get(`SELECT * FROM groups WHERE handle = ?`, handle), maybeGroup),
    list: () => Effect.map(q.all(`SELECT * FROM groups ORDER BY id`), (r) => r.map(toGroup)),
    forUser: (userId) =>
      Effect.map(
        q.all(`SELECT g.* FROM groups g JOIN memberships m ON m.group_id = g.id WHERE m.user_id = ? AND m.revoked_at IS NULL ORDER BY g.id`, userId),
        (r) => r.map(toGroup)
      ),
    withCounts: (list) =>
      list.length === 0 ? none() : Effect.map(q.all(`SELECT * FROM groups WHERE id = ANY(?) ORDER BY id`, ids(list)), (r) => r.map(countedGroup)),
    insert: (g) => Effect.map(insertRow(q, "groups", fromBools({ ...g, updated_at: g.created_at })), (r) => toGroup(r.rows[0])),
    update: (id, patch) => {
      const row = fromBools(patch)
      return Effect.asVoid(q.run(`UPDATE groups SET ${setClause(row)} WHERE id = @id`, { ...row, id }))
    },
    children: (parents) =>
      parents.length === 0 ? none() : Effect.map(q.all(`SELECT * FROM groups WHERE parent_id = ANY(?) ORDER BY id`, ids(parents)), (r) => r.map(toGroup))
  }
}

const maybeMembership = (row: unknown) => (row === undefined ? undefined : toMembership(row))

export const makeMembershipsRepo = (q: PgRunner): MembershipsRepo => ({
  byId: (id) => Effect.map(q.get(`SELECT * FROM memberships WHERE id = ?`, id), maybeMembership),
  activeForUser: (userId) =>
    Effect.map(q.all(`SELECT * FROM memberships WHERE user_id = ? AND revoked_at IS NULL ORDER BY id`, userId), (r) => r.map(toMembership)),
  activeFor: (groupId, userId) =>
    Effect.map(q.get(`SELECT * FROM memberships WHERE group_id = ? AND user_id = ? AND revoked_at IS NULL`, groupId, userId), maybeMembership),
  activeInGroup: (groupId, page) =>
    Effect.map(
      q.all(`SELECT * FROM memberships WHERE group_id = ? AND revoked_at IS NULL ORDER BY id LIMIT ? OFFSET ?`, groupId, page.limit, page.offset),
      (r) => r.map(toMembership)
    ),
  countActiveInGroup: (groupId) =>
    Effect.map(q.get<{ n: number }>(`SELECT count(*) AS n FROM memberships WHERE group_id = ? AND revoked_at IS NULL`, groupId), (r) => r!.n),
  activeEmails: (groupId) =>
    Effect.map(
      q.all<Record<string, unknown> & { user_email: string }>(
        `SELECT m.*, u.email AS user_email FROM memberships m JOIN users u ON u.id = m.user_id
         WHERE m.group_id = ? AND m.revoked_at IS NULL AND u.deactivated_at IS NULL AND u.email IS NOT NULL ORDER BY m.id`,
        groupId
      ),
      (rows) => rows.map(({ user_email, ...m }) => ({ membership: toMembership(m), email: user_email }))
    ),
  insert: (m) =>
    Effect.map(
      q.run(`INSERT INTO memberships (group_id, user_id, inviter_id, admin, delegate, title, accepted_at, created_at, updated_at)
             VALUES (@group_id, @user_id, @inviter_id, @admin, @delegate, @title, @accepted_at, @created_at, @created_at) RETURNING *`, fromBools({ ...m })),
      (r) => toMembership(r.rows[0])
    ),
  accept: (id, at) => Effect.asVoid(q.run(`UPDATE memberships SET accepted_at = ?, updated_at = ? WHERE id = ? AND accepted_at IS NULL`, at, at, id)),
  revoke: (id, at, revokerId) =>
    Effect.asVoid(q.run(`UPDATE memberships SET revoked_at = ?, revoker_id = ?, updated_at = ? WHERE id = ? AND revoked_at IS NULL`, at, revokerId, at, id)),
  revokeAllOfUser: (userId, at, revokerId) =>
    Effect.map(
      q.run(`UPDATE memberships SET revoked_at = ?, revoker_id = ?, updated_at = ? WHERE user_id = ? AND revoked_at IS NULL`, at, revokerId, at, userId),
      (r) => r.changes
    ),
  restoreRevokedAt: (userId, at) =>
    Effect.map(
      q.run(`UPDATE memberships SET revoked_at = NULL, revoker_id = NULL, updated_at = ? WHERE user_id = ? AND revoked_at = ?
             AND NOT EXISTS (SELECT 1 FROM memberships o WHERE o.user_id = memberships.user_id
                             AND o.group_id = memberships.group_id AND o.revoked_at IS NULL)`, at, userId, at),
      (r) => r.changes
    )
})

const maybeTopic = (row: unknown) => (row === undefined ? undefined : toTopic(row))

/** Id lists as arrays. */
export const PG_IDS: IdList = { has: (column, param, of = "id") => `${column} = ANY(@${param}::${of === "id" ? "bigint" : "text"}[])`, bind: (list) => [...list] }
export const where = (filter: TopicFilter) => scopeWhere(filter, PG_IDS)
export const params = (scope: TopicScope, filter: TopicFilter) => scopeParams(scope, filter, PG_IDS)

export const makeTopicsRepo = (q: PgRunner): TopicsRepo => ({
  byId: (id) => Effect.map(q.get(`SELECT * FROM topics WHERE id = ?`, id), maybeTopic),
  byIds: (list) => (list.length === 0 ? none() : Effect.map(q.all(`SELECT * FROM topics WHERE id = ANY(?)`, ids(list)), (r) => r.map(toTopic))),
  visible: (scope, filter, page) =>
    Effect.map(
      q.all(`SELECT t.* ${where(filter)} ORDER BY t.last_activity_at DESC, t.id DESC LIMIT @limit OFFSET @offset`, {
        ...params(scope, filter),
        limit: page.limit,
        offset: page.offset
      }),
      (r) => r.map(toTopic)
    ),
  countVisible: (scope, filter) => Effect.map(q.get<{ n: number }>(`SELECT count(*) AS n ${where(filter)}`, params(scope, filter)), (r) => r!.n),
  insert: (t) => Effect.map(insertRow(q, "topics", topicRow({ ...t, updated_at: t.created_at })), (r) => toTopic(r.rows[0])),
  update: (id, patch) => {
    const row = topicRow(patch)
    return Effect.asVoid(q.run(`UPDATE topics SET ${setClause(row)} WHERE id = @id`, { ...row, id }))
  }
})

export const makeDiscussionsRepo = (q: PgRunner): DiscussionsRepo => ({
  byId: (id) => q.get<Discussion>(`SELECT * FROM discussions WHERE id = ?`, id),
  byKey: (key) => q.get<Discussion>(`SELECT * FROM discussions WHERE key = ?`, key),
  byTopicIds: (list) => (list.length === 0 ? none() : q.all<Discussion>(`SELECT * FROM discussions WHERE topic_id = ANY(?)`, ids(list))),
  insert: (d) =>
    Effect.map(
      q.run(`INSERT INTO discussions (key, topic_id, author_id, title, description, description_format, created_at, updated_at)
             VALUES (@key, @topic_id, @author_id, @title, @description, @description_format, @created_at, @created_at) RETURNING *`, d),
      (r) => r.rows[0] as unknown as Discussion
    ),
  update: (id, patch) => Effect.asVoid(q.run(`UPDATE discussions SET ${setClause(patch)} WHERE id = @id`, { ...patch, id }))
})

export const makeCommentsRepo = (q: PgRunner): CommentsRepo => ({
  byId: (id) => q.get<Comment>(`${SELECT_COMMENT} WHERE c.id = ?`, id),
  byIds: (list) => (list.length === 0 ? none() : q.all<Comment>(`${SELECT_COMMENT} WHERE c.id = ANY(?) ORDER BY c.id`, ids(list))),
  insert: (c) =>
    Effect.map(
      q.run(`WITH c AS (INSERT INTO comments (discussion_id, parent_id, author_id, body, body_format, created_at, updated_at)
             VALUES (@discussion_id, @parent_id, @author_id, @body, @body_format, @created_at, @created_at) RETURNING *)
             SELECT c.*, d.topic_id FROM c JOIN discussions d ON d.id = c.discussion_id`, c),
      (r) => r.rows[0] as unknown as Comment
    ),
  update: (id, patch) => Effect.asVoid(q.run(`UPDATE comments SET ${setClause(patch)} WHERE id = @id`, { ...patch, id }))
})

export const makeItemsRepo = (q: PgRunner): ItemsRepo => ({
  ofTopic: (topicId) => q.all<ThreadItem>(`SELECT * FROM topic_items WHERE topic_id = ? ORDER BY sequence_id`, topicId),
  byId: (id) => q.get<ThreadItem>(`SELECT * FROM topic_items WHERE id = ?`, id),
  byItemable: (type, id) => q.get<ThreadItem>(`SELECT * FROM topic_items WHERE itemable_type = ? AND itemable_id = ? ORDER BY id LIMIT 1`, type, id),
  append: Effect.fnUntraced(function*({ parent, root, ...item }) {
    // the thread's row is locked first: two servers appending to one thread take their sequence ids in turn
    yield* q.run(`UPDATE topics SET items_count = items_count + 1 WHERE id = ?`, item.topic_id)
    const sequence_id = root
      ? 0
      : (yield* q.get<{ n: number }>(`SELECT coalesce(max(sequence_id), 0) + 1 AS n FROM topic_items WHERE topic_id = ?`, item.topic_id))!.n
    let position = 0
    let position_key: string | null = null
    if (parent !== null) {
      position = (yield* q.run(`UPDATE topic_items SET child_count = child_count + 1 WHERE id = ? RETURNING child_count`, parent.id)).rows[0]!
        .child_count as number
      position_key = parent.position_key === null ? positionSegment(position) : `${parent.position_key}-${positionSegment(position)}`
    }
    const inserted = yield* q.run(
      `INSERT INTO topic_items (topic_id, kind, sequence_id, parent_id, depth, position, position_key, itemable_type, itemable_id, actor_id, created_at)
       VALUES (@topic_id, @kind, @sequence_id, @parent_id, @depth, @position, @position_key, @itemable_type, @itemable_id, @actor_id, @created_at) RETURNING *`,
      { ...item, sequence_id, parent_id: parent?.id ?? null, depth: parent === null ? 0 : parent.depth + 1, position, position_key }
    )
    return inserted.rows[0] as unknown as ThreadItem
  })
})

export const makeReactionsRepo = (q: PgRunner): ReactionsRepo => ({
  byId: (id) => q.get<Reaction>(`SELECT * FROM reactions WHERE id = ?`, id),
  ofTopic: (topicId) => q.all<Reaction>(`SELECT * FROM reactions WHERE topic_id = ? ORDER BY id`, topicId),
  ofReactables: (type, list) =>
    list.length === 0 ? none() : q.all<Reaction>(`SELECT * FROM reactions WHERE reactable_type = ? AND reactable_id = ANY(?) ORDER BY id`, type, ids(list)),
  find: (r) =>
    q.get<Reaction>(
      `SELECT * FROM reactions WHERE reactable_type = ? AND reactable_id = ? AND user_id = ? AND reaction = ?`,
      r.reactable_type,
      r.reactable_id,
      r.user_id,
      r.reaction
    ),
  insert: (r) =>
    Effect.map(
      q.run(`INSERT INTO reactions (topic_id, reactable_type, reactable_id, user_id, reaction, created_at)
             VALUES (@topic_id, @reactable_type, @reactable_id, @user_id, @reaction, @created_at) RETURNING id`, r),
      (res) => ({ ...r, id: res.rows[0]!.id as number })
    ),
  delete: (id) => Effect.asVoid(q.run(`DELETE FROM reactions WHERE id = ?`, id))
})

export const makeReadersRepo = (q: PgRunner): ReadersRepo => ({
  find: (topicId, userId) =>
    Effect.map(q.get(`SELECT * FROM topic_readers WHERE topic_id = ? AND user_id = ?`, topicId, userId), (row) => (row === undefined ? undefined : toReader(row))),
  upsert: (r) =>
    Effect.map(
      q.run(`INSERT INTO topic_readers (topic_id, user_id, inviter_id, guest, created_at)
             VALUES (@topic_id, @user_id, @inviter_id, @guest, @created_at)
             ON CONFLICT (topic_id, user_id) DO UPDATE SET guest = GREATEST(topic_readers.guest, excluded.guest), revoked_at = NULL
             RETURNING *`, fromBools({ ...r })),
      (res) => toReader(res.rows[0])
    ),
  guestsOf: (topicId) =>
    Effect.map(q.all<{ user_id: number }>(`SELECT user_id FROM topic_readers WHERE topic_id = ? AND guest = 1 AND revoked_at IS NULL`, topicId), (r) =>
      r.map((x) => x.user_id))
})
