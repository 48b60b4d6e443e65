import type { Membership } from "../domain/records.js"
import { type Access, isAdmin } from "./access.js"

/** An e-mail address is shown for the caller's own membership, or to administrators of the group. */
export const canSeeMemberEmail = (access: Access, membership: Membership): boolean =>
  membership.user_id === access.user.id || isAdmin(access, membership.group_id)

/** Which addresses a membership sync adds and removes (exact after normalisation, as Loomio). */
export const planMembershipSync = (
  requested: ReadonlyArray<string>,
  current: ReadonlyArray<string>
): { add: ReadonlyArray<string>; remove: ReadonlyArray<string> } => {
  const want = new Set(requested)
  const have = new Set(current)
  return {
    add: [...want].filter((e) => !have.has(e)),
    remove: [...have].filter((e) => !want.has(e))
  }
}
