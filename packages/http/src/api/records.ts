/**
 * Every record the API returns, declared once as a Schema. A field the wire shows as the core holds it takes
 * its declaration from the core's record (`fieldsOf`, domain/model.ts), so its type is written once; the
 * fields declared here are the wire's own (computed, revealed, or documented otherwise). The serializers
 * (serializers.ts) are made from these declarations, so a field added to one and not the other fails to
 * compile; the OpenAPI documents describe the same declarations.
 */
import {
  Chatbot,
  Comment,
  Discussion,
  fieldsOf,
  Group,
  GroupCounts,
  Identity,
  IdField as Id,
  Membership,
  MembershipRequest,
  NullId,
  NullStamp,
  NullText,
  Outcome,
  Poll,
  PollOption,
  Reaction,
  SearchResult,
  Stamp,
  Stance,
  Tag,
  ThreadItem,
  Topic,
  User,
  Version,
  Attachment,
  Blob
} from "@convene/core"
import { Schema } from "effect"


const record = <F extends Schema.Struct.Fields>(identifier: string, description: string, fields: F) =>
  Schema.Struct(fields).annotations({ identifier, description })

/** Loomio's: the usernames a markdown text @mentions, in order (none for html, or a text hidden from the reader). */
const MentionedUsernames = Schema.Array(Schema.String)

export const GroupRecord = record("Group", "A group; counters are exact (spec: Group)", {
  ...fieldsOf(Group, "id", "key", "handle", "name"),
  full_name: Schema.String,
  ...fieldsOf(
    Group,
    "parent_id",
    "description",
    "enabled",
    "is_visible_to_public",
    "is_visible_to_parent_members",
    "discussion_privacy_options",
    "membership_granted_upon",
    "parent_members_can_see_discussions",
    "members_can_start_discussions",
    "members_can_edit_discussions",
    "members_can_edit_comments",
    "members_can_raise_motions",
    "members_can_vote",
    "members_can_add_members",
    "members_can_create_subgroups",
    "members_can_add_guests",
    "members_can_announce",
    "members_can_delete_comments",
    "admins_can_edit_user_content",
    "members_can_delegate",
    "delegation_limit"
  ),
  ...GroupCounts.fields,
  ...fieldsOf(Group, "created_at")
})

export const MembershipRecord = record("Membership", "user_email only on the caller's own membership or for group administrators", {
  ...fieldsOf(Membership, "id", "group_id", "user_id", "inviter_id", "admin", "delegate", "title"),
  accepted_at: NullStamp.annotations({ description: "null: a pending invitation" }),
  ...fieldsOf(Membership, "created_at"),
  user_email: Schema.optional(Schema.String)
})

export const UserRecord = record("User", "A side-loaded person; email only on the caller's own record", {
  id: Id,
  name: Schema.String.annotations({ description: "the display name (a redacted or unnamed person's is made up)" }),
  ...fieldsOf(User, "username", "country", "bot", "deactivated_at"),
  email: Schema.optional(NullText)
})

export const IdentityRecord = record("Identity", "An external identity of a server user", {
  ...fieldsOf(Identity, "id", "identity_type", "uid", "email", "name")
})

export const ServerUserRecord = record("ServerUser", "A user account as the Server API shows it", {
  ...fieldsOf(User, "id", "name", "username", "email", "is_admin"),
  active: Schema.Boolean,
  ...fieldsOf(User, "deactivated_at"),
  identities: Schema.Array(IdentityRecord)
})

export const TopicRecord = record("Topic", "A thread (Loomio's topic); locked_at is the newest name of closed_at", {
  ...fieldsOf(Topic, "id", "group_id", "topicable_type", "topicable_id", "private", "tags", "items_count", "seen_by_count"),
  replies_count: Schema.Int,
  ...fieldsOf(Topic, "max_depth", "last_activity_at", "closed_at"),
  locked_at: NullStamp,
  ...fieldsOf(Topic, "closer_id"),
  ...fieldsOf(Topic, "pinned_at"),
  ...fieldsOf(Topic, "created_at", "updated_at")
})

