/**
 * Records as the core sees them, each declared once (model.ts): the declaration is the domain type, the
 * row mapping and the fields the wire records take. Field names follow the wire (snake_case) so that
 * storage, rules and serializers share one vocabulary.
 */
import { Schema } from "effect"
import { Format, Id as IdField, model, NullId, NullStamp, NullText, Stamp } from "./model.js"

export type Id = number

export const CATCH_UPS = ["daily", "every_other_day", "weekly"] as const
export type CatchUp = (typeof CATCH_UPS)[number]

export const User = model("User", {
  id: IdField,
  name: NullText,
  username: NullText,
  email: NullText,
  email_sha256: NullText,
  country: NullText,
  /** IANA time zone every page shows times in (null: the server's) */
  time_zone: NullText,
  /** the pages' and mail's language (null: the browser's Accept-Language) */
  locale: NullText,
  /** the catch-up e-mail (decisions §11): null is Off */
  catch_up: Schema.NullOr(Schema.Literal(...CATCH_UPS)),
  /** when the last catch-up e-mail was made: the next covers what happened since */
  catch_up_sent_at: NullStamp,
  is_admin: Schema.Boolean,
  bot: Schema.Boolean,
  deactivated_at: NullStamp,
  deactivator_id: NullId,
  redacted_at: NullStamp,
  /** made by an invitation and not used yet: only such an account is signed in by accepting it (decisions §5) */
  placeholder: Schema.Boolean,
  created_at: Stamp,
  updated_at: Stamp
})
export type User = typeof User.Type

export const Identity = model("Identity", {
  id: IdField,
  user_id: IdField,
  identity_type: Schema.String,
  uid: Schema.String,
  email: NullText,
  name: NullText
})
export type Identity = typeof Identity.Type

export const DISCUSSION_PRIVACY_OPTIONS = ["public_only", "private_only", "public_or_private"] as const
export type DiscussionPrivacyOptions = (typeof DISCUSSION_PRIVACY_OPTIONS)[number]
/** Loomio's `membership_granted_upon` ("Who can join"): `request` joins at once, `approval` asks, `invitation` only invited. */
export const MEMBERSHIP_GRANTED_UPON = ["request", "approval", "invitation"] as const
export type MembershipGrantedUpon = (typeof MEMBERSHIP_GRANTED_UPON)[number]

/** Group settings that an administrator may change (decisions.md §2). */
const groupSettings = {
  description: NullText,
  enabled: Schema.Boolean,
  is_visible_to_public: Schema.Boolean,
  is_visible_to_parent_members: Schema.Boolean,
  discussion_privacy_options: Schema.Literal(...DISCUSSION_PRIVACY_OPTIONS),
  membership_granted_upon: Schema.Literal(...MEMBERSHIP_GRANTED_UPON),
  parent_members_can_see_discussions: Schema.Boolean,
  members_can_start_discussions: Schema.Boolean,
  members_can_edit_discussions: Schema.Boolean,
  members_can_edit_comments: Schema.Boolean,
  members_can_raise_motions: Schema.Boolean,
  members_can_vote: Schema.Boolean,
  members_can_add_members: Schema.Boolean,
  members_can_create_subgroups: Schema.Boolean,
  members_can_add_guests: Schema.Boolean,
  members_can_announce: Schema.Boolean,
  members_can_delete_comments: Schema.Boolean,
  admins_can_edit_user_content: Schema.Boolean
}
export type GroupSettings = Schema.Struct.Type<typeof groupSettings>

/** A new group's settings (secret, as Loomio's new groups): the one place they are written. */
export const GROUP_DEFAULTS: GroupSettings = {
  description: null,
  enabled: true,
  is_visible_to_public: false,
  is_visible_to_parent_members: false,
  discussion_privacy_options: "private_only",
  membership_granted_upon: "invitation",
  parent_members_can_see_discussions: false,
  members_can_start_discussions: true,
  members_can_edit_discussions: true,
  members_can_edit_comments: true,
  members_can_raise_motions: true,
  members_can_vote: true,
  members_can_add_members: false,
  members_can_create_subgroups: false,
  members_can_add_guests: true,
  members_can_announce: true,
  members_can_delete_comments: true,
  admins_can_edit_user_content: true
}

/** The settings that are on or off, read from their declaration. */
export type BooleanGroupSetting = { [K in keyof GroupSettings]: GroupSettings[K] extends boolean ? K : never }[keyof GroupSettings]
export const BOOLEAN_GROUP_SETTINGS = (Object.keys(groupSettings) as Array<keyof GroupSettings>)
  .filter((k): k is BooleanGroupSetting => groupSettings[k] === Schema.Boolean)

/** How many members may delegate to one delegate where the group says nothing else, and the most it may say (decisions §15). */
export const DELEGATION_LIMIT = 5
export const DELEGATION_LIMIT_MAX = 100

