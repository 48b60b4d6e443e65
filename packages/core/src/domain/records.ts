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
  /** IANA time zone every page shows times in (null: the server's) */
  readonly time_zone: string | null
  /** the pages' and mail's language (null: the browser's Accept-Language) */
  readonly locale: string | null
  /** the catch-up e-mail (decisions §11): null is Off */
  readonly catch_up: CatchUp | null
  /** when the last catch-up e-mail was made: the next covers what happened since */
  readonly catch_up_sent_at: string | null
  readonly is_admin: boolean
  readonly bot: boolean
  readonly deactivated_at: string | null
  readonly deactivator_id: Id | null
  readonly redacted_at: string | null
  readonly created_at: string
  readonly updated_at: string
}

export type CatchUp = "daily" | "every_other_day" | "weekly"

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

export const MAIL_STATUSES = ["pending", "sent", "failed", "dead"] as const
export type MailStatus = (typeof MAIL_STATUSES)[number]

/** A message of the mail outbox: recorded in the writing transaction, sent by the mail worker. */
export interface MailMessage {
  readonly id: Id
  readonly kind: string
  readonly recipient_user_id: Id | null
  readonly recipient_email: string
  readonly subject: string
  /** Markdown: the text part as written, the HTML part rendered from it */
  readonly body: string
  /** what the message concerns (`/d/KEY`, `/p/KEY`, `/g/KEY`), linked with BASE_URL when sent */
  readonly path: string | null
  readonly group_id: Id | null
  readonly actor_id: Id | null
  readonly created_at: string
  readonly status: MailStatus
  readonly attempts: number
  readonly next_attempt_at: string | null
  readonly last_error: string | null
  /** the SMTP server's answer to the successful send */
  readonly server_reply: string | null
  readonly sent_at: string | null
  /** the invitation whose link the message carries (its token is made when the message is sent) */
  readonly invitation_id: Id | null
  /** the thread a notification is about: a reply to it becomes a comment there (decisions §11) */
  readonly topic_id: Id | null
  /** the comment it is about: a reply answers that comment */
  readonly comment_id: Id | null
}

export type NewMailMessage =
  & Pick<MailMessage, "kind" | "recipient_user_id" | "recipient_email" | "subject" | "body" | "path" | "group_id" | "actor_id" | "created_at">
  & { readonly invitation_id?: Id | null; readonly topic_id?: Id | null; readonly comment_id?: Id | null }

export interface Page {
  readonly limit: number
  readonly offset: number
}

// Threads (issue 3): topics, discussions, comments, thread items, reactions, readers.

export type BodyFormat = "md" | "html"
export const BODY_FORMATS: ReadonlyArray<BodyFormat> = ["md", "html"]

/** What a thread is about: a discussion, or (later) a standalone poll. */
export type TopicableType = "Discussion" | "Poll"

/** A thread: its state and the counters of its items (Loomio's Topic). */
export interface Topic {
  readonly id: Id
  readonly group_id: Id | null
  readonly topicable_type: TopicableType
  readonly topicable_id: Id | null
  readonly private: boolean
  readonly tags: ReadonlyArray<string>
  readonly items_count: number
  readonly max_depth: number
  readonly last_activity_at: string
  readonly closed_at: string | null
  readonly closer_id: Id | null
  readonly discarded_at: string | null
  readonly created_at: string
  readonly updated_at: string
}

export interface Discussion {
  readonly id: Id
  readonly key: string
  readonly topic_id: Id
  readonly author_id: Id
  readonly title: string
  readonly description: string
  readonly description_format: BodyFormat
  readonly discarded_at: string | null
  readonly discarded_by: Id | null
  readonly created_at: string
  readonly updated_at: string
}

export interface Comment {
  readonly id: Id
  readonly discussion_id: Id
  /** the thread of the comment's discussion (read through the discussion, not stored twice) */
  readonly topic_id: Id
  /** the comment this one replies to; null for a reply to the discussion itself */
  readonly parent_id: Id | null
  readonly author_id: Id
  readonly body: string
  readonly body_format: BodyFormat
  readonly edited_at: string | null
  readonly discarded_at: string | null
  readonly discarded_by: Id | null
  readonly created_at: string
  readonly updated_at: string
}

/** Item kinds as Loomio names them; polls, votes and outcomes add theirs later. */
export const THREAD_ITEM_KINDS = [
  "new_discussion",
  "discussion_edited",
  "discussion_closed",
  "discussion_reopened",
  "new_comment",
  "poll_created",
  "stance_created",
  "stance_updated",
  "outcome_created",
  "outcome_updated",
  "poll_edited",
  "poll_closed_by_user",
  "poll_expired",
  "poll_reopened"
] as const
export type ThreadItemKind = (typeof THREAD_ITEM_KINDS)[number]

export type ItemableType = "Discussion" | "Comment" | "Poll" | "Stance" | "Outcome"
export const REACTABLE_TYPES: ReadonlyArray<ItemableType> = ["Discussion", "Comment", "Poll", "Stance", "Outcome"]

/**
 * One entry of a thread's event stream. `sequence_id` orders the stream (0 is the thread's own item);
 * `parent_id`/`depth`/`position_key` place replies in the tree (position_key: 5-digit segments, parent first).
 */
export interface ThreadItem {
  readonly id: Id
  readonly topic_id: Id
  readonly kind: ThreadItemKind
  readonly sequence_id: number
  readonly parent_id: Id | null
  readonly depth: number
  readonly position: number
  readonly position_key: string | null
  readonly child_count: number
  readonly itemable_type: ItemableType
  readonly itemable_id: Id
  readonly actor_id: Id | null
  readonly created_at: string
}

export interface Reaction {
  readonly id: Id
  readonly topic_id: Id
  readonly reactable_type: ItemableType
  readonly reactable_id: Id
  readonly user_id: Id
  readonly reaction: string
  readonly created_at: string
}

/** A person brought into a thread: a notified member, or a guest (who may read and comment without membership). */
export interface TopicReader {
  readonly id: Id
  readonly topic_id: Id
  readonly user_id: Id
  readonly inviter_id: Id | null
  readonly guest: boolean
  readonly revoked_at: string | null
  readonly created_at: string
}

/** `open` (default): threads not closed; `closed`; `all`. Discarded threads are never listed. */
export type ThreadStatus = "open" | "closed" | "all"

/**
 * Which threads a person may read, as a query (computed by `rules/topics.ts`, run by the store):
 * every thread of `allIn`, the public threads of `publicIn` and of every publicly visible group,
 * and the threads where `guestUserId` is an un-revoked guest. Discarded threads never.
 */
export interface TopicScope {
  readonly allIn: ReadonlyArray<Id>
  readonly publicIn: ReadonlyArray<Id>
  /** public threads of publicly visible groups (false: only the groups named above) */
  readonly publicGroups: boolean
  readonly guestUserId: Id | null
}

export interface TopicFilter {
  readonly groupId?: Id
  readonly topicableType?: TopicableType
  readonly status?: ThreadStatus
}