/** A file on a record, as Loomio's `attachments` entries (decisions §14). */
export const AttachmentRecord = record("Attachment", "A file attached to a record (or just uploaded); download_url answers only those who may read the record", {
  ...fieldsOf(Attachment, "id", "signed_id", "filename"),
  ...fieldsOf(Blob, "content_type", "byte_size"),
  icon: Schema.String.annotations({ description: "Loomio's icon name for the file's type (image, file-pdf-box, …)" }),
  preview_url: NullText.annotations({ description: "An image's preview (at most 1280 px wide, metadata removed); null for other files" }),
  download_url: Schema.String.annotations({ description: "The file's address on this server: /files/{signed_id}/{filename}" })
})

export const DiscussionRecord = record("Discussion", "A discussion; deleted ones have title and description null", {
  ...fieldsOf(Discussion, "id", "key", "topic_id"),
  group_id: NullId,
  title: NullText,
  description: NullText,
  ...fieldsOf(Discussion, "description_format"),
  mentioned_usernames: MentionedUsernames,
  private: Schema.Boolean,
  closed_at: NullStamp,
  last_activity_at: Stamp,
  ...fieldsOf(Discussion, "author_id", "discarded_at", "discarded_by", "created_at", "updated_at"),
  // the caller's reader (Loomio's DiscussionSerializer; decisions §13): null where they have none
  last_read_at: NullStamp.annotations({ description: "when the caller last read the thread (null: never)" }),
  read_ranges: Schema.Array(Schema.Tuple(Schema.Int, Schema.Int)).annotations({ description: "the items the caller has read, as [first, last] sequence id pairs" }),
  discussion_reader_volume: Schema.NullOr(Schema.Literal("mute", "normal", "loud")).annotations({ description: "the caller's own volume in this thread (null: the group's)" }),
  dismissed_at: NullStamp.annotations({ description: "when the caller last marked the thread as read in a list" }),
  seen_by_count: Schema.Int.annotations({ description: "how many people have read the thread" }),
  attachments: Schema.Array(AttachmentRecord).annotations({ description: "The discussion's files, in order (Loomio's attachments)" })
})

export const CommentRecord = record("Comment", "A comment; parent_id is the comment replied to; deleted ones have body null", {
  ...fieldsOf(Comment, "id", "discussion_id", "topic_id", "parent_id", "author_id"),
  body: NullText,
  ...fieldsOf(Comment, "body_format"),
  mentioned_usernames: MentionedUsernames,
  ...fieldsOf(Comment, "edited_at", "discarded_at", "discarded_by", "created_at", "updated_at"),
  attachments: Schema.Array(AttachmentRecord).annotations({ description: "The comment's files, in order (Loomio's attachments)" })
})

export const ThreadItemRecord = record("ThreadItem", "An event of a thread's ordered stream (Loomio's topic item)", {
  ...fieldsOf(
    ThreadItem,
    "id",
    "topic_id",
    "sequence_id",
    "kind",
    "parent_id",
    "depth",
    "position",
    "position_key",
    "child_count",
    "itemable_type",
    "itemable_id",
    "actor_id"
  ),
  pinned: Schema.Boolean,
  ...fieldsOf(ThreadItem, "created_at")
})

export const ReactionRecord = record("Reaction", "A person's emoji or shortcode on a record", {
  ...fieldsOf(Reaction, "id", "reactable_type", "reactable_id", "user_id", "reaction", "created_at")
})

export const ChatbotRecord = record("Webhook", "A group's webhook (resource name chatbots); only ever shown to its group's administrators", {
  ...fieldsOf(Chatbot, "id", "group_id", "author_id", "name", "kind", "webhook_kind"),
  server: Schema.String.annotations({ jsonSchema: { type: "string", format: "uri" } }),
  ...fieldsOf(Chatbot, "event_kinds", "notification_only", "created_at", "updated_at")
})

const OptionResult = Schema.Struct({
  id: Id,
  name: Schema.String,
  priority: Schema.Int,
  rank: Schema.Int,
  score: Schema.Number,
  voter_count: Schema.Int,
  average: Schema.Number,
  score_percent: Schema.Number,
  votes_cast_percent: Schema.Number,
  voter_percent: Schema.Number,
  yes: Schema.Int,
  maybe: Schema.Int,
  no: Schema.Int,
  voter_ids: Schema.Array(Id)
}).annotations({ identifier: "PollOptionResult", description: "One option's results; voter_ids names at most 50 voters, none in an anonymous poll" })

