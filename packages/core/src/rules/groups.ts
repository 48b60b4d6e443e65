import type { Group } from "../domain/records.js"
import { type Access, isAdmin, isMember } from "./access.js"

/** Loomio `ability/group.rb` show: public groups, members, and parent members where the group allows it. */
export const canShowGroup = (access: Access, group: Group): boolean =>
  group.is_visible_to_public ||
  isMember(access, group.id) ||
  (group.is_visible_to_parent_members && isMember(access, group.parent_id))

/** Adding and removing members through the API needs a group administrator (spec: Authentication 7). */
export const canManageMembers = (access: Access, group: Group): boolean => isAdmin(access, group.id)

/**
 * Inviting people from the group page: administrators, or any member where the group lets members add
 * members (Loomio's `add_members`). The API's membership sync (which can also remove) stays admin-only.
 */
export const canInvite = (access: Access, group: Group): boolean =>
  isAdmin(access, group.id) || (group.members_can_add_members && isMember(access, group.id))

/** Loomio shows a group's member list to its members and to administrators of its parent. */
export const canListMembers = (access: Access, group: Group): boolean =>
  isMember(access, group.id) || isAdmin(access, group.parent_id)

/** The displayed full name includes the parent's name, as Loomio's `full_name`. */
export const fullName = (group: Group, parent: Group | undefined): string =>
  parent === undefined ? group.name : `${parent.name} - ${group.name}`

/** Webhooks carry the group's content to an outside destination: group administrators only. */
export const canManageWebhooks = (access: Access, group: Group): boolean => isAdmin(access, group.id)

/**
 * Starting a group (decisions §12): anyone signed in, unless the server lets only its administrators start groups
 * (`onlyAdmins`: Loomio's FEATURES_DISABLE_CREATE_GROUP).
 */
export const canStartGroup = (access: Access, onlyAdmins: boolean): boolean =>
  access.user.id !== 0 && access.user.deactivated_at === null && (!onlyAdmins || access.user.is_admin)

/** A subgroup: one level deep (Loomio's `limit_inheritance`), started by the parent's administrators. */
export const canStartSubgroup = (access: Access, parent: Group): boolean => parent.parent_id === null && isAdmin(access, parent.id)

const HANDLE_MAX = 63

/** A handle made from a group's name (Loomio's parameterize): lowercase letters and digits joined by '-'; a subgroup's begins with its parent's. */
export const handleFrom = (name: string, parentHandle: string | null): string => {
  const words = name.normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "")
  return (parentHandle === null ? words : `${parentHandle}-${words}`).slice(0, HANDLE_MAX).replace(/-+$/, "")
}

/** Why a handle cannot be a new group's (decisions §12: a subgroup's begins with its parent's and '-'), or null. */
export const handleErrors = (handle: string, parentHandle: string | null | undefined): string | null =>
  !/^[a-z0-9][a-z0-9-]{1,62}$/.test(handle)
    ? "must be 2-63 lowercase letters, digits or '-'"
    : parentHandle === null
    ? "can only be given when the parent group has one"
    : parentHandle !== undefined && !handle.startsWith(`${parentHandle}-`)
    ? `must begin with ${parentHandle}-`
    : null
