import type { Id, Membership, User } from "../domain/records.js"

/**
 * What the rules know about the person acting: the user and their live memberships.
 * Instance admin status (`user.is_admin`) deliberately plays no part in any rule.
 */
export interface Access {
  readonly user: User
  readonly memberships: ReadonlyMap<Id, Membership>
}

export const makeAccess = (user: User, memberships: ReadonlyArray<Membership>): Access => ({
  user,
  memberships: new Map(memberships.filter((m) => m.revoked_at === null).map((m) => [m.group_id, m]))
})

/** A member holds a live (un-revoked) membership; a pending invitation counts, as in Loomio. */
export const isMember = (access: Access, groupId: Id | null): boolean =>
  groupId !== null && access.user.deactivated_at === null && access.memberships.has(groupId)

export const isAdmin = (access: Access, groupId: Id | null): boolean =>
  isMember(access, groupId) && access.memberships.get(groupId!)!.admin
