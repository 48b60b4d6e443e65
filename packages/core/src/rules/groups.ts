import type { Group } from "../domain/records.js"
import { type Access, isActivePerson, isAdmin, isMember } from "./access.js"
import { isHandle } from "./users.js"

/**
 * Loomio `ability/group.rb` show: public groups, members, and parent members where the group allows it; a deleted
 * (archived) group to nobody.
 */
export const canShowGroup = (access: Access, group: Group): boolean =>
  group.archived_at === null && (
    group.is_visible_to_public ||
    isMember(access, group.id) ||
    (group.is_visible_to_parent_members && isMember(access, group.parent_id)))

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
  isActivePerson(access) && (!onlyAdmins || access.user.is_admin)

/**
 * A subgroup: one level deep (Loomio's `limit_inheritance`), started by the parent's administrators, or its members
 * where `members_can_create_subgroups` is on.
 */
export const canStartSubgroup = (access: Access, parent: Group): boolean =>
  parent.parent_id === null && (isAdmin(access, parent.id) || (parent.members_can_create_subgroups && isMember(access, parent.id)))

/** A group's settings (name, handle, description, privacy, permissions) are its administrators'. */
export const canManageGroup = (access: Access, group: Group): boolean => isAdmin(access, group.id)

export const GROUP_PRIVACIES = ["open", "closed", "secret"] as const
export type GroupPrivacy = (typeof GROUP_PRIVACIES)[number]

/**
 * Loomio's `group_privacy`, read from the columns it writes: hidden from the public is secret (a subgroup its parent's
 * members see is closed); listed with private threads only is closed; else open.
 */
export const privacyOf = (g: Pick<Group, "is_visible_to_public" | "is_visible_to_parent_members" | "discussion_privacy_options" | "parent_id">): GroupPrivacy =>
  !g.is_visible_to_public
    ? g.parent_id !== null && g.is_visible_to_parent_members ? "closed" : "secret"
    : g.discussion_privacy_options === "private_only" ? "closed" : "open"

/**
 * What choosing a privacy writes (Loomio's `group_privacy=`, decisions §12): open is listed with public threads;
 * closed is listed (under a secret parent: seen by the parent's members) with private threads (a group that let each
 * thread choose keeps that); secret is hidden with private threads. `threadsPrivate`: what every thread of the group
 * becomes. A subgroup of a secret parent cannot be open.
 */
export const privacyColumns = (privacy: GroupPrivacy, g: Pick<Group, "discussion_privacy_options">, parent: Group | undefined) => {
  const underSecret = parent !== undefined && !parent.is_visible_to_public
  if (privacy === "open") {
    return underSecret ? undefined : { is_visible_to_public: true, is_visible_to_parent_members: true, discussion_privacy_options: "public_only" as const, threadsPrivate: false }
  }
  if (privacy === "closed") {
    const options = g.discussion_privacy_options === "public_or_private" ? "public_or_private" as const : "private_only" as const
    return { is_visible_to_public: !underSecret, is_visible_to_parent_members: true, discussion_privacy_options: options, threadsPrivate: options === "private_only" ? true : undefined }
  }
  return { is_visible_to_public: false, is_visible_to_parent_members: false, discussion_privacy_options: "private_only" as const, threadsPrivate: true }
}

/**
 * Who can join, as the privacy allows it (Loomio's `group_privacy=`): a closed group is asked to join, a secret one
 * only by invitation; an open group as chosen.
 */
export const joiningUnder = (privacy: GroupPrivacy, chosen: Group["membership_granted_upon"]): Group["membership_granted_upon"] =>
  privacy === "closed" ? "approval" : privacy === "secret" ? "invitation" : chosen

const HANDLE_MAX = 63

/** A handle made from a group's name (Loomio's parameterize): lowercase letters and digits joined by '-'; a subgroup's begins with its parent's. */
export const handleFrom = (name: string, parentHandle: string | null): string => {
  const words = name.normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "")
  return (parentHandle === null ? words : `${parentHandle}-${words}`).slice(0, HANDLE_MAX).replace(/-+$/, "")
}

/** Why a handle cannot be a new group's (decisions §12: a subgroup's begins with its parent's and '-'), or null. */
export const handleErrors = (handle: string, parentHandle: string | null | undefined): string | null =>
  !isHandle(handle)
    ? "must be 2-63 lowercase letters, digits or '-'"
    : parentHandle === null
    ? "can only be given when the parent group has one"
    : parentHandle !== undefined && !handle.startsWith(`${parentHandle}-`)
    ? `must begin with ${parentHandle}-`
    : null

/** Leaving is a member's own choice (the last administrator too: the group then has none). */
export const canLeaveGroup = (access: Access, group: Group): boolean => isMember(access, group.id)

/** **Join group**: an active person who sees the group and is not in it, where anyone can join (Loomio's `request`). */
export const canJoinGroup = (access: Access, group: Group): boolean =>
  isActivePerson(access) && !isMember(access, group.id) && canShowGroup(access, group) &&
  (group.membership_granted_upon === "request" || isAdmin(access, group.parent_id))

/** **Ask to join**: an active person who sees the group and is not in it, where joining is approved (Loomio's `approval`). */
export const canAskToJoin = (access: Access, group: Group): boolean =>
  isActivePerson(access) && !isMember(access, group.id) && canShowGroup(access, group) && group.membership_granted_upon === "approval" &&
  !isAdmin(access, group.parent_id)

/** Following the shareable link: any active person signed in (the link is the group's invitation, whatever its privacy). */
export const canJoinByLink = (access: Access): boolean => isActivePerson(access)

/** Requests to join and the shareable link are for those who may invite (Loomio's `MembershipRequest` ability). */
export const canManageJoining = canInvite

/** **Delete group**: its administrators. */
export const canDeleteGroup = (access: Access, group: Group): boolean => isAdmin(access, group.id)

/** **Notify everyone in the group**: administrators, or members where `members_can_announce`. */
export const canNotifyGroup = (access: Access, group: Group): boolean =>
  isAdmin(access, group.id) || (group.members_can_announce && isMember(access, group.id))

/** Inviting people from outside the group into a thread or poll: administrators, or members where `members_can_add_guests`. */
export const canInviteGuests = (access: Access, group: Group): boolean =>
  isAdmin(access, group.id) || (group.members_can_add_guests && isMember(access, group.id))

/** Listed in `/explore` (decisions §12): open top-level groups. */
export const isExplorable = (group: Group): boolean =>
  group.archived_at === null && group.parent_id === null && privacyOf(group) === "open"

/** Why an introduction cannot go with a request to join (Loomio: required, at most 250 characters), or null. */
export const introductionErrors = (text: string): string | null =>
  text.trim() === "" ? "can't be blank" : [...text.trim()].length > 250 ? "is too long (at most 250 characters)" : null

/** Why a decline's reason (mailed to the requester) cannot go, or null: at most 500 characters. */
export const declineReasonErrors = (text: string): string | null => ([...text].length > 500 ? "is too long (at most 500 characters)" : null)
