/**
 * Every record the API returns, declared once as a Schema. The serializers (serializers.ts) are typed by
 * these declarations, so a field added to one and not the other fails to compile; the OpenAPI documents
 * describe the same declarations. Enumerated fields take their words from the core's constants.
 */
import {
  CHATBOT_KINDS,
  HIDE_RESULTS,
  NOTIFY_ON_CLOSING_SOON,
  POLL_TYPES,
  SEARCHABLE_TYPES,
  WEBHOOK_KINDS
} from "@convene/core"
import { Schema } from "effect"

const Id = Schema.Int
const NullId = Schema.NullOr(Schema.Int)
const Stamp = Schema.String.annotations({ jsonSchema: { type: "string", format: "date-time" } })
const NullStamp = Schema.NullOr(Stamp)
const NullText = Schema.NullOr(Schema.String)
const Format = Schema.Literal("md", "html")
const Itemable = Schema.Literal(...SEARCHABLE_TYPES)

const record = <F extends Schema.Struct.Fields>(identifier: string, description: string, fields: F) =>
  Schema.Struct(fields).annotations({ identifier, description })

export const GroupRecord = record("Group", "A group; counters are exact (spec: Group)", {
  id: Id,
  key: Schema.String,
  handle: NullText,
  name: Schema.String,
  full_name: Schema.String,
  parent_id: NullId,
  description: NullText,
  enabled: Schema.Boolean,
  is_visible_to_public: Schema.Boolean,
  is_visible_to_parent_members: Schema.Boolean,
  discussion_privacy_options: Schema.Literal("public_only", "private_only", "public_or_private"),
  parent_members_can_see_discussions: Schema.Boolean,
  members_can_start_discussions: Schema.Boolean,
  members_can_edit_discussions: Schema.Boolean,
  members_can_edit_comments: Schema.Boolean,
  members_can_raise_motions: Schema.Boolean,
  members_can_vote: Schema.Boolean,
  members_can_add_members: Schema.Boolean,
  admins_can_edit_user_content: Schema.Boolean,
  memberships_count: Schema.Int,
  accepted_memberships_count: Schema.Int,
  pending_memberships_count: Schema.Int,
  admin_memberships_count: Schema.Int,
  delegates_count: Schema.Int,
  discussions_count: Schema.Int,
  polls_count: Schema.Int,
  subgroups_count: Schema.Int,
  created_at: Stamp
})

export const MembershipRecord = record("Membership", "user_email only on the caller's own membership or for group administrators", {
  id: Id,
  group_id: Id,
  user_id: Id,
  inviter_id: NullId,
  admin: Schema.Boolean,
  delegate: Schema.Boolean,
  title: NullText,
  accepted_at: NullStamp.annotations({ description: "null: a pending invitation" }),
  created_at: Stamp,
  user_email: Schema.optional(Schema.String)
})

export const UserRecord = record("User", "A side-loaded person; email only on the caller's own record", {
  id: Id,
  name: Schema.String,
  username: NullText,
  country: NullText,
  bot: Schema.Boolean,
  deactivated_at: NullStamp,
  email: Schema.optional(NullText)
})

export const IdentityRecord = record("Identity", "An external identity of a server user", {
  id: Id,
  identity_type: Schema.String,
  uid: Schema.String,
  email: NullText,
  name: NullText
})

export const ServerUserRecord = record("ServerUser", "A user account as the Server API shows it", {
  id: Id,
  name: NullText,
  username: NullText,
  email: NullText,
  is_admin: Schema.Boolean,
  active: Schema.Boolean,
  deactivated_at: NullStamp,
  identities: Schema.Array(IdentityRecord)
})

export const TopicRecord = record("Topic", "A thread (Loomio's topic); locked_at is the newest name of closed_at", {
  id: Id,
  group_id: NullId,
  topicable_type: Schema.Literal("Discussion", "Poll"),
  topicable_id: NullId,
  private: Schema.Boolean,
  tags: Schema.Array(Schema.String),
  items_count: Schema.Int,
  replies_count: Schema.Int,
  max_depth: Schema.Int,
  last_activity_at: Stamp,
  closed_at: NullStamp,
  locked_at: NullStamp,
  closer_id: NullId,
  pinned_at: Schema.Null,
  created_at: Stamp,
  updated_at: Stamp
})

export const DiscussionRecord = record("Discussion", "A discussion; deleted ones have title and description null", {
  id: Id,
  key: Schema.String,
  topic_id: Id,
  group_id: NullId,
  title: NullText,
  description: NullText,
  description_format: Format,
  private: Schema.Boolean,
  closed_at: NullStamp,
  last_activity_at: Stamp,
  author_id: Id,
  discarded_at: NullStamp,
  discarded_by: NullId,
  created_at: Stamp,
  updated_at: Stamp
})

export const CommentRecord = record("Comment", "A comment; parent_id is the comment replied to; deleted ones have body null", {
  id: Id,
  discussion_id: Id,
  topic_id: Id,
  parent_id: NullId,
  author_id: Id,
  body: NullText,
  body_format: Format,
  edited_at: NullStamp,
  discarded_at: NullStamp,
  discarded_by: NullId,
  created_at: Stamp,
  updated_at: Stamp
})

