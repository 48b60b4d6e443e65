/** Records for pure-rule tests: complete defaults, overridden per case. */
import { type Group, GROUP_DEFAULTS, type Membership, type User } from "@convene/core"

export const aUser = (over: Partial<User> = {}): User => ({
  id: 9, name: "U", username: null, email: "u@x.org", email_sha256: null, country: null, time_zone: null, locale: null, catch_up: null, catch_up_sent_at: null, is_admin: false, bot: false,
  deactivated_at: null, deactivator_id: null, redacted_at: null, placeholder: false, created_at: "", updated_at: "", ...over
})

export const aGroup = (id: number, over: Partial<Group> = {}): Group => ({
  id, key: `k${id}`, handle: null, name: `G${id}`, parent_id: null, creator_id: null, created_at: "", updated_at: "",
  ...GROUP_DEFAULTS, members_can_delegate: false, delegation_limit: 5, join_link_epoch: 0, hidden_poll_templates: [], poll_template_positions: {}, archived_at: null, ...over
})

/** An accepted, live membership. */
export const aMembership = (groupId: number, userId: number, over: Partial<Membership> = {}): Membership => ({
  id: groupId * 100 + userId, group_id: groupId, user_id: userId, inviter_id: null, admin: false, delegate: false, title: null,
  accepted_at: "x", revoked_at: null, revoker_id: null, created_at: "", updated_at: "", ...over
})