export const Group = model("Group", {
  id: IdField,
  key: Schema.String,
  handle: NullText,
  name: Schema.String,
  parent_id: NullId,
  ...groupSettings,
  creator_id: NullId,
  /** delegated voting (decisions §15): members may name a delegate, who holds at most `delegation_limit` delegations */
  members_can_delegate: Schema.Boolean,
  delegation_limit: Schema.Int,
  /** poll templates (decisions §15): the built-ins' keys the group hides, and where it places them (key → position) */
  hidden_poll_templates: Schema.Array(Schema.String),
  poll_template_positions: Schema.Record({ key: Schema.String, value: Schema.Int }),
  /** raised by **Reset link**: the shareable link's token is derived from it, and the old one stops working */
  join_link_epoch: Schema.Int,
  /** **Delete group**: gone from every page, list and the API at once, purged 14 days later */
  archived_at: NullStamp,
  created_at: Stamp,
  updated_at: Stamp
})
export type Group = typeof Group.Type

/** Exact counters of the spec's Group table, kept by the stores' triggers. */
export const GroupCounts = model("GroupCounts", {
  memberships_count: Schema.Int,
  accepted_memberships_count: Schema.Int,
  pending_memberships_count: Schema.Int,
  admin_memberships_count: Schema.Int,
  delegates_count: Schema.Int,
  discussions_count: Schema.Int,
  polls_count: Schema.Int,
  subgroups_count: Schema.Int
})
export type GroupCounts = typeof GroupCounts.Type

export const Membership = model("Membership", {
  id: IdField,
  group_id: IdField,
  user_id: IdField,
  inviter_id: NullId,
  admin: Schema.Boolean,
  delegate: Schema.Boolean,
  title: NullText,
  /** null while the invitation is pending */
  accepted_at: NullStamp,
  revoked_at: NullStamp,
  revoker_id: NullId,
  created_at: Stamp,
  updated_at: Stamp
})
export type Membership = typeof Membership.Type

/** **Ask to join** (decisions §12; Loomio's `membership_requests`): waiting while `response` is null. */
export const MembershipRequest = model("MembershipRequest", {
  id: IdField,
  group_id: IdField,
  requestor_id: IdField,
  introduction: Schema.String,
  response: Schema.NullOr(Schema.Literal("approved", "declined")),
  responder_id: NullId,
  /** a decline's reason, mailed to the requester */
  response_message: NullText,
  responded_at: NullStamp,
  created_at: Stamp
})
export type MembershipRequest = typeof MembershipRequest.Type

/** A notification in the app (decisions §13): what the mail volume sends, kept for the person, seen or not. */
export const Notification = model("Notification", {
  id: IdField,
  user_id: IdField,
  kind: Schema.String,
  actor_id: NullId,
  title: Schema.String,
  /** where it leads: `/d/KEY`, `/p/KEY`, `/g/KEY…` */
  path: Schema.String,
  group_id: NullId,
  topic_id: NullId,
  created_at: Stamp,
  seen_at: NullStamp
})
export type Notification = typeof Notification.Type

/**
 * What a write tells the live pages (decisions §13): something happened in a thread (an item added, a poll closed),
 * a reaction, or a notification for one person. It names where, never what: a page that hears of it asks for
 * itself, through the rules, what it now shows.
 */
export const LIVE_KINDS = ["thread", "reaction", "notification"] as const
export const LiveEvent = model("LiveEvent", {
  id: IdField,
  kind: Schema.Literal(...LIVE_KINDS),
  group_id: NullId,
  topic_id: NullId,
  /** a notification's person (the only one it reaches) */
  user_id: NullId,
  created_at: Stamp
})
export type LiveEvent = typeof LiveEvent.Type

/** A group's tag (decisions §12): a name unique in the group, whatever its case, and a colour (#rrggbb). */
export const Tag = model("Tag", {
  id: IdField,
  group_id: IdField,
  name: Schema.String,
  color: Schema.String,
  created_at: Stamp
})
export type Tag = typeof Tag.Type

/** A field's value in an edit: text, a number (an id), a flag, nothing, or a list of names (tags). */
const VersionValue = Schema.Union(Schema.String, Schema.Number, Schema.Boolean, Schema.Null, Schema.Array(Schema.String))

/** One edit of a record (Loomio's paper-trail version): who, when, and each changed field's [before, after]. */
export const Version = model("Version", {
  id: IdField,
  item_type: Schema.Literal("Discussion"),
  item_id: IdField,
  whodunnit: NullId,
  /** each changed field's [before, after] */
  object_changes: Schema.Record({ key: Schema.String, value: Schema.Array(VersionValue) }),
  created_at: Stamp
})
export type Version = typeof Version.Type

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
  /** a calendar invitation it carries as `meeting.ics` (RFC 5545), made when it was recorded */
  readonly calendar: string | null
}

