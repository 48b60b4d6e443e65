/** One serializer per record type; every endpoint uses these. */
import {
  type Access,
  type GroupCounts,
  type Group,
  type Identity,
  type Membership,
  Rules,
  type User
} from "@convene/core"

export const groupJson = (view: { group: Group; counts: GroupCounts; parent: Group | undefined }) => {
  const g = view.group
  return {
    id: g.id,
    key: g.key,
    handle: g.handle,
    name: g.name,
    full_name: Rules.fullName(g, view.parent),
    parent_id: g.parent_id,
    description: g.description,
    enabled: g.enabled,
    is_visible_to_public: g.is_visible_to_public,
    is_visible_to_parent_members: g.is_visible_to_parent_members,
    discussion_privacy_options: g.discussion_privacy_options,
    parent_members_can_see_discussions: g.parent_members_can_see_discussions,
    members_can_start_discussions: g.members_can_start_discussions,
    members_can_edit_discussions: g.members_can_edit_discussions,
    members_can_edit_comments: g.members_can_edit_comments,
    members_can_raise_motions: g.members_can_raise_motions,
    members_can_vote: g.members_can_vote,
    members_can_add_members: g.members_can_add_members,
    admins_can_edit_user_content: g.admins_can_edit_user_content,
    ...view.counts,
    created_at: g.created_at
  }
}

/** `user_email` only for the caller's own membership or for administrators of the group. */
export const membershipJson = (access: Access, m: Membership, email: string | null | undefined) => ({
  id: m.id,
  group_id: m.group_id,
  user_id: m.user_id,
  inviter_id: m.inviter_id,
  admin: m.admin,
  delegate: m.delegate,
  title: m.title,
  accepted_at: m.accepted_at,
  created_at: m.created_at,
  ...(email != null && Rules.canSeeMemberEmail(access, m) ? { user_email: email } : {})
})

/** A side-loaded user; the e-mail address only on the caller's own record. */
export const userJson = (access: Access, u: User) => ({
  id: u.id,
  name: Rules.displayName(u),
  username: u.username,
  country: u.country,
  bot: u.bot,
  deactivated_at: u.deactivated_at,
  ...(u.id === access.user.id ? { email: u.email } : {})
})

/** The Server API user (spec: "Server user account"); every field always present. */
export const serverUserJson = (u: User, identities: ReadonlyArray<Identity>) => ({
  id: u.id,
  name: u.name,
  username: u.username,
  email: u.email,
  is_admin: u.is_admin,
  active: u.deactivated_at === null,
  deactivated_at: u.deactivated_at,
  identities: identities.map((i) => ({ id: i.id, identity_type: i.identity_type, uid: i.uid, email: i.email, name: i.name }))
})
