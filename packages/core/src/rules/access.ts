import type { Id, Membership, User } from "../domain/records.js"

/**
 * What the rules know about the person acting: the user and their live memberships.
 * Instance admin status (`user.is_admin`) deliberately plays no part in any rule.
 */
export interface Access {
  readonly user: User
  readonly memberships: ReadonlyMap<Id, Membership>
}

/** The live memberships by group of a frozen list, made once: a cached list (store/groups.ts) is every request's. */
const byGroupOf = new WeakMap<ReadonlyArray<Membership>, ReadonlyMap<Id, Membership>>()

export const makeAccess = (user: User, memberships: ReadonlyArray<Membership>): Access => {
  let byGroup = byGroupOf.get(memberships)
  if (byGroup === undefined) {
    byGroup = new Map(memberships.filter((m) => m.revoked_at === null).map((m) => [m.group_id, m]))
    if (Object.isFrozen(memberships)) byGroupOf.set(memberships, byGroup)
  }
  return { user, memberships: byGroup }
}

/** A member holds a live (un-revoked) membership; a pending invitation counts, as in Loomio. */
export const isMember = (access: Access, groupId: Id | null): boolean =>
  groupId !== null && access.user.deactivated_at === null && access.memberships.has(groupId)

/** A signed-in person whose account is active (not the visitor, id 0, of the pages). */
export const isActivePerson = (access: Access): boolean => access.user.id !== 0 && access.user.deactivated_at === null

export const isAdmin = (access: Access, groupId: Id | null): boolean =>
  isMember(access, groupId) && access.memberships.get(groupId!)!.admin

/**
 * A signed-out visitor of the pages: id 0 names no user and there are no memberships, so every rule gives
 * them exactly what is public (public discussions of publicly visible groups), and nothing to write.
 */
export const VISITOR: Access = makeAccess({
  id: 0, name: null, username: null, email: null, email_sha256: null, country: null, time_zone: null, locale: null, catch_up: null, catch_up_sent_at: null, is_admin: false, bot: false,
  deactivated_at: null, deactivator_id: null, redacted_at: null, placeholder: false, created_at: "1970-01-01T00:00:00.000Z", updated_at: "1970-01-01T00:00:00.000Z"
}, [])