export type NewMailMessage =
  & Pick<MailMessage, "kind" | "recipient_user_id" | "recipient_email" | "subject" | "body" | "path" | "group_id" | "actor_id" | "created_at">
  & { readonly invitation_id?: Id | null; readonly topic_id?: Id | null; readonly comment_id?: Id | null; readonly calendar?: string | null }

export interface Page {
  readonly limit: number
  readonly offset: number
}

// Threads (issue 3): topics, discussions, comments, thread items, reactions, readers.

export type BodyFormat = typeof Format.Type

/** What a thread is about: a discussion, or a standalone poll. */
export const TOPICABLE_TYPES = ["Discussion", "Poll"] as const
export type TopicableType = (typeof TOPICABLE_TYPES)[number]

/** A thread: its state and the counters of its items (Loomio's Topic). */
export const Topic = model("Topic", {
  id: IdField,
  group_id: NullId,
  topicable_type: Schema.Literal(...TOPICABLE_TYPES),
  topicable_id: NullId,
  private: Schema.Boolean,
  tags: Schema.Array(Schema.String),
  items_count: Schema.Int,
  /** how many people have read the thread (Loomio's seen_by_count) */
  seen_by_count: Schema.Int,
  max_depth: Schema.Int,
  last_activity_at: Stamp,
  closed_at: NullStamp,
  closer_id: NullId,
  /** pinned first in a group's lists (null: not pinned) */
  pinned_at: NullStamp,
  discarded_at: NullStamp,
  created_at: Stamp,
  updated_at: Stamp
})
export type Topic = typeof Topic.Type

export const Discussion = model("Discussion", {
  id: IdField,
  key: Schema.String,
  topic_id: IdField,
  author_id: IdField,
  title: Schema.String,
  description: Schema.String,
  description_format: Format,
  discarded_at: NullStamp,
  discarded_by: NullId,
  created_at: Stamp,
  updated_at: Stamp
})
export type Discussion = typeof Discussion.Type

export const Comment = model("Comment", {
  id: IdField,
  discussion_id: IdField,
  /** the thread of the comment's discussion (read through the discussion, not stored twice) */
  topic_id: IdField,
  /** the comment this one replies to; null for a reply to the discussion itself */
  parent_id: NullId,
  author_id: IdField,
  body: Schema.String,
  body_format: Format,
  edited_at: NullStamp,
  discarded_at: NullStamp,
  discarded_by: NullId,
  created_at: Stamp,
  updated_at: Stamp
})
export type Comment = typeof Comment.Type

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
  "poll_reopened",
  // beyond Loomio's stream as the spec lists it (decisions §12): the thread came from another group
  "discussion_moved"
] as const
export type ThreadItemKind = (typeof THREAD_ITEM_KINDS)[number]

export const ITEMABLE_TYPES = ["Discussion", "Comment", "Poll", "Stance", "Outcome"] as const
export type ItemableType = (typeof ITEMABLE_TYPES)[number]
export const REACTABLE_TYPES: ReadonlyArray<ItemableType> = ITEMABLE_TYPES

/**
 * One entry of a thread's event stream. `sequence_id` orders the stream (0 is the thread's own item);
 * `parent_id`/`depth`/`position_key` place replies in the tree (position_key: 5-digit segments, parent first).
 */
export const ThreadItem = model("ThreadItem", {
  id: IdField,
  topic_id: IdField,
  kind: Schema.Literal(...THREAD_ITEM_KINDS),
  sequence_id: Schema.Int,
  parent_id: NullId,
  depth: Schema.Int,
  position: Schema.Int,
  position_key: NullText,
  child_count: Schema.Int,
  itemable_type: Schema.Literal(...ITEMABLE_TYPES),
  itemable_id: IdField,
  actor_id: NullId,
  created_at: Stamp
})
export type ThreadItem = typeof ThreadItem.Type

export const Reaction = model("Reaction", {
  id: IdField,
  topic_id: IdField,
  reactable_type: Schema.Literal(...ITEMABLE_TYPES),
  reactable_id: IdField,
  user_id: IdField,
  reaction: Schema.String,
  created_at: Stamp
})
export type Reaction = typeof Reaction.Type

/** A person brought into a thread: a notified member, or a guest (who may read and comment without membership). */
export const TopicReader = model("TopicReader", {
  id: IdField,
  topic_id: IdField,
  user_id: IdField,
  inviter_id: NullId,
  guest: Schema.Boolean,
  revoked_at: NullStamp,
  created_at: Stamp,
  /** when the person last read the thread (null: never), and which of its items, as ranges of sequence ids ("1-5,7-9") */
  last_read_at: NullStamp,
  read_ranges: Schema.NullOr(Schema.String),
  /** **Mark as read** in a list: the thread is not new again until something happens in it after this */
  dismissed_at: NullStamp
})
export type TopicReader = typeof TopicReader.Type

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
  /** threads carrying this tag (`?tag=`) */
  readonly tag?: string
}
