/** Records for pure-rule tests: complete defaults, overridden per case. */
import type { Group, Membership, User } from "@convene/core"

export const aUser = (over: Partial<User> = {}): User => ({
  id: 9, name: "U", username: null, email: "u@x.org", email_sha256: null, country: null, time_zone: null, locale: null, catch_up: null, catch_up_sent_at: null, is_admin: false, bot: false,
  deactivated_at: null, deactivator_id: null, redacted_at: null, placeholder: false, created_at: "", updated_at: "", ...over
})

export const aGroup = (id: number, over: Partial<Group> = {}): Group => ({
  id, key: `k${id}`, handle: null, name: `G${id}`, parent_id: null, creator_id: null, created_at: "", updated_at: "",
  description: null, enabled: true, is_visible_to_public: false, is_visible_to_parent_members: false,
  discussion_privacy_options: "private_only", parent_members_can_see_discussions: false, members_can_start_discussions: true,
  members_can_edit_discussions: true, members_can_edit_comments: true, members_can_raise_motions: true, members_can_vote: true,
  members_can_add_members: false, members_can_create_subgroups: false, admins_can_edit_user_content: true, ...over
})

/** An accepted, live membership. */
export const aMembership = (groupId: number, userId: number, over: Partial<Membership> = {}): Membership => ({
  id: groupId * 100 + userId, group_id: groupId, user_id: userId, inviter_id: null, admin: false, delegate: false, title: null,
  accepted_at: "x", revoked_at: null, revoker_id: null, created_at: "", updated_at: "", ...over
})