export const PollRecord = record("Poll", "A poll; opened_at null: a draft; results only while the reader may see them (hide_results)", {
  ...fieldsOf(Poll, "id", "key", "topic_id"),
  discussion_id: NullId,
  ...fieldsOf(Poll, "group_id", "author_id"),
  title: NullText,
  details: NullText,
  ...fieldsOf(
    Poll,
    "details_format",
    "poll_type",
    "closing_at",
    "opened_at",
    "closed_at",
    "discarded_at",
    "discarded_by",
    "specified_voters_only",
    "hide_results",
    "shuffle_options",
    "anonymous",
    "notify_on_closing_soon",
    "stance_reason_required",
    "allow_delegated_votes",
    "poll_template_key",
    "poll_template_id",
    "min_score",
    "max_score",
    "minimum_stance_choices",
    "maximum_stance_choices",
    "dots_per_person",
    "can_respond_maybe"
  ),
  voters_count: Schema.Int,
  decided_voters_count: Schema.Int,
  delegated_voters_count: Schema.Int.annotations({ description: "extension (decisions §15): of the cast ballots, those a delegate's vote cast" }),
  undecided_voters_count: Schema.Int,
  poll_option_ids: Schema.Array(Id),
  /** Loomio's: the options' names, in the order shown (clients send them back to change the options) */
  poll_option_names: Schema.Array(Schema.String),
  /** Loomio's: each option's total score in priority order; null while the reader may not see results */
  stance_counts: Schema.NullOr(Schema.Array(Schema.Number)),
  /** Loomio's: each option's total score by its name; null while the reader may not see results */
  stance_data: Schema.NullOr(Schema.Record({ key: Schema.String, value: Schema.Number })),
  /** Loomio's: the share of ballots issued that are cast, in whole percent */
  cast_stances_pct: Schema.Int,
  mentioned_usernames: MentionedUsernames,
  results_visible: Schema.Boolean,
  results: Schema.NullOr(Schema.Array(OptionResult)),
  my_stance_id: NullId,
  current_outcome_id: NullId,
  ...fieldsOf(Poll, "created_at", "updated_at"),
  attachments: Schema.Array(AttachmentRecord).annotations({ description: "The poll's files, in order (Loomio's attachments)" })
})

export const PollOptionRecord = record("PollOption", "An option of a poll, with its totals when the reader may see results", {
  ...fieldsOf(PollOption, "id", "poll_id", "name", "priority"),
  total_score: Schema.optional(Schema.Number),
  voter_count: Schema.optional(Schema.Int),
  average_score: Schema.optional(Schema.Number),
  score_percent: Schema.optional(Schema.Number),
  voter_percent: Schema.optional(Schema.Number),
  votes_cast_percent: Schema.optional(Schema.Number),
  rank: Schema.optional(Schema.Int),
  yes: Schema.optional(Schema.Int),
  maybe: Schema.optional(Schema.Int),
  no: Schema.optional(Schema.Int)
})

export const StanceRecord = record("Stance", "A ballot (vote); cast_at null: issued, not cast; an anonymous poll's ballots name nobody but the reader", {
  ...fieldsOf(Stance, "id", "poll_id"),
  participant_id: NullId,
  ...fieldsOf(Stance, "latest", "cast_at", "reason", "reason_format"),
  mentioned_usernames: MentionedUsernames,
  inviter_id: NullId.annotations({ description: "Loomio's: who gave the ballot (null in an anonymous poll)" }),
  delegated_by: NullId.annotations({ description: "extension (decisions §15): the delegate whose vote cast this ballot for its voter; null for the voter's own, and in an anonymous poll" }),
  option_scores: Schema.Record({ key: Schema.String, value: Schema.Int }),
  stance_choices: Schema.Array(Schema.Struct({ poll_option_id: Id, score: Schema.Int })),
  ...fieldsOf(Stance, "revoked_at", "created_at", "updated_at")
})

export const DelegationRecord = record("Delegation", "Extension (decisions §15): the caller's delegate in a group, and who delegated to them", {
  group_id: Id,
  members_can_delegate: Schema.Boolean,
  delegation_limit: Schema.Int,
  delegate_id: NullId.annotations({ description: "whose vote is cast for the caller when they do not vote; null: nobody's" }),
  since: NullStamp.annotations({ description: "when the caller named this delegate" }),
  delegator_ids: Schema.Array(Id).annotations({ description: "the members who delegated to the caller, oldest first" })
})