export const ThreadItemRecord = record("ThreadItem", "An event of a thread's ordered stream (Loomio's topic item)", {
  id: Id,
  topic_id: Id,
  sequence_id: Schema.Int,
  kind: Schema.String,
  parent_id: NullId,
  depth: Schema.Int,
  position: Schema.Int,
  position_key: NullText,
  child_count: Schema.Int,
  itemable_type: Itemable,
  itemable_id: Id,
  actor_id: NullId,
  pinned: Schema.Boolean,
  created_at: Stamp
})

export const ReactionRecord = record("Reaction", "A person's emoji or shortcode on a record", {
  id: Id,
  reactable_type: Itemable,
  reactable_id: Id,
  user_id: Id,
  reaction: Schema.String,
  created_at: Stamp
})

export const ChatbotRecord = record("Webhook", "A group's webhook (resource name chatbots); only ever shown to its group's administrators", {
  id: Id,
  group_id: Id,
  author_id: NullId,
  name: Schema.String,
  kind: Schema.Literal(...CHATBOT_KINDS),
  webhook_kind: Schema.NullOr(Schema.Literal(...WEBHOOK_KINDS)),
  server: Schema.String.annotations({ jsonSchema: { type: "string", format: "uri" } }),
  event_kinds: Schema.Array(Schema.String),
  notification_only: Schema.Boolean,
  created_at: Stamp,
  updated_at: Stamp
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
  id: Id,
  key: Schema.String,
  topic_id: Id,
  discussion_id: NullId,
  group_id: NullId,
  author_id: Id,
  title: NullText,
  details: NullText,
  details_format: Format,
  poll_type: Schema.Literal(...POLL_TYPES),
  closing_at: NullStamp,
  opened_at: NullStamp,
  closed_at: NullStamp,
  discarded_at: NullStamp,
  discarded_by: NullId,
  specified_voters_only: Schema.Boolean,
  hide_results: Schema.Literal(...HIDE_RESULTS),
  shuffle_options: Schema.Boolean,
  anonymous: Schema.Boolean,
  notify_on_closing_soon: Schema.Literal(...NOTIFY_ON_CLOSING_SOON),
  min_score: Schema.Int,
  max_score: Schema.Int,
  minimum_stance_choices: Schema.Int,
  maximum_stance_choices: Schema.Int,
  dots_per_person: Schema.Int,
  can_respond_maybe: Schema.Boolean,
  voters_count: Schema.Int,
  decided_voters_count: Schema.Int,
  undecided_voters_count: Schema.Int,
  poll_option_ids: Schema.Array(Id),
  results_visible: Schema.Boolean,
  results: Schema.NullOr(Schema.Array(OptionResult)),
  my_stance_id: NullId,
  current_outcome_id: NullId,
  created_at: Stamp,
  updated_at: Stamp
})

export const PollOptionRecord = record("PollOption", "An option of a poll, with its totals when the reader may see results", {
  id: Id,
  poll_id: Id,
  name: Schema.String,
  priority: Schema.Int,
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
  id: Id,
  poll_id: Id,
  participant_id: NullId,
  latest: Schema.Boolean,
  cast_at: NullStamp,
  reason: NullText,
  reason_format: Format,
  option_scores: Schema.Record({ key: Schema.String, value: Schema.Int }),
  stance_choices: Schema.Array(Schema.Struct({ poll_option_id: Id, score: Schema.Int })),
  revoked_at: NullStamp,
  created_at: Stamp,
  updated_at: Stamp
})

export const OutcomeRecord = record("Outcome", "The stated outcome of a closed poll", {
  id: Id,
  poll_id: Id,
  author_id: Id,
  statement: Schema.String,
  statement_format: Format,
  poll_option_id: NullId,
  review_on: Schema.NullOr(Schema.String.annotations({ jsonSchema: { type: "string", format: "date" } })),
  latest: Schema.Boolean,
  created_at: Stamp,
  updated_at: Stamp
})

export const SearchResultRecord = record("SearchResult", "An element of search_results (spec: Search result); fields that do not apply are null", {
  id: Id,
  searchable_type: Itemable,
  searchable_id: Id,
  highlight: Schema.String.annotations({ description: "HTML excerpt, matched words in <b>" }),
  topic_id: Id,
  group_id: NullId,
  group_name: NullText,
  group_key: NullText,
  group_handle: NullText,
  discussion_id: NullId,
  discussion_key: NullText,
  discussion_title: NullText,
  poll_id: NullId,
  poll_key: NullText,
  poll_title: NullText,
  author_id: NullId,
  author_name: NullText,
  authored_at: Stamp,
  tags: Schema.Array(Schema.String)
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

export type GroupJson = typeof GroupRecord.Type
export type MembershipJson = typeof MembershipRecord.Type
export type UserJson = typeof UserRecord.Type
export type ServerUserJson = typeof ServerUserRecord.Type
export type TopicJson = typeof TopicRecord.Type
export type DiscussionJson = typeof DiscussionRecord.Type
export type CommentJson = typeof CommentRecord.Type
export type ThreadItemJson = typeof ThreadItemRecord.Type
export type ReactionJson = typeof ReactionRecord.Type
export type ChatbotJson = typeof ChatbotRecord.Type
export type PollJson = typeof PollRecord.Type
export type PollOptionJson = typeof PollOptionRecord.Type
export type StanceJson = typeof StanceRecord.Type
export type OutcomeJson = typeof OutcomeRecord.Type
export type SearchResultJson = typeof SearchResultRecord.Type
