/** Groups, with the counters the triggers keep on their rows, and memberships. */
import { Effect } from "effect"
import { Group, GroupCounts, type Id, LiveEvent, Membership, MembershipRequest, Notification, Tag, Version } from "../domain/records.js"
import { columnValue } from "../domain/model.js"
import type { GroupsRepo, LiveRepo, MembershipRequestsRepo, MembershipsRepo, NotificationsRepo, TagsRepo, VersionsRepo } from "../ports/store.js"
import { countedGroup } from "../sql/records.js"
import { epochCache } from "./cache.js"
import { insertRow, setClause, type SqlClient } from "./client.js"

type Counted = { readonly group: Group; readonly counts: GroupCounts }

/** Where a request remembers a group it has read, with its counters (SqlClient.remembered). */
const groupKey = (id: Id) => `groups:${id}`
const joinedGroup = Group.joined("g")
const joinedCounts = GroupCounts.joined("g")

/**
 * A group read beside another record (`LEFT JOIN groups g`): its columns and counters, and what keeps it for the
 * request, so that the group's own read (an access check, a document's side-load) finds it.
 */
export const groupAhead = {
  columns: `${joinedGroup.columns}, ${joinedCounts.columns}`,
  /** What `SqlClient.rememberBeside` keeps of it (nothing for a row without a group). */
  entries: (row: Record<string, unknown>): ReadonlyArray<readonly [string, unknown]> =>
    row["g.id"] === null || row["g.id"] === undefined
      ? []
      : [[groupKey(row["g.id"] as Id), [{ group: joinedGroup.fromRow(row), counts: joinedCounts.fromRow(row) }]]]
}

export const makeGroupsRepo = (c: SqlClient): GroupsRepo => {
  const { ids } = c.dialect
  // one group (a document's access check and its side-load read the same one) is read once per snapshot
  const withCounts = (list: ReadonlyArray<Id>): Effect.Effect<ReadonlyArray<Counted>> =>
    list.length === 0
      ? Effect.succeed([])
      : list.length === 1
      ? c.remembered(groupKey(list[0]!), c.all(`SELECT * FROM groups WHERE id = ?`, [list[0]], countedGroup))
      : c.all(`SELECT * FROM groups WHERE ${ids.has("id", "ids")} ORDER BY id`, { ids: ids.bind(list) }, countedGroup)
  const byId = (id: Id): Effect.Effect<Group | undefined> => Effect.map(withCounts([id]), (found) => found[0]?.group)
  return {
    byId,
    byIds: (list) => Effect.map(withCounts(list), (found) => found.map((x) => x.group)),
    // by id first (the row remembered for the snapshot, which the group's document reads again), then key, then handle;
    // an id is any number JavaScript holds exactly (a longer one is looked up as a key)
    byRef: (ref) =>
      Effect.flatMap(/^[0-9]{1,15}$/.test(ref) ? byId(Number(ref)) : Effect.succeed(undefined), (found) =>
        found !== undefined
          ? Effect.succeed(found)
          : c.get(`SELECT * FROM groups WHERE key = ? OR handle = ? ORDER BY CASE WHEN key = ? THEN 0 ELSE 1 END LIMIT 1`, [ref, ref, ref], Group.fromRow)),
    byHandle: (handle) => c.get(`SELECT * FROM groups WHERE handle = ?`, [handle], Group.fromRow),
    list: () => c.all(`SELECT * FROM groups ORDER BY id`, [], Group.fromRow),
    forUser: (userId) =>
      c.all(`SELECT g.* FROM groups g JOIN memberships m ON m.group_id = g.id WHERE m.user_id = ? AND m.revoked_at IS NULL AND g.archived_at IS NULL ORDER BY g.id`, [userId], Group.fromRow),
    withCounts,
    insert: (g) => Effect.map(insertRow(c, "groups", Group.toRow(Object.assign({}, g, { updated_at: g.created_at }))), (r) => Group.fromRow(r.rows[0])),
    update: (id, patch) => {
      const row = Group.toRow(patch)
      return Effect.asVoid(c.run(`UPDATE groups SET ${setClause(row)} WHERE id = @id`, { ...row, id }))
    },
    children: (parents) =>
      parents.length === 0
        ? Effect.succeed([])
        : c.all(`SELECT * FROM groups WHERE ${ids.has("parent_id", "ids")} AND archived_at IS NULL ORDER BY id`, { ids: ids.bind(parents) }, Group.fromRow),
    setArchived: (list, at, now, was) =>
      list.length === 0 ? Effect.void : Effect.gen(function*() {
        const only = at === null ? " AND archived_at = @was" : ""
        yield* c.run(`UPDATE groups SET archived_at = @at, updated_at = @now WHERE ${ids.has("id", "ids")}${only}`, { at, now, ids: ids.bind(list), ...(at === null ? { was: was ?? null } : {}) })
        // the members' access is read from their memberships (activeForUser): touching them moves its cache on
        yield* c.run(`UPDATE memberships SET updated_at = @now WHERE ${ids.has("group_id", "ids")} AND revoked_at IS NULL`, { now, ids: ids.bind(list) })
      }),
    archivedBy: (at) =>
      c.all(`SELECT * FROM groups WHERE archived_at IS NOT NULL AND archived_at <= ? ORDER BY CASE WHEN parent_id IS NULL THEN 1 ELSE 0 END, id`, [at], Group.fromRow),
    purgeTopics: (groupId, limit) =>
      Effect.map(c.run(`DELETE FROM topics WHERE id IN (SELECT id FROM topics WHERE group_id = ? ORDER BY id LIMIT ?)`, [groupId, limit]), (r) => r.changes),
    delete: (id) => Effect.asVoid(c.run(`DELETE FROM groups WHERE id = ?`, [id])),
    explore: (q, page) => {
      const like = `%${q.toLowerCase().replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`
      return c.all(
        `SELECT * FROM groups WHERE parent_id IS NULL AND archived_at IS NULL AND is_visible_to_public = TRUE AND discussion_privacy_options <> 'private_only'
         AND (lower(name) LIKE @like ESCAPE '\\' OR lower(coalesce(description, '')) LIKE @like ESCAPE '\\')
         ORDER BY accepted_memberships_count DESC, id LIMIT @limit OFFSET @offset`,
        { like, limit: page.limit, offset: page.offset },
        countedGroup
      )
    },
    nextJoinLink: (id, at) => Effect.asVoid(c.run(`UPDATE groups SET join_link_epoch = join_link_epoch + 1, updated_at = ? WHERE id = ?`, [at, id]))
  }
}

