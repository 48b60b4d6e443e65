/**
 * Records as the core sees them. Field names follow the wire (snake_case) so that
 * storage, rules and serializers share one vocabulary.
 */
export type Id = number

export interface User {
  readonly id: Id
  readonly name: string | null
  readonly username: string | null
  readonly email: string | null
  readonly email_sha256: string | null
  readonly country: string | null
  readonly is_admin: boolean
  readonly bot: boolean
  readonly deactivated_at: string | null
  readonly deactivator_id: Id | null
  readonly redacted_at: string | null
  readonly created_at: string
  readonly updated_at: string
}

export interface Identity {
  readonly id: Id
  readonly user_id: Id
  readonly identity_type: string
  readonly uid: string
  readonly email: string | null
  readonly name: string | null
}

export type DiscussionPrivacyOptions = "public_only" | "private_only" | "public_or_private"
export const DISCUSSION_PRIVACY_OPTIONS: ReadonlyArray<DiscussionPrivacyOptions> = [
  "public_only",
  "private_only",
  "public_or_private"
]

/** Group settings that an administrator may change (decisions.md §2). */
export interface GroupSettings {
  readonly description: string | null
  readonly enabled: boolean
  readonly is_visible_to_public: boolean
  readonly is_visible_to_parent_members: boolean
  readonly discussion_privacy_options: DiscussionPrivacyOptions
  readonly parent_members_can_see_discussions: boolean
  readonly members_can_start_discussions: boolean
  readonly members_can_edit_discussions: boolean
  readonly members_can_edit_comments: boolean
  readonly members_can_raise_motions: boolean
  readonly members_can_vote: boolean
  readonly members_can_add_members: boolean
  readonly admins_can_edit_user_content: boolean
}

export const BOOLEAN_GROUP_SETTINGS = [
  "enabled",
  "is_visible_to_public",
  "is_visible_to_parent_members",
  "parent_members_can_see_discussions",
  "members_can_start_discussions",
  "members_can_edit_discussions",
  "members_can_edit_comments",
  "members_can_raise_motions",
  "members_can_vote",
  "members_can_add_members",
  "admins_can_edit_user_content"
] as const satisfies ReadonlyArray<keyof GroupSettings>

export interface Group extends GroupSettings {
  readonly id: Id
  readonly key: string
  readonly handle: string | null
  readonly name: string
  readonly parent_id: Id | null
  readonly creator_id: Id | null
  readonly created_at: string
  readonly updated_at: string
}

/** Exact counters of the spec's Group table, derived from the rows (never cached). */
export interface GroupCounts {
  readonly memberships_count: number
  readonly accepted_memberships_count: number
  readonly pending_memberships_count: number
  readonly admin_memberships_count: number
  readonly delegates_count: number
  readonly discussions_count: number
  readonly polls_count: number
  readonly subgroups_count: number
}

export interface Membership {
  readonly id: Id
  readonly group_id: Id
  readonly user_id: Id
  readonly inviter_id: Id | null
  readonly admin: boolean
  readonly delegate: boolean
  readonly title: string | null
  /** null while the invitation is pending */
  readonly accepted_at: string | null
  readonly revoked_at: string | null
  readonly revoker_id: Id | null
  readonly created_at: string
  readonly updated_at: string
}

export interface MailMessage {
  readonly id: Id
  readonly kind: string
  readonly recipient_user_id: Id | null
  readonly recipient_email: string
  readonly subject: string
  readonly body: string
  readonly group_id: Id | null
  readonly actor_id: Id | null
  readonly created_at: string
  readonly sent_at: string | null
}

export interface Page {
  readonly limit: number
  readonly offset: number
}
