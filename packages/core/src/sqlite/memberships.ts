import type { Id, Membership } from "../domain/records.js"
import type { MembershipsRepo } from "../ports/store.js"
import { epochCache } from "./caches.js"
import type { Runner } from "./db.js"
import { toMembership } from "../sql/records.js"
import { fromBools } from "../sql/rows.js"

const maybe = (row: unknown) => (row === undefined ? undefined : toMembership(row))

export const makeMembershipsRepo = (run: Runner): MembershipsRepo => {
  // a user's live memberships, read by every authenticated request (the permission rules' Access), as last
  // read (caches.ts); the answer is shared, so it is frozen
  const byUser = epochCache<Id, ReadonlyArray<Membership>>(run.epochs, "memberships", 10_000)
  return {
  byId: (id) => run.read((_, s) => maybe(s(`SELECT * FROM memberships WHERE id = ?`).get(id))),
  // kept for the turn's snapshot too, as a key's owner (users.ts)
  activeForUser: (userId) =>
    run.readKept(`memberships:user:${userId}`, (db, s) =>
      byUser.through(db, s, userId, () =>
        Object.freeze(
          s(`SELECT * FROM memberships WHERE user_id = ? AND revoked_at IS NULL ORDER BY id`).all(userId)
            .map((row) => Object.freeze(toMembership(row)))
        ))),
  activeFor: (groupId, userId) =>
    run.read((_, s) =>
      maybe(s(`SELECT * FROM memberships WHERE group_id = ? AND user_id = ? AND revoked_at IS NULL`).get(groupId, userId))),
  activeInGroup: (groupId, page) =>
    run.read((_, s) =>
      s(`SELECT * FROM memberships WHERE group_id = ? AND revoked_at IS NULL ORDER BY id LIMIT ? OFFSET ?`)
        .all(groupId, page.limit, page.offset).map(toMembership)),
  countActiveInGroup: (groupId) =>
    run.read((_, s) => (s(`SELECT count(*) AS n FROM memberships WHERE group_id = ? AND revoked_at IS NULL`).get(groupId) as { n: number }).n),
  activeEmails: (groupId) =>
    run.read((_, s) =>
      (s(`SELECT m.*, u.email AS user_email FROM memberships m JOIN users u ON u.id = m.user_id
          WHERE m.group_id = ? AND m.revoked_at IS NULL AND u.deactivated_at IS NULL AND u.email IS NOT NULL ORDER BY m.id`)
        .all(groupId) as Array<Record<string, unknown> & { user_email: string }>)
        .map(({ user_email, ...m }) => ({ membership: toMembership(m), email: user_email }))),
  insert: (m) =>
    run.write((_, s) => {
      const info = s(
        `INSERT INTO memberships (group_id, user_id, inviter_id, admin, delegate, title, accepted_at, created_at, updated_at)
         VALUES (@group_id, @user_id, @inviter_id, @admin, @delegate, @title, @accepted_at, @created_at, @created_at)`
      ).run(fromBools({ ...m }))
      return toMembership(s(`SELECT * FROM memberships WHERE id = ?`).get(info.lastInsertRowid))
    }),
  accept: (id, at) =>
    run.write((_, s) => void s(`UPDATE memberships SET accepted_at = ?, updated_at = ? WHERE id = ? AND accepted_at IS NULL`).run(at, at, id)),
  revoke: (id, at, revokerId) =>
    run.write((_, s) =>
      void s(`UPDATE memberships SET revoked_at = ?, revoker_id = ?, updated_at = ? WHERE id = ? AND revoked_at IS NULL`)
        .run(at, revokerId, at, id)),
  revokeAllOfUser: (userId, at, revokerId) =>
    run.write((_, s) =>
      s(`UPDATE memberships SET revoked_at = ?, revoker_id = ?, updated_at = ? WHERE user_id = ? AND revoked_at IS NULL`)
        .run(at, revokerId, at, userId).changes),
  restoreRevokedAt: (userId, at) =>
    run.write((_, s) =>
      s(`UPDATE memberships SET revoked_at = NULL, revoker_id = NULL, updated_at = ? WHERE user_id = ? AND revoked_at = ?
         AND NOT EXISTS (SELECT 1 FROM memberships o WHERE o.user_id = memberships.user_id
                         AND o.group_id = memberships.group_id AND o.revoked_at IS NULL)`)
        .run(at, userId, at).changes)
  }
}