export const makeMembershipRequestsRepo = (c: SqlClient): MembershipRequestsRepo => ({
  insert: (r) =>
    Effect.map(c.run(`INSERT INTO membership_requests (group_id, requestor_id, introduction, created_at)
                      VALUES (@group_id, @requestor_id, @introduction, @created_at) RETURNING *`, r), (x) => MembershipRequest.fromRow(x.rows[0])),
  waiting: (groupId, userId) =>
    c.get(`SELECT * FROM membership_requests WHERE group_id = ? AND requestor_id = ? AND response IS NULL`, [groupId, userId], MembershipRequest.fromRow),
  byId: (id) => c.get(`SELECT * FROM membership_requests WHERE id = ?`, [id], MembershipRequest.fromRow),
  inGroup: (groupId, answered) =>
    Effect.zipWith(
      c.all(`SELECT * FROM membership_requests WHERE group_id = ? AND response IS NULL ORDER BY id`, [groupId], MembershipRequest.fromRow),
      c.all(`SELECT * FROM membership_requests WHERE group_id = ? AND response IS NOT NULL ORDER BY responded_at DESC, id DESC LIMIT ?`, [groupId, answered], MembershipRequest.fromRow),
      (waiting, done) => [...waiting, ...done]
    ),
  respond: (id, a) =>
    Effect.map(c.run(`UPDATE membership_requests SET response = @response, responder_id = @responder_id, response_message = @response_message,
                      responded_at = @responded_at WHERE id = @id AND response IS NULL`, { ...a, id }), (r) => r.changes > 0)
})

