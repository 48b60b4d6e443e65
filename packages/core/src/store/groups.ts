/** Groups, with the counters the triggers keep on their rows, and memberships. */
import { Effect } from "effect"
import { Group, GroupCounts, type Id, Membership } from "../domain/records.js"
import { columnValue } from "../domain/model.js"
import type { GroupsRepo, MembershipsRepo } from "../ports/store.js"
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
      c.all(`SELECT g.* FROM groups g JOIN memberships m ON m.group_id = g.id WHERE m.user_id = ? AND m.revoked_at IS NULL ORDER BY g.id`, [userId], Group.fromRow),
    withCounts,
    insert: (g) => Effect.map(insertRow(c, "groups", Group.toRow(Object.assign({}, g, { updated_at: g.created_at }))), (r) => Group.fromRow(r.rows[0])),
    update: (id, patch) => {
      const row = Group.toRow(patch)
      return Effect.asVoid(c.run(`UPDATE groups SET ${setClause(row)} WHERE id = @id`, { ...row, id }))
    },
    children: (parents) =>
      parents.length === 0 ? Effect.succeed([]) : c.all(`SELECT * FROM groups WHERE ${ids.has("parent_id", "ids")} ORDER BY id`, { ids: ids.bind(parents) }, Group.fromRow)
  }
}

export const makeMembershipsRepo = (c: SqlClient): MembershipsRepo => {
  // a user's live memberships, read by every authenticated request (the permission rules' Access), as last read
  // (cache.ts); the answer is shared, so it is frozen
  const byUser = epochCache<Id, ReadonlyArray<Membership>>(c, "memberships", 10_000)
  return {
    byId: (id) => c.get(`SELECT * FROM memberships WHERE id = ?`, [id], Membership.fromRow),
    // remembered for the snapshot too, as a key's owner (users.ts)
    activeForUser: (userId) =>
      c.remembered(`memberships:user:${userId}`, byUser.through(userId,
        Effect.map(c.all(`SELECT * FROM memberships WHERE user_id = ? AND revoked_at IS NULL ORDER BY id`, [userId], (row) => Object.freeze(Membership.fromRow(row))),
          (list): ReadonlyArray<Membership> => Object.freeze(list)))),
    activeFor: (groupId, userId) =>
      c.get(`SELECT * FROM memberships WHERE group_id = ? AND user_id = ? AND revoked_at IS NULL`, [groupId, userId], Membership.fromRow),
    activeInGroup: (groupId, page) =>
      c.all(`SELECT * FROM memberships WHERE group_id = ? AND revoked_at IS NULL ORDER BY id LIMIT ? OFFSET ?`, [groupId, page.limit, page.offset], Membership.fromRow),
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
