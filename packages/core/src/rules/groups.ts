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