export const makeTagsRepo = (c: SqlClient): TagsRepo => {
  return {
    inGroup: (groupId) => c.all(`SELECT * FROM tags WHERE group_id = ? ORDER BY lower(name), id`, [groupId], Tag.fromRow),
    byId: (id) => c.get(`SELECT * FROM tags WHERE id = ?`, [id], Tag.fromRow),
    insert: (t) => Effect.map(c.run(`INSERT INTO tags (group_id, name, color, created_at) VALUES (@group_id, @name, @color, @created_at) RETURNING *`, t), (r) => Tag.fromRow(r.rows[0])),
    update: (id, t) => Effect.asVoid(c.run(`UPDATE tags SET name = ?, color = ? WHERE id = ?`, [t.name, t.color, id])),
    delete: (id) => Effect.asVoid(c.run(`DELETE FROM tags WHERE id = ?`, [id])),
    retag: (groupId, from, to, at) =>
      Effect.gen(function*() {
        const rows = yield* c.all(`SELECT id, tags FROM topics t WHERE group_id = @group_id AND ${c.dialect.tagged}`, { group_id: groupId, tag: from },
          (r) => ({ id: Number(r.id), tags: (typeof r.tags === "string" ? JSON.parse(r.tags) : r.tags) as Array<string> }))
        for (const { id, tags } of rows) {
          const next = [...new Set(tags.flatMap((t) => (t === from ? (to === null ? [] : [to]) : [t])))]
          yield* c.run(`UPDATE topics SET tags = ?, updated_at = ? WHERE id = ?`, [JSON.stringify(next), at, id])
        }
        return rows.length
      })
  }
}

export const makeVersionsRepo = (c: SqlClient): VersionsRepo => ({
  insert: (v) =>
    Effect.map(c.run(`INSERT INTO versions (item_type, item_id, whodunnit, object_changes, created_at) VALUES (@item_type, @item_id, @whodunnit, @object_changes, @created_at) RETURNING *`,
      Version.toRow(v)), (r) => Version.fromRow(r.rows[0])),
  of: (itemType, itemId) => c.all(`SELECT * FROM versions WHERE item_type = ? AND item_id = ? ORDER BY id`, [itemType, itemId], Version.fromRow),
  any: (itemType, itemId) =>
    Effect.map(c.get(`SELECT 1 AS one FROM versions WHERE item_type = ? AND item_id = ? LIMIT 1`, [itemType, itemId]), (r) => r !== undefined)
})

export const makeMembershipsRepo = (c: SqlClient): MembershipsRepo => {
  // a user's live memberships, read by every authenticated request (the permission rules' Access), as last read
  // (cache.ts); the answer is shared, so it is frozen
  const byUser = epochCache<Id, ReadonlyArray<Membership>>(c, "memberships", 10_000)
  return {
    byId: (id) => c.get(`SELECT * FROM memberships WHERE id = ?`, [id], Membership.fromRow),
    // remembered for the snapshot too, as a key's owner (users.ts)
    activeForUser: (userId) =>
      c.remembered(`memberships:user:${userId}`, byUser.through(userId,
        // a deleted group's memberships give nothing (its archiving touches them: this is read again)
        Effect.map(c.all(`SELECT m.* FROM memberships m JOIN groups g ON g.id = m.group_id
                          WHERE m.user_id = ? AND m.revoked_at IS NULL AND g.archived_at IS NULL ORDER BY m.id`, [userId], (row) => Object.freeze(Membership.fromRow(row))),
          (list): ReadonlyArray<Membership> => Object.freeze(list)))),
    activeFor: (groupId, userId) =>
      c.get(`SELECT * FROM memberships WHERE group_id = ? AND user_id = ? AND revoked_at IS NULL`, [groupId, userId], Membership.fromRow),
    activeInGroup: (groupId, page) =>
      c.all(`SELECT * FROM memberships WHERE group_id = ? AND revoked_at IS NULL ORDER BY id LIMIT ? OFFSET ?`, [groupId, page.limit, page.offset], Membership.fromRow),
    acceptedAdmins: (groupId) =>
      c.all(`SELECT * FROM memberships WHERE group_id = ? AND revoked_at IS NULL AND admin = TRUE AND accepted_at IS NOT NULL ORDER BY id`, [groupId], Membership.fromRow),
    countActiveInGroup: (groupId) =>
      Effect.map(c.get(`SELECT count(*) AS n FROM memberships WHERE group_id = ? AND revoked_at IS NULL`, [groupId]), (r) => Number(r!.n)),
    activeEmails: (groupId) =>
      c.all(
        `SELECT m.*, u.email AS user_email FROM memberships m JOIN users u ON u.id = m.user_id
         WHERE m.group_id = ? AND m.revoked_at IS NULL AND u.deactivated_at IS NULL AND u.email IS NOT NULL ORDER BY m.id`,
        [groupId],
        ({ user_email, ...m }) => ({ membership: Membership.fromRow(m), email: user_email as string })
      ),
    insert: (m) =>
      Effect.map(
        c.run(`INSERT INTO memberships (group_id, user_id, inviter_id, admin, delegate, title, accepted_at, created_at, updated_at)
               VALUES (@group_id, @user_id, @inviter_id, @admin, @delegate, @title, @accepted_at, @created_at, @created_at) RETURNING *`, Membership.toRow(m)),
        (r) => Membership.fromRow(r.rows[0])
      ),
    setAdmin: (id, admin, at) => Effect.asVoid(c.run(`UPDATE memberships SET admin = ?, updated_at = ? WHERE id = ?`, [columnValue(admin), at, id])),
    accept: (id, at) => Effect.asVoid(c.run(`UPDATE memberships SET accepted_at = ?, updated_at = ? WHERE id = ? AND accepted_at IS NULL`, [at, at, id])),
    revoke: (id, at, revokerId) =>
      Effect.asVoid(c.run(`UPDATE memberships SET revoked_at = ?, revoker_id = ?, updated_at = ? WHERE id = ? AND revoked_at IS NULL`, [at, revokerId, at, id])),
    revokeAllOfUser: (userId, at, revokerId) =>
      Effect.map(c.run(`UPDATE memberships SET revoked_at = ?, revoker_id = ?, updated_at = ? WHERE user_id = ? AND revoked_at IS NULL`, [at, revokerId, at, userId]),
        (r) => r.changes),
    restoreRevokedAt: (userId, at) =>
      Effect.map(
        c.run(`UPDATE memberships SET revoked_at = NULL, revoker_id = NULL, updated_at = ? WHERE user_id = ? AND revoked_at = ?
               AND NOT EXISTS (SELECT 1 FROM memberships o WHERE o.user_id = memberships.user_id
                               AND o.group_id = memberships.group_id AND o.revoked_at IS NULL)`, [at, userId, at]),
        (r) => r.changes
      )
  }
}

