/**
 * Every endpoint, declared once: paths, parameters, bodies, responses and security. The server routes
 * from these declarations and the OpenAPI documents are generated from them. Handlers read bodies
 * themselves (`handleRaw`) because Loomio clients send flat, wrapped and form bodies alike.
 */
import { HttpApi, HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { B1Auth, B2Auth, B3Auth } from "./auth.js"
import { Bool, Int, Str, StrArray } from "./request.js"

/** Query parameters are read by the handlers; these declarations document them. */
const Q = (description: string) =>
  Schema.optional(Schema.Union(Schema.String, Schema.Array(Schema.String)).annotations({ description }))

const ResponseQuery = {
  compact: Q("Only 1: omit bulky related records"),
  exclude_types: Q("Space-separated singular record types to omit from related records")
}
const PageQuery = {
  limit: Q("Page size, 1 to 200, default 50"),
  offset: Q("Records to skip, default 0")
}

const ErrorBody = Schema.Struct({ error: Schema.String })
const ValidationBody = Schema.Struct({ errors: Schema.Record({ key: Schema.String, value: Schema.Array(Schema.String) }) })
const Forbidden = ErrorBody.annotations({ identifier: "Forbidden", description: "Not authenticated or not permitted" })
const NotFound = ErrorBody.annotations({ identifier: "NotFound" })
const BadRequest = ErrorBody.annotations({ identifier: "BadRequest", description: "Missing, unknown or mistyped parameter" })
const Unprocessable = ValidationBody.annotations({ identifier: "ValidationErrors" })

const Meta = Schema.Struct({ root: Schema.String, total: Schema.optional(Schema.Int) })
const Records = Schema.Array(Schema.Record({ key: Schema.String, value: Schema.Unknown }))

const Group = Schema.Struct({
  id: Schema.Int,
  key: Schema.String,
  handle: Schema.NullOr(Schema.String),
  name: Schema.String,
  full_name: Schema.String,
  parent_id: Schema.NullOr(Schema.Int),
  enabled: Schema.Boolean,
  memberships_count: Schema.Int,
  accepted_memberships_count: Schema.Int,
  pending_memberships_count: Schema.Int,
  admin_memberships_count: Schema.Int,
  delegates_count: Schema.Int,
  discussions_count: Schema.Int,
  polls_count: Schema.Int,
  subgroups_count: Schema.Int
}).annotations({ identifier: "Group" })

const GroupsDocument = Schema.Struct({
  groups: Schema.Array(Group),
  parent_groups: Schema.optional(Schema.Array(Group)),
  memberships: Schema.optional(Records),
  meta: Meta
}).annotations({ identifier: "GroupsDocument" })

const MembershipsDocument = Schema.Struct({
  memberships: Records,
  users: Schema.optional(Records),
  groups: Schema.optional(Schema.Array(Group)),
  meta: Meta
}).annotations({ identifier: "MembershipsDocument" })

export const MembershipsInput = Schema.Struct({
  group_id: Int,
  emails: StrArray,
  remove_absent: Schema.optional(Bool)
}).annotations({ identifier: "MembershipsInput" })

const MembershipsResult = Schema.Struct({
  added_emails: Schema.Array(Schema.String),
  removed_emails: Schema.Array(Schema.String)
}).annotations({ identifier: "MembershipsResult" })

const idParam = HttpApiSchema.param("id", Schema.String.annotations({ description: "Numeric id, key or handle" }))

export class B2Groups extends HttpApiGroup.make("b2.groups")
  .add(
    HttpApiEndpoint.get("list", "/api/b2/groups")
      .setUrlParams(Schema.Struct(ResponseQuery))
      .addSuccess(GroupsDocument)
      .annotate(OpenApi.Summary, "Groups where the caller has an active membership (not paginated)")
  )
  .add(
    HttpApiEndpoint.get("show")`/api/b2/groups/${idParam}`
      .setUrlParams(Schema.Struct(ResponseQuery))
      .addSuccess(GroupsDocument)
      .addError(NotFound, { status: 404 })
      .annotate(OpenApi.Summary, "One group by id, key or handle")
  )
  .addError(Forbidden, { status: 403 })
  .addError(BadRequest, { status: 400 })
  .middleware(B2Auth)
{}

export class B2Memberships extends HttpApiGroup.make("b2.memberships")
  .add(
    HttpApiEndpoint.get("list", "/api/b2/memberships")
      .setUrlParams(Schema.Struct({ group_id: Q("Group id (required)"), ...PageQuery, ...ResponseQuery }))
      .addSuccess(MembershipsDocument)
      .addError(NotFound, { status: 404 })
      .annotate(OpenApi.Summary, "Members of a group; e-mail addresses only for yourself or as a group administrator")
  )
  .add(
    HttpApiEndpoint.post("sync", "/api/b2/memberships")
      .setPayload(MembershipsInput)
      .addSuccess(MembershipsResult)
      .addError(NotFound, { status: 404 })
      .addError(Unprocessable, { status: 422 })
      .annotate(OpenApi.Summary, "Invite addresses to a group and optionally remove members not listed (administrators only)")
  )
  .addError(Forbidden, { status: 403 })
  .addError(BadRequest, { status: 400 })
  .middleware(B2Auth)
{}

// Server API

const Identity = Schema.Struct({
  id: Schema.Int,
  identity_type: Schema.String,
  uid: Schema.String,
  email: Schema.NullOr(Schema.String),
  name: Schema.NullOr(Schema.String)
}).annotations({ identifier: "Identity" })

const ServerUser = Schema.Struct({
  id: Schema.Int,
  name: Schema.NullOr(Schema.String),
  username: Schema.NullOr(Schema.String),
  email: Schema.NullOr(Schema.String),
  is_admin: Schema.Boolean,
  active: Schema.Boolean,
  deactivated_at: Schema.NullOr(Schema.String),
  identities: Schema.Array(Identity)
}).annotations({ identifier: "ServerUser" })

export const ServerUserUpdate = Schema.Struct({
  user: Schema.Struct({
    name: Schema.optional(Schema.NullOr(Str)),
    username: Schema.optional(Schema.NullOr(Str)),
    email: Schema.optional(Str),
    is_admin: Schema.optional(Bool)
  })
}).annotations({ identifier: "ServerUserUpdate" })

const UserDocument = Schema.Struct({ user: ServerUser })
const UsersDocument = Schema.Struct({ users: Schema.Array(ServerUser), meta: Schema.optional(Meta) })
const Success = Schema.Struct({ success: Schema.Literal(true) })
const SuccessWithUser = Schema.Struct({ success: Schema.Literal(true), user: ServerUser })

const userId = HttpApiSchema.param("id", Schema.String.annotations({ description: "User id" }))
const identityType = HttpApiSchema.param("identity_type", Schema.String)
const uid = HttpApiSchema.param("uid", Schema.String)

/** The same operations by id and by identity; PUT only where Loomio has it (by id). */
const id = {
  show: HttpApiEndpoint.get("byId.show")`/api/b3/users/${userId}`.addSuccess(UserDocument),
  update: HttpApiEndpoint.patch("byId.update")`/api/b3/users/${userId}`.setPayload(ServerUserUpdate).addSuccess(UserDocument),
  put: HttpApiEndpoint.put("byId.put")`/api/b3/users/${userId}`
    .setPayload(ServerUserUpdate).addSuccess(UserDocument).annotate(OpenApi.Deprecated, true),
  delete: HttpApiEndpoint.del("byId.delete")`/api/b3/users/${userId}`.addSuccess(Success),
  deactivate: HttpApiEndpoint.post("byId.deactivate")`/api/b3/users/${userId}/deactivate`.addSuccess(SuccessWithUser),
  reactivate: HttpApiEndpoint.post("byId.reactivate")`/api/b3/users/${userId}/reactivate`.addSuccess(SuccessWithUser),
  redact: HttpApiEndpoint.post("byId.redact")`/api/b3/users/${userId}/redact`.addSuccess(Success)
}
const ident = {
  show: HttpApiEndpoint.get("byIdentity.show")`/api/b3/users/identity/${identityType}/${uid}`.addSuccess(UserDocument),
  update: HttpApiEndpoint.patch("byIdentity.update")`/api/b3/users/identity/${identityType}/${uid}`
    .setPayload(ServerUserUpdate).addSuccess(UserDocument),
  delete: HttpApiEndpoint.del("byIdentity.delete")`/api/b3/users/identity/${identityType}/${uid}`.addSuccess(Success),
  deactivate: HttpApiEndpoint.post("byIdentity.deactivate")`/api/b3/users/identity/${identityType}/${uid}/deactivate`
    .addSuccess(SuccessWithUser),
  reactivate: HttpApiEndpoint.post("byIdentity.reactivate")`/api/b3/users/identity/${identityType}/${uid}/reactivate`
    .addSuccess(SuccessWithUser),
  redact: HttpApiEndpoint.post("byIdentity.redact")`/api/b3/users/identity/${identityType}/${uid}/redact`.addSuccess(Success)
}

export class B3Users extends HttpApiGroup.make("b3.users")
  .add(
    HttpApiEndpoint.get("list", "/api/b3/users")
      .setUrlParams(Schema.Struct({ is_admin: Q("true/false filter"), limit: Q("1 to 1000, default 200"), offset: Q("default 0") }))
      .addSuccess(UsersDocument)
  )
  .add(id.show).add(id.update).add(id.put).add(id.delete).add(id.deactivate).add(id.reactivate).add(id.redact)
  .add(ident.show).add(ident.update).add(ident.delete).add(ident.deactivate).add(ident.reactivate).add(ident.redact)
  .add(
    HttpApiEndpoint.post("legacy.deactivate", "/api/b3/users/deactivate")
      .setUrlParams(Schema.Struct({ id: Q("User id (required)") }))
      .addSuccess(SuccessWithUser)
      .annotate(OpenApi.Deprecated, true)
  )
  .add(
    HttpApiEndpoint.post("legacy.reactivate", "/api/b3/users/reactivate")
      .setUrlParams(Schema.Struct({ id: Q("User id (required)") }))
      .addSuccess(SuccessWithUser)
      .annotate(OpenApi.Deprecated, true)
  )
  .addError(Forbidden, { status: 403 })
  .addError(NotFound, { status: 404 })
  .addError(BadRequest, { status: 400 })
  .addError(Unprocessable, { status: 422 })
  .middleware(B3Auth)
{}

// Discussions, comments, threads and reactions (issue 3)

const BodyFormat = Schema.Literal("md", "html").annotations({ message: () => "must be md or html" })

export const DiscussionInput = Schema.Struct({
  group_id: Schema.optional(Int),
  title: Schema.optional(Schema.NullOr(Str)),
  description: Schema.optional(Schema.NullOr(Str)),
  description_format: Schema.optional(BodyFormat),
  private: Schema.optional(Bool).annotations({ description: "Loomio's privacy flag; checked against the group's discussion_privacy_options" }),
  recipient_audience: Schema.optional(Schema.NullOr(Schema.Literal("group"))),
  recipient_user_ids: Schema.optional(Schema.Array(Int)),
  recipient_emails: Schema.optional(StrArray),
  recipient_message: Schema.optional(Schema.NullOr(Str))
}).annotations({ identifier: "DiscussionInput" })

export const CommentInput = Schema.Struct({
  discussion_id: Schema.optional(Int),
  parent_id: Schema.optional(Schema.NullOr(Int)),
  body: Schema.optional(Schema.NullOr(Str)),
  body_format: Schema.optional(BodyFormat)
}).annotations({ identifier: "CommentInput" })

export const ReactionInput = Schema.Struct({
  reactable_type: Schema.Literal("Discussion", "Comment", "Poll", "Stance", "Outcome"),
  reactable_id: Int,
  reaction: Str
}).annotations({ identifier: "ReactionInput" })

const related = (...roots: ReadonlyArray<string>) => Object.fromEntries(roots.map((r) => [r, Schema.optional(Records)]))

const DiscussionsDocument = Schema.Struct({
  discussions: Records,
  ...related("topics", "groups", "users"),
  meta: Meta
}).annotations({ identifier: "DiscussionsDocument" })

const CommentsDocument = Schema.Struct({
  comments: Records,
  ...related("discussions", "topics", "users"),
  meta: Meta
}).annotations({ identifier: "CommentsDocument" })

const ThreadsDocument = Schema.Struct({
  threads: Records,
  ...related("discussions", "groups", "users"),
  meta: Meta
}).annotations({ identifier: "ThreadsDocument" })

const ItemsDocument = Schema.Struct({
  items: Records,
  ...related("discussions", "comments", "reactions", "topics", "groups", "users"),
  meta: Meta
}).annotations({ identifier: "ThreadItemsDocument" })

const ReactionsDocument = Schema.Struct({ reactions: Records, ...related("users"), meta: Meta })
  .annotations({ identifier: "ReactionsDocument" })

const MarkdownDocument = Schema.Struct({ markdown: Schema.String }).annotations({ identifier: "ThreadMarkdown" })

const discussionRef = HttpApiSchema.param("id", Schema.String.annotations({ description: "Numeric id or key" }))
const numericId = HttpApiSchema.param("id", Schema.String.annotations({ description: "Numeric id" }))
const topicId = HttpApiSchema.param("id", Schema.String.annotations({ description: "Topic id (topic_id)" }))

export class B2Discussions extends HttpApiGroup.make("b2.discussions")
  .add(
    HttpApiEndpoint.get("list", "/api/b2/discussions")
      .setUrlParams(Schema.Struct({
        group_id: Q("Group id (required)"),
        status: Q("open (default), closed or all"),
        ...PageQuery,
        per: Q("Alias of limit"),
        from: Q("Alias of offset"),
        ...ResponseQuery
      }))
      .addSuccess(DiscussionsDocument)
      .annotate(OpenApi.Summary, "Discussions of a group visible to the caller, latest activity first")
  )
  .add(
    HttpApiEndpoint.post("create", "/api/b2/discussions")
      .setPayload(DiscussionInput)
      .addSuccess(DiscussionsDocument)
      .annotate(OpenApi.Summary, "Start a discussion; recipients are notified or invited as guests")
  )
  .add(
    HttpApiEndpoint.get("show")`/api/b2/discussions/${discussionRef}`
      .setUrlParams(Schema.Struct(ResponseQuery))
      .addSuccess(DiscussionsDocument)
  )
  .add(HttpApiEndpoint.patch("update")`/api/b2/discussions/${discussionRef}`.setPayload(DiscussionInput).addSuccess(DiscussionsDocument))
  .add(
    HttpApiEndpoint.put("put")`/api/b2/discussions/${discussionRef}`
      .setPayload(DiscussionInput).addSuccess(DiscussionsDocument).annotate(OpenApi.Deprecated, true)
  )
  .add(
    HttpApiEndpoint.del("delete")`/api/b2/discussions/${discussionRef}`
      .addSuccess(DiscussionsDocument)
      .annotate(OpenApi.Summary, "Soft delete: the record stays, title and description are hidden")
  )
  .add(
    HttpApiEndpoint.post("close")`/api/b2/discussions/${discussionRef}/close`
      .addSuccess(DiscussionsDocument)
      .annotate(OpenApi.Summary, "Extension: close the thread (no new comments)")
  )
  .add(
    HttpApiEndpoint.post("reopen")`/api/b2/discussions/${discussionRef}/reopen`
      .addSuccess(DiscussionsDocument)
      .annotate(OpenApi.Summary, "Extension: reopen a closed thread")
  )
  .addError(Forbidden, { status: 403 })
  .addError(NotFound, { status: 404 })
  .addError(BadRequest, { status: 400 })
  .addError(Unprocessable, { status: 422 })
  .middleware(B2Auth)
{}

export class B2Comments extends HttpApiGroup.make("b2.comments")
  .add(
    HttpApiEndpoint.post("create", "/api/b2/comments")
      .setPayload(CommentInput)
      .addSuccess(CommentsDocument)
      .annotate(OpenApi.Summary, "Comment on a discussion, or reply to a comment with parent_id")
  )
  .add(HttpApiEndpoint.patch("update")`/api/b2/comments/${numericId}`.setPayload(CommentInput).addSuccess(CommentsDocument))
  .add(
    HttpApiEndpoint.put("put")`/api/b2/comments/${numericId}`
      .setPayload(CommentInput).addSuccess(CommentsDocument).annotate(OpenApi.Deprecated, true)
  )
  .add(
    HttpApiEndpoint.del("delete")`/api/b2/comments/${numericId}`
      .addSuccess(CommentsDocument)
      .annotate(OpenApi.Summary, "Soft delete: the body is hidden")
  )
  .addError(Forbidden, { status: 403 })
  .addError(NotFound, { status: 404 })
  .addError(BadRequest, { status: 400 })
  .addError(Unprocessable, { status: 422 })
  .middleware(B2Auth)
{}

export class B2Threads extends HttpApiGroup.make("b2.threads")
  .add(
    HttpApiEndpoint.get("list", "/api/b2/threads")
      .setUrlParams(Schema.Struct({ ...PageQuery, ...ResponseQuery }))
      .addSuccess(ThreadsDocument)
      .annotate(OpenApi.Summary, "Threads visible to the caller, latest activity first")
  )
  .add(HttpApiEndpoint.get("show")`/api/b2/threads/${topicId}`.setUrlParams(Schema.Struct(ResponseQuery)).addSuccess(ThreadsDocument))
  .add(
    HttpApiEndpoint.get("items")`/api/b2/threads/${topicId}/items`
      .setUrlParams(Schema.Struct(ResponseQuery))
      .addSuccess(ItemsDocument)
      .annotate(OpenApi.Summary, "The thread's ordered event stream (by sequence_id)")
  )
  .add(
    HttpApiEndpoint.get("markdown")`/api/b2/threads/${topicId}/markdown`
      .addSuccess(MarkdownDocument)
      .annotate(OpenApi.Summary, "The whole visible thread as one Markdown document")
  )
  .addError(Forbidden, { status: 403 })
  .addError(NotFound.annotations({ description: "Unknown, or not visible to the caller" }), { status: 404 })
  .addError(BadRequest, { status: 400 })
  .middleware(B2Auth)
{}

export class B2Reactions extends HttpApiGroup.make("b2.reactions")
  .add(
    HttpApiEndpoint.post("create", "/api/b2/reactions")
      .setPayload(ReactionInput)
      .addSuccess(ReactionsDocument)
      .annotate(OpenApi.Summary, "Extension: add the caller's reaction to a discussion or comment")
  )
  .add(
    HttpApiEndpoint.del("delete")`/api/b2/reactions/${numericId}`
      .addSuccess(Success)
      .annotate(OpenApi.Summary, "Extension: remove one of the caller's reactions")
  )
  .addError(Forbidden, { status: 403 })
  .addError(NotFound, { status: 404 })
  .addError(BadRequest, { status: 400 })
  .addError(Unprocessable, { status: 422 })
  .middleware(B2Auth)
{}

export class System extends HttpApiGroup.make("system")
  .add(HttpApiEndpoint.get("healthz", "/healthz").addSuccess(Schema.Struct({ ok: Schema.Boolean })))
  .add(
    HttpApiEndpoint.get("version", "/api/v1/boot/version")
      .addSuccess(Schema.Struct({ version: Schema.String, api: Schema.String }))
  )
  .add(HttpApiEndpoint.get("openapiB2", "/api/b2/openapi.json").addSuccess(Schema.Unknown))
  .add(HttpApiEndpoint.get("openapiB3", "/api/b3/openapi.json").addSuccess(Schema.Unknown))
{}

// Polls, votes (stances) and outcomes

const pollFields = {
  title: Schema.optional(Str),
  details: Schema.optional(Schema.NullOr(Str)),
  details_format: Schema.optional(BodyFormat),
  options: Schema.optional(StrArray),
  closing_at: Schema.optional(Schema.NullOr(Str).annotations({ description: "ISO 8601 date-time; null: a draft (voting disabled)" })),
  recipient_audience: Schema.optional(Schema.NullOr(Schema.Literal("group"))),
  recipient_user_ids: Schema.optional(Schema.Array(Int)),
  recipient_emails: Schema.optional(StrArray),
  recipient_message: Schema.optional(Schema.NullOr(Str)),
  notify_recipients: Schema.optional(Bool)
}

/** Enumerated values are checked by the core (422 naming the field), so they are strings here. */
export const PollInput = Schema.Struct({
  ...pollFields,
  group_id: Schema.optional(Schema.NullOr(Int)),
  discussion_id: Schema.optional(Schema.NullOr(Int)),
  topic_id: Schema.optional(Schema.NullOr(Int).annotations({ description: "Loomio 3.8: the thread to add the poll to" })),
  poll_type: Schema.optional(Str.annotations({ description: "proposal, poll, count, score, ranked_choice, meeting, dot_vote" })),
  specified_voters_only: Schema.optional(Bool),
  hide_results: Schema.optional(Str.annotations({ description: "off, until_vote, until_closed" })),
  shuffle_options: Schema.optional(Bool),
  anonymous: Schema.optional(Bool),
  notify_on_closing_soon: Schema.optional(Str.annotations({ description: "nobody, author, undecided_voters, voters" })),
  min_score: Schema.optional(Int.annotations({ description: "extension (Loomio): lowest score of a score poll" })),
  max_score: Schema.optional(Int.annotations({ description: "extension (Loomio): highest score of a score poll" })),
  minimum_stance_choices: Schema.optional(Int.annotations({ description: "extension (Loomio): fewest choices on a ballot" })),
  maximum_stance_choices: Schema.optional(Int.annotations({ description: "extension (Loomio): most choices (multiple choice poll)" })),
  dots_per_person: Schema.optional(Int.annotations({ description: "extension (Loomio): a dot vote's budget" })),
  can_respond_maybe: Schema.optional(Bool.annotations({ description: "extension (Loomio): meetings offer 'maybe'" }))
}).annotations({ identifier: "PollInput" })

export const PollPatchInput = Schema.Struct(pollFields).annotations({ identifier: "PollPatchInput" })
export const PollReopenInput = Schema.Struct({ closing_at: Str }).annotations({ identifier: "PollReopenInput" })

export const StanceInput = Schema.Struct({
  poll_id: Int,
  option_scores: Schema.Record({ key: Schema.String, value: Int }).annotations({
    description: "option name → integer score; proposal/poll: {\"agree\": 1}",
    message: () => "must be an object of option names to integer scores"
  }),
  reason: Schema.optional(Schema.NullOr(Str)),
  reason_format: Schema.optional(BodyFormat)
}).annotations({ identifier: "StanceInput" })

const outcomeFields = {
  statement: Schema.optional(Str),
  statement_format: Schema.optional(BodyFormat),
  review_on: Schema.optional(Schema.NullOr(Str).annotations({ description: "YYYY-MM-DD: when outcome_review_due is raised" }))
}
export const OutcomeInput = Schema.Struct({
  ...outcomeFields,
  poll_id: Int,
  poll_option_id: Schema.optional(Schema.NullOr(Int))
}).annotations({ identifier: "OutcomeInput" })
export const OutcomePatchInput = Schema.Struct(outcomeFields).annotations({ identifier: "OutcomePatchInput" })

const PollsDocument = Schema.Struct({
  polls: Records,
  ...related("poll_options", "stances", "outcomes", "topics", "groups", "users"),
  meta: Meta
}).annotations({ identifier: "PollsDocument" })

const pollId = HttpApiSchema.param("id", Schema.String.annotations({ description: "Numeric id or key" }))
const recordId = HttpApiSchema.param("id", Schema.String.annotations({ description: "Numeric id" }))

export class B2Polls extends HttpApiGroup.make("b2.polls")
  .add(
    HttpApiEndpoint.get("list", "/api/b2/polls")
      .setUrlParams(Schema.Struct({ group_id: Q("Group id (required)"), status: Q("active (default), closed, all"), ...PageQuery, ...ResponseQuery }))
      .addSuccess(PollsDocument)
  )
  .add(HttpApiEndpoint.post("create", "/api/b2/polls").setPayload(PollInput).addSuccess(PollsDocument))
  .add(HttpApiEndpoint.get("show")`/api/b2/polls/${pollId}`.setUrlParams(Schema.Struct(ResponseQuery)).addSuccess(PollsDocument))
  .add(HttpApiEndpoint.patch("update")`/api/b2/polls/${pollId}`.setPayload(PollPatchInput).addSuccess(PollsDocument))
  .add(HttpApiEndpoint.put("put")`/api/b2/polls/${pollId}`.setPayload(PollPatchInput).addSuccess(PollsDocument).annotate(OpenApi.Deprecated, true))
  .add(HttpApiEndpoint.del("delete")`/api/b2/polls/${pollId}`.addSuccess(PollsDocument))
  .add(HttpApiEndpoint.post("close")`/api/b2/polls/${pollId}/close`.addSuccess(PollsDocument)
    .annotate(OpenApi.Summary, "Extension: close now (poll_closed_by_user)"))
  .add(HttpApiEndpoint.post("reopen")`/api/b2/polls/${pollId}/reopen`.setPayload(PollReopenInput).addSuccess(PollsDocument)
    .annotate(OpenApi.Summary, "Extension: reopen with a future closing_at (poll_reopened)"))
  .add(HttpApiEndpoint.post("vote", "/api/b2/stances").setPayload(StanceInput).addSuccess(PollsDocument)
    .annotate(OpenApi.Summary, "Extension: cast or change the caller's vote"))
  .add(HttpApiEndpoint.post("createOutcome", "/api/b2/outcomes").setPayload(OutcomeInput).addSuccess(PollsDocument)
    .annotate(OpenApi.Summary, "Extension: state the outcome of a closed poll"))
  .add(HttpApiEndpoint.patch("updateOutcome")`/api/b2/outcomes/${recordId}`.setPayload(OutcomePatchInput).addSuccess(PollsDocument)
    .annotate(OpenApi.Summary, "Extension: change an outcome (outcome_updated)"))
  .addError(Forbidden, { status: 403 })
  .addError(NotFound, { status: 404 })
  .addError(BadRequest, { status: 400 })
  .addError(Unprocessable, { status: 422 })
  .middleware(B2Auth)
{}

// Webhooks (chatbots): group administrators only

const Chatbot = Schema.Struct({
  id: Schema.Int,
  group_id: Schema.Int,
  name: Schema.String,
  kind: Schema.Literal("webhook", "matrix"),
  webhook_kind: Schema.NullOr(Schema.Literal("markdown", "slack", "discord", "microsoft", "webex")),
  server: Schema.String,
  event_kinds: Schema.Array(Schema.String),
  notification_only: Schema.Boolean
}).annotations({ identifier: "Chatbot" })

const ChatbotsDocument = Schema.Struct({ chatbots: Schema.Array(Chatbot), meta: Meta }).annotations({ identifier: "ChatbotsDocument" })

/** Enumerated values are checked by the core (422 naming the field), so they are strings here. */
const chatbotFields = {
  name: Schema.optional(Str),
  kind: Schema.optional(Str.annotations({ description: "webhook (default) or matrix" })),
  webhook_kind: Schema.optional(Schema.NullOr(Str).annotations({ description: "markdown (default), slack, discord, microsoft, webex" })),
  server: Schema.optional(Str.annotations({ description: "Destination URL; must resolve to a public address" })),
  event_kinds: Schema.optional(StrArray),
  notification_only: Schema.optional(Bool)
}
export const ChatbotCreateInput = Schema.Struct({ group_id: Int, ...chatbotFields }).annotations({ identifier: "ChatbotInput" })
/** `group_id` is accepted and ignored: a webhook never moves to another group. */
export const ChatbotUpdateInput = Schema.Struct({ group_id: Schema.optional(Int), ...chatbotFields })
  .annotations({ identifier: "ChatbotUpdate" })
export const ChatbotCheckInput = Schema.Struct({ group_id: Int, server: Str }).annotations({ identifier: "ChatbotCheck" })

const chatbotId = HttpApiSchema.param("id", Schema.String.annotations({ description: "Chatbot id" }))

export class B2Chatbots extends HttpApiGroup.make("b2.chatbots")
  .add(
    HttpApiEndpoint.get("list", "/api/b2/chatbots")
      .setUrlParams(Schema.Struct({ group_id: Q("Group id (required)") }))
      .addSuccess(ChatbotsDocument)
      .annotate(OpenApi.Summary, "The group's webhooks (administrators only: the response holds destination URLs)")
  )
  .add(HttpApiEndpoint.post("create", "/api/b2/chatbots").setPayload(ChatbotCreateInput).addSuccess(ChatbotsDocument))
  .add(HttpApiEndpoint.post("check", "/api/b2/chatbots/check")
    .setPayload(ChatbotCheckInput)
    .addSuccess(Schema.Struct({ success: Schema.Literal(true), status: Schema.Int }))
    .annotate(OpenApi.Summary, "Send a test message to a destination; 422 when it is not public or does not answer 2xx"))
  .add(HttpApiEndpoint.patch("update")`/api/b2/chatbots/${chatbotId}`.setPayload(ChatbotUpdateInput).addSuccess(ChatbotsDocument))
  .add(HttpApiEndpoint.put("put")`/api/b2/chatbots/${chatbotId}`
    .setPayload(ChatbotUpdateInput).addSuccess(ChatbotsDocument).annotate(OpenApi.Deprecated, true))
  .add(HttpApiEndpoint.del("delete")`/api/b2/chatbots/${chatbotId}`.addSuccess(Schema.Struct({ success: Schema.Literal(true) })))
  .addError(Forbidden, { status: 403 })
  .addError(NotFound, { status: 404 })
  .addError(BadRequest, { status: 400 })
  .addError(Unprocessable, { status: 422 })
  .middleware(B2Auth)
{}

// Reports and search (issue 6)

const ReportUserRow = Schema.Struct({
  id: Schema.Int,
  name: Schema.String,
  country: Schema.NullOr(Schema.String),
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
}).annotations({ identifier: "ParticipationReportUserRow" })

const ReportDocument = Schema.Struct(
  { users: Schema.optional(Schema.Array(ReportUserRow)) },
  Schema.Record({ key: Schema.String, value: Schema.Unknown })
).annotations({ identifier: "ParticipationReport", description: "A plain JSON object; base and countries sections have their own fields" })

const SearchResult = Schema.Struct({
  searchable_type: Schema.Literal("Discussion", "Comment", "Poll", "Stance", "Outcome"),
  searchable_id: Schema.Int,
  highlight: Schema.String.annotations({ description: "HTML excerpt, matched words in <b>" }),
  group_id: Schema.NullOr(Schema.Int),
  group_name: Schema.NullOr(Schema.String),
  discussion_key: Schema.NullOr(Schema.String),
  poll_key: Schema.NullOr(Schema.String),
  author_id: Schema.NullOr(Schema.Int),
  author_name: Schema.NullOr(Schema.String),
  authored_at: Schema.String,
  tags: Schema.Array(Schema.String)
}).annotations({ identifier: "SearchResult" })

const SearchDocument = Schema.Struct({
  search_results: Schema.Array(SearchResult),
  ...related("groups", "users"),
  meta: Schema.Struct({ root: Schema.String }).annotations({ description: "No total: the result set is bounded (at most 20)" })
}).annotations({ identifier: "SearchDocument" })

export class B2Reports extends HttpApiGroup.make("b2.reports")
  .add(
    HttpApiEndpoint.get("report", "/api/b2/reports")
      .setUrlParams(Schema.Struct({
        section: Q("base (default), users or countries"),
        group_scope: Q("custom (with group_ids) or my; all is read as my"),
        group_ids: Q("Comma-separated group ids; groups the caller is not a member of are ignored"),
        start_month: Q("YYYY-MM, default 12 months ago"),
        end_month: Q("YYYY-MM, default the current month"),
        interval: Q("day, week, month (default) or year, for section=base"),
        member_type: Q("delegate: with section=users, only current delegates")
      }))
      .addSuccess(ReportDocument)
      .annotate(OpenApi.Summary, "Participation report over the caller's groups (plain JSON object)")
  )
  .addError(Forbidden, { status: 403 })
  .addError(BadRequest, { status: 400 })
  .middleware(B2Auth)
{}

export class B2Search extends HttpApiGroup.make("b2.search")
  .add(
    HttpApiEndpoint.get("search", "/api/b2/search")
      .setUrlParams(Schema.Struct({
        query: Q("Text, matched as text: words, prefixes and words one typo away"),
        group_id: Q("One group"),
        org_id: Q("A group and its subgroups; 0: threads without a group"),
        type: Q("Discussion, Comment, Poll, Stance or Outcome"),
        types: Q("Comma-separated types"),
        tag: Q("Threads with this tag"),
        author_id: Q("Only this author; without query, their recent visible activity"),
        order: Q("authored_at_desc (or authored_at_asc); default relevance"),
        ...ResponseQuery
      }))
      .addSuccess(SearchDocument)
      .annotate(OpenApi.Summary, "Search what the caller may read (at most 20 results, no total)")
  )
  .addError(Forbidden, { status: 403 })
  .addError(BadRequest, { status: 400 })
  .middleware(B2Auth)
{}

// Legacy API (/api/b1): the same operations as b2, the key as an api_key parameter (not in the b2 document)

const B1Query = { api_key: Q("The user's API key (also accepted as a JSON body or form field)") }

export class B1Discussions extends HttpApiGroup.make("b1.discussions")
  .add(HttpApiEndpoint.post("create", "/api/b1/discussions").setPayload(DiscussionInput).addSuccess(DiscussionsDocument))
  .add(
    HttpApiEndpoint.get("show")`/api/b1/discussions/${discussionRef}`
      .setUrlParams(Schema.Struct({ ...B1Query, ...ResponseQuery }))
      .addSuccess(DiscussionsDocument)
  )
  .addError(Forbidden, { status: 403 })
  .addError(NotFound, { status: 404 })
  .addError(BadRequest, { status: 400 })
  .addError(Unprocessable, { status: 422 })
  .middleware(B1Auth)
{}

export class B1Polls extends HttpApiGroup.make("b1.polls")
  .add(HttpApiEndpoint.post("create", "/api/b1/polls").setPayload(PollInput).addSuccess(PollsDocument))
  .add(HttpApiEndpoint.get("show")`/api/b1/polls/${pollId}`.setUrlParams(Schema.Struct({ ...B1Query, ...ResponseQuery })).addSuccess(PollsDocument))
  .addError(Forbidden, { status: 403 })
  .addError(NotFound, { status: 404 })
  .addError(BadRequest, { status: 400 })
  .addError(Unprocessable, { status: 422 })
  .middleware(B1Auth)
{}

export class B1Memberships extends HttpApiGroup.make("b1.memberships")
  .add(
    HttpApiEndpoint.get("list", "/api/b1/memberships")
      .setUrlParams(Schema.Struct({ ...B1Query, group_id: Q("Group id (required)"), ...PageQuery, ...ResponseQuery }))
      .addSuccess(MembershipsDocument)
  )
  .add(HttpApiEndpoint.post("sync", "/api/b1/memberships").setPayload(MembershipsInput).addSuccess(MembershipsResult))
  .addError(Forbidden, { status: 403 })
  .addError(NotFound, { status: 404 })
  .addError(BadRequest, { status: 400 })
  .addError(Unprocessable, { status: 422 })
  .middleware(B1Auth)
{}

/** Everything the server routes. */
export class ConveneApi extends HttpApi.make("convene").add(System).add(B2Groups).add(B2Memberships).add(B3Users)
  .add(B2Discussions).add(B2Comments).add(B2Threads).add(B2Reactions).add(B2Chatbots).add(B2Polls)
  .add(B2Reports).add(B2Search).add(B1Discussions).add(B1Polls).add(B1Memberships) {}

/** The documents clients read: the User API with its extensions, and the Server API. */
export const UserApiDoc = HttpApi.make("convene-b2").add(B2Groups).add(B2Memberships)
  .add(B2Discussions).add(B2Comments).add(B2Threads).add(B2Reactions).add(B2Chatbots).add(B2Polls).add(B2Reports).add(B2Search)
  .annotate(OpenApi.Title, "convene User API (Loomio b2 compatible)").annotate(OpenApi.Version, "1")
export const ServerApiDoc = HttpApi.make("convene-b3").add(B3Users)
  .annotate(OpenApi.Title, "convene Server API (Loomio b3 compatible)").annotate(OpenApi.Version, "1")