export const PollTemplateRecord = record("PollTemplate", "Extension (decisions §15): a template a poll may start from, in the caller's language: Loomio's built-ins and the group's own, in the group's order, hidden ones left out", {
  id: NullId.annotations({ description: "the group's own template (a poll records it as poll_template_id); null: a built-in" }),
  key: Schema.NullOr(Schema.String).annotations({ description: "a built-in's key (a poll records it as poll_template_key); null: the group's own" }),
  source_key: Schema.NullOr(Schema.String).annotations({ description: "the built-in the group's copy was edited from" }),
  poll_type: Schema.String,
  name: Schema.String,
  process_subtitle: Schema.String.annotations({ description: "what the process is for, in a line" }),
  details: Schema.String.annotations({ description: "the poll's details as it starts (markdown)" }),
  options: Schema.Array(Schema.String).annotations({ description: "the options it starts with; empty: the author's own" }),
  default_duration_in_days: Schema.Int,
  position: Schema.Int.annotations({ description: "its place in the group's list" }),
  settings: Schema.Record({ key: Schema.String, value: Schema.Union(Schema.String, Schema.Number, Schema.Boolean) }).annotations({ description: "the poll's settings and the type's numbers it starts with" })
})

export const OutcomeRecord = record("Outcome", "The stated outcome of a closed poll", {
  ...fieldsOf(Outcome, "id", "poll_id"),
  group_id: NullId.annotations({ description: "Loomio's: the poll's group" }),
  ...fieldsOf(Outcome, "author_id", "statement", "statement_format"),
  mentioned_usernames: MentionedUsernames,
  ...fieldsOf(Outcome, "poll_option_id", "event_summary", "event_location"),
  review_on: Schema.NullOr(Schema.String.annotations({ jsonSchema: { type: "string", format: "date" } })),
  ...fieldsOf(Outcome, "latest", "created_at", "updated_at"),
  attachments: Schema.Array(AttachmentRecord).annotations({ description: "The outcome's files, in order (Loomio's attachments)" })
})

export const SearchResultRecord = record("SearchResult", "An element of search_results (spec: Search result); fields that do not apply are null", {
  ...fieldsOf(SearchResult, "id", "searchable_type", "searchable_id"),
  highlight: Schema.String.annotations({ description: "HTML excerpt, matched words in <b>" }),
  ...fieldsOf(
    SearchResult,
    "topic_id",
    "group_id",
    "group_name",
    "group_key",
    "group_handle",
    "discussion_id",
    "discussion_key",
    "discussion_title",
    "poll_id",
    "poll_key",
    "poll_title",
    "author_id",
    "author_name",
    "authored_at",
    "tags"
  )
})

export const ReportUserRowRecord = record("ParticipationReportUserRow", "A person's participation over the selected groups", {
  id: Id,
  name: Schema.String,
  country: NullText,
  delegate: Schema.Boolean,
  threads: Schema.Int,
  comments: Schema.Int,
  polls: Schema.Int,
  votes: Schema.Int,
  outcomes: Schema.Int,
  reactions: Schema.Int,
  votes_issued: Schema.Int.annotations({ description: "Identified ballots issued (anonymous polls excluded)" }),
  votes_cast: Schema.Int,
  votes_missed: Schema.Int,
  all_votes_cast: Schema.Boolean.annotations({ description: "At least one ballot issued and every issued ballot cast" })
})

export type ServerUserJson = typeof ServerUserRecord.Type

/** **Ask to join** (decisions §12), an extension: waiting while `response` is null. */
export const MembershipRequestRecord = record("MembershipRequest", "A request to join a group (Loomio's membership_request)", MembershipRequest.fields)

/** A group's tag (decisions §12), an extension: threads carry their tags' names (`tags`). */
export const TagRecord = record("Tag", "A group's tag and its colour", fieldsOf(Tag, "id", "group_id", "name", "color", "created_at"))

/** One edit of a thread (decisions §12, "Show edits"), an extension: each changed field's [before, after]. */
export const VersionRecord = record("Version", "An edit: who (whodunnit, a user id), when, and each field's [before, after]", Version.fields)