export const makeLiveRepo = (c: SqlClient): LiveRepo => ({
  append: (e) => Effect.asVoid(c.run(`INSERT INTO live_events (kind, group_id, topic_id, user_id, created_at) VALUES (@kind, @group_id, @topic_id, @user_id, @created_at)`, e)),
  after: (afterId, limit) => c.all(`SELECT * FROM live_events WHERE id > ? ORDER BY id LIMIT ?`, [afterId, limit], LiveEvent.fromRow),
  since: (at, limit) => c.all(`SELECT * FROM live_events WHERE created_at > ? ORDER BY id LIMIT ?`, [at, limit], LiveEvent.fromRow),
  latestId: Effect.map(c.get(`SELECT coalesce(max(id), 0) AS id FROM live_events`), (r) => Number(r?.id ?? 0)),
  prune: (before) => Effect.map(c.run(`DELETE FROM live_events WHERE created_at < ?`, [before]), (r) => r.changes)
})

export const makeNotificationsRepo = (c: SqlClient): NotificationsRepo => {
  const { ids } = c.dialect
  return {
    insert: (n) =>
      Effect.asVoid(c.run(`INSERT INTO notifications (user_id, kind, actor_id, title, path, group_id, topic_id, created_at)
                           VALUES (@user_id, @kind, @actor_id, @title, @path, @group_id, @topic_id, @created_at)`, n)),
    unseenCount: (userId) =>
      Effect.map(c.get(`SELECT count(*) AS n FROM notifications WHERE user_id = ? AND seen_at IS NULL`, [userId]), (r) => Number(r?.n ?? 0)),
    latest: (userId, limit) =>
      c.all(`SELECT * FROM notifications WHERE user_id = ? ORDER BY CASE WHEN seen_at IS NULL THEN 0 ELSE 1 END, id DESC LIMIT ?`, [userId, limit], Notification.fromRow),
    markSeen: (userId, list, at) =>
      list === undefined
        ? Effect.asVoid(c.run(`UPDATE notifications SET seen_at = @at WHERE user_id = @user_id AND seen_at IS NULL`, { at, user_id: userId }))
        : list.length === 0
        ? Effect.void
        : Effect.asVoid(c.run(`UPDATE notifications SET seen_at = @at WHERE user_id = @user_id AND seen_at IS NULL AND ${ids.has("id", "ids")}`,
          { at, user_id: userId, ids: ids.bind(list) }))
  }
}
