/**
 * Every endpoint, declared once: path, parameters (params.ts), body (inputs.ts), response (records.ts),
 * security, Loomio's operationId (the endpoint's name) and a summary. The server routes from these
 * declarations, decodes path and query parameters with them, and the OpenAPI documents are generated
 * from them. Payloads are decoded by their declared Schema before the handler runs (group.ts), read as Loomio
 * clients send them: flat, or wrapped under the endpoint's `BodyRoot`, JSON or form.
 */
import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as Multipart from "@effect/platform/Multipart"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { Inputs } from "@convene/core"
import { B1Auth, B2Auth, B3Auth } from "./auth.js"
import { BodyRoot } from "./group.js"
import {
  AliasedPageParams,
  discussionStatus,
  groupIdRequired,
  PageParams,
  pollStatus,
  QueryBool,
  QueryInt,
  QueryText,
  ReportParams,
  ResponseParams,
  SearchParams
} from "./params.js"
import {
  AttachmentRecord,
  ChatbotRecord,
  CommentRecord,
  DelegationRecord,
  PollTemplateRecord,
  DiscussionRecord,
  GroupRecord,
  MembershipRecord,
  MembershipRequestRecord,
  TagRecord,
  VersionRecord,
  OutcomeRecord,
  PollOptionRecord,
  PollRecord,
  ReactionRecord,
  ReportUserRowRecord,
  SearchResultRecord,
  ServerUserRecord,
  StanceRecord,
  ThreadItemRecord,
  TopicRecord,
  UserRecord
} from "./records.js"

// Errors (decisions.md §1), each status with one body.

const ErrorBody = Schema.Struct({ error: Schema.String })
const Forbidden = ErrorBody.annotations({ identifier: "Forbidden", description: "Not authenticated or not permitted" })
const NotFound = ErrorBody.annotations({ identifier: "NotFound", description: "Unknown, or not visible to the caller" })
const BadRequest = ErrorBody.annotations({ identifier: "BadRequest", description: "Missing, unknown or mistyped parameter or field" })
const Unprocessable = Schema.Struct({ errors: Schema.Record({ key: Schema.String, value: Schema.Array(Schema.String) }) })
  .annotations({ identifier: "ValidationErrors", description: "Field → messages" })


// Compound documents (spec: "Compound response envelope"): the primary records under their root,
// related records under theirs, `meta.total` where a total is defined.

const Meta = Schema.Struct({ root: Schema.String, total: Schema.optional(Schema.Int) }).annotations({ identifier: "Meta" })
const many = <A, I>(s: Schema.Schema<A, I>) => Schema.Array(s)
const related = <A, I>(s: Schema.Schema<A, I>) => Schema.optional(Schema.Array(s))

const document = <F extends Schema.Struct.Fields>(identifier: string, fields: F) =>
  Schema.Struct({ ...fields, meta: Meta }).annotations({ identifier })

const GroupsDocument = document("GroupsResponse", {
  groups: many(GroupRecord),
  parent_groups: related(GroupRecord),
  memberships: related(MembershipRecord)
})
const MembershipsDocument = document("MembershipsResponse", {
  memberships: many(MembershipRecord),
  users: related(UserRecord),
  groups: related(GroupRecord)
})
const MembershipsResult = Schema.Struct({
  added_emails: Schema.Array(Schema.String),
  removed_emails: Schema.Array(Schema.String)
}).annotations({ identifier: "MembershipsResult" })
const VolumeLiteral = Schema.Literal("mute", "normal", "loud")
const VolumeResult = Schema.Struct({
  volume: Schema.Struct({
    discussion_id: Schema.optional(Schema.Number),
    group_id: Schema.optional(Schema.Number),
    volume: VolumeLiteral.annotations({ description: "the caller's own setting here" }),
    effective: VolumeLiteral.annotations({ description: "what reaches the caller: a thread's setting wins over its group's; neither set is normal" })
  })
}).annotations({ identifier: "VolumeResult" })
const DiscussionsDocument = document("DiscussionsResponse", {
  discussions: many(DiscussionRecord),
  topics: related(TopicRecord),
  groups: related(GroupRecord),
  users: related(UserRecord)
})
const CommentsDocument = document("CommentsResponse", {
  comments: many(CommentRecord),
  discussions: related(DiscussionRecord),
  topics: related(TopicRecord),
  users: related(UserRecord)
})
const ThreadsDocument = document("ThreadsResponse", {
  threads: many(TopicRecord),
  discussions: related(DiscussionRecord),
  groups: related(GroupRecord),
  users: related(UserRecord)
})
const ItemsDocument = document("ThreadItemsResponse", {
  items: many(ThreadItemRecord),
  discussions: related(DiscussionRecord),
  comments: related(CommentRecord),
  polls: related(PollRecord),
  poll_options: related(PollOptionRecord),
  stances: related(StanceRecord),
  outcomes: related(OutcomeRecord),
  reactions: related(ReactionRecord),
  topics: related(TopicRecord),
  groups: related(GroupRecord),
  users: related(UserRecord)
})
const ReactionsDocument = document("ReactionsResponse", { reactions: many(ReactionRecord), users: related(UserRecord) })
const MarkdownDocument = Schema.Struct({ markdown: Schema.String }).annotations({ identifier: "ThreadMarkdown" })
const PollsDocument = document("PollsResponse", {
  polls: many(PollRecord),
  poll_options: related(PollOptionRecord),
  stances: related(StanceRecord),
  outcomes: related(OutcomeRecord),
  topics: related(TopicRecord),
  groups: related(GroupRecord),
  users: related(UserRecord)
})
const ChatbotsDocument = document("WebhooksResponse", { chatbots: many(ChatbotRecord) })
const SearchDocument = Schema.Struct({
  search_results: many(SearchResultRecord),
  groups: related(GroupRecord),
  users: related(UserRecord),
  meta: Schema.Struct({ root: Schema.String }).annotations({ description: "No total: the result set is bounded (at most 20)" })
}).annotations({ identifier: "SearchResponse" })
const AnyJson = Schema.Unknown.annotations({ jsonSchema: { type: ["string", "number", "integer", "boolean", "object", "array", "null"] } })
const ReportDocument = Schema.Struct(
  { users: Schema.optional(Schema.Array(ReportUserRowRecord)) },
  Schema.Record({ key: Schema.String, value: AnyJson })
).annotations({ identifier: "ParticipationReport", description: "A plain JSON object; base and countries sections have their own fields" })
const Success = Schema.Struct({ success: Schema.Literal(true) }).annotations({ identifier: "Success" })
const MembershipRequestsResult = Schema.Struct({ membership_requests: Schema.Array(MembershipRequestRecord) }).annotations({ identifier: "MembershipRequests" })
const JoinLinkResult = Schema.Struct({
  join_link: Schema.Struct({ url: Schema.String.annotations({ description: "Whoever follows it and signs in becomes a member, whatever the group's privacy" }) })
}).annotations({ identifier: "JoinLink" })
const PollTemplatesResult = Schema.Struct({ poll_templates: Schema.Array(PollTemplateRecord) }).annotations({ identifier: "PollTemplates" })
const RemindResult = Schema.Struct({ reminded: Schema.Int.annotations({ description: "how many people were mailed" }) }).annotations({ identifier: "RemindResult" })
const DelegationResult = Schema.Struct({ delegation: DelegationRecord }).annotations({ identifier: "DelegationResult" })
const TagsResult = Schema.Struct({ tags: Schema.Array(TagRecord) }).annotations({ identifier: "Tags" })
const VersionsResult = Schema.Struct({ versions: Schema.Array(VersionRecord) }).annotations({ identifier: "Versions" })

// Path parameters: text on the wire (a malformed id names no record: 404), documented as Loomio's contract does.

const numeric = <const N extends string>(name: N, description: string) =>
  HttpApiSchema.param(name, Schema.String.annotations({ description, jsonSchema: { type: "integer" } }))
const idOrKey = (description: string) =>
  HttpApiSchema.param("id", Schema.String.annotations({ description, jsonSchema: { oneOf: [{ type: "integer" }, { type: "string" }] } }))

const groupRef = idOrKey("Numeric id, key or handle")
const requestId = numeric("request_id", "The request's id")
const tagId = numeric("tag_id", "The tag's id")
const recordRef = idOrKey("Numeric id or stable record key")
const recordId = numeric("id", "Numeric id")
const topicId = numeric("id", "Topic id (topic_id)")

const Responses = Schema.Struct(ResponseParams)

// User API (/api/b2)

export class B2Groups extends HttpApiGroup.make("b2.groups", { topLevel: true })
    .add(HttpApiEndpoint.get("listGroups", "/api/b2/groups").setUrlParams(Responses).addSuccess(GroupsDocument)
      .annotate(OpenApi.Summary, "List the groups where the caller has an active membership (not paginated)"))
    .add(HttpApiEndpoint.get("getGroup")`/api/b2/groups/${groupRef}`.setUrlParams(Responses).addSuccess(GroupsDocument)
      .annotate(OpenApi.Summary, "Get a visible group by id, key or handle"))
    .add(HttpApiEndpoint.patch("updateGroup")`/api/b2/groups/${groupRef}`.setPayload(Inputs.GroupSettingsInput).annotate(BodyRoot, "group").addSuccess(GroupsDocument)
      .annotate(OpenApi.Summary, "Extension: change a group's settings (its administrators): name, handle, description, group_privacy with what it writes, permission flags"))
    .add(HttpApiEndpoint.post("leaveGroup")`/api/b2/groups/${groupRef}/leave`.addSuccess(Success)
      .annotate(OpenApi.Summary, "Extension: the caller leaves the group and its subgroups (votes cast stay counted; ballots not cast go)"))
    .add(HttpApiEndpoint.post("createGroup", "/api/b2/groups").setPayload(Inputs.GroupInput).annotate(BodyRoot, "group").addSuccess(GroupsDocument)
      .annotate(OpenApi.Summary, "Extension: start a group (secret; the caller its administrator), or with parent_id a subgroup; FEATURES_DISABLE_CREATE_GROUP leaves top-level groups to server administrators"))
    .add(HttpApiEndpoint.patch("setGroupVolume")`/api/b2/groups/${groupRef}/set_volume`.setPayload(Inputs.VolumeInput).annotate(BodyRoot, "volume").addSuccess(VolumeResult)
      .annotate(OpenApi.Summary, "Extension: how much mail the caller (a member) wants from the group: mute, normal or loud"))
    .add(HttpApiEndpoint.del("deleteGroup")`/api/b2/groups/${groupRef}`.addSuccess(Success)
      .annotate(OpenApi.Summary, "Extension: delete the group (its administrators): gone at once with its subgroups, purged after 14 days; `convene groups restore` brings it back before then"))
    .add(HttpApiEndpoint.post("joinGroup")`/api/b2/groups/${groupRef}/join`.addSuccess(GroupsDocument)
      .annotate(OpenApi.Summary, "Extension: join an open group that anyone can join (membership_granted_upon request)"))
    .add(HttpApiEndpoint.post("askToJoin")`/api/b2/groups/${groupRef}/membership_requests`.setPayload(Inputs.MembershipRequestInput).annotate(BodyRoot, "membership_request")
      .addSuccess(MembershipRequestsResult).annotate(OpenApi.Summary, "Extension: ask to join a group whose joining is approved (membership_granted_upon approval); one request waits at a time"))
    .add(HttpApiEndpoint.get("listMembershipRequests")`/api/b2/groups/${groupRef}/membership_requests`.addSuccess(MembershipRequestsResult)
      .annotate(OpenApi.Summary, "Extension: the group's requests to join, waiting first (those who may invite)"))
    .add(HttpApiEndpoint.post("approveMembershipRequest")`/api/b2/groups/${groupRef}/membership_requests/${requestId}/approve`.addSuccess(MembershipRequestsResult)
      .annotate(OpenApi.Summary, "Extension: approve a request: the requester becomes a member and is told by mail"))
    .add(HttpApiEndpoint.post("declineMembershipRequest")`/api/b2/groups/${groupRef}/membership_requests/${requestId}/decline`.setPayload(Inputs.DeclineInput)
      .annotate(BodyRoot, "membership_request").addSuccess(MembershipRequestsResult).annotate(OpenApi.Summary, "Extension: decline a request; the requester is told by mail, with the reason"))
    .add(HttpApiEndpoint.get("getJoinLink")`/api/b2/groups/${groupRef}/join_link`.addSuccess(JoinLinkResult)
      .annotate(OpenApi.Summary, "Extension: the group's shareable link (those who may invite)"))
    .add(HttpApiEndpoint.post("resetJoinLink")`/api/b2/groups/${groupRef}/join_link/reset`.addSuccess(JoinLinkResult)
      .annotate(OpenApi.Summary, "Extension: a new shareable link; the old one stops working"))
    .add(HttpApiEndpoint.get("listTags")`/api/b2/groups/${groupRef}/tags`.addSuccess(TagsResult)
      .annotate(OpenApi.Summary, "Extension: the group's tags (whoever sees the group)"))
    .add(HttpApiEndpoint.post("createTag")`/api/b2/groups/${groupRef}/tags`.setPayload(Inputs.TagInput).annotate(BodyRoot, "tag").addSuccess(TagsResult)
      .annotate(OpenApi.Summary, "Extension: add a tag (the group's administrators)"))
    .add(HttpApiEndpoint.patch("updateTag")`/api/b2/groups/${groupRef}/tags/${tagId}`.setPayload(Inputs.TagInput).annotate(BodyRoot, "tag").addSuccess(TagsResult)
      .annotate(OpenApi.Summary, "Extension: rename or recolour a tag; its threads carry the new name"))
    .add(HttpApiEndpoint.del("deleteTag")`/api/b2/groups/${groupRef}/tags/${tagId}`.addSuccess(Success)
      .annotate(OpenApi.Summary, "Extension: delete a tag; it leaves every thread of the group"))
    .add(HttpApiEndpoint.get("getDelegation")`/api/b2/groups/${groupRef}/delegation`.addSuccess(DelegationResult)
      .annotate(OpenApi.Summary, "Extension: the caller's delegate in the group and who delegated to them (its members)"))
    .add(HttpApiEndpoint.put("setDelegation")`/api/b2/groups/${groupRef}/delegation`.setPayload(Inputs.DelegationInput).annotate(BodyRoot, "delegation").addSuccess(DelegationResult)
      .annotate(OpenApi.Summary, "Extension: name the caller's delegate, whose vote is cast for them in the group's open polls while they have not voted (members_can_delegate)"))
    .add(HttpApiEndpoint.del("deleteDelegation")`/api/b2/groups/${groupRef}/delegation`.addSuccess(DelegationResult)
      .annotate(OpenApi.Summary, "Extension: revoke the caller's delegation; ballots cast through it in open polls are withdrawn"))
    .annotate(OpenApi.Title, "Groups").annotate(OpenApi.Description, "Groups the caller belongs to")
    .middleware(B2Auth) {}

const MembershipListParams = Schema.Struct({ group_id: groupIdRequired, ...PageParams, ...ResponseParams })

export class B2Memberships extends HttpApiGroup.make("b2.memberships", { topLevel: true })
    .add(HttpApiEndpoint.get("listMemberships", "/api/b2/memberships").setUrlParams(MembershipListParams).addSuccess(MembershipsDocument)
      .annotate(OpenApi.Summary, "List a group's memberships; e-mail addresses only for yourself or as a group administrator"))
    .add(HttpApiEndpoint.post("manageMemberships", "/api/b2/memberships").setPayload(Inputs.MembershipsInput).annotate(BodyRoot, "membership").addSuccess(MembershipsResult)
      .annotate(OpenApi.Summary, "Invite listed e-mail addresses and optionally remove absent members (administrators only)"))
    .annotate(OpenApi.Title, "Memberships").annotate(OpenApi.Description, "Who belongs to a group, and inviting or removing people")
    .middleware(B2Auth) {}

const DiscussionListParams = Schema.Struct({
  group_id: groupIdRequired,
  status: Schema.optional(discussionStatus),
  ...AliasedPageParams,
  ...ResponseParams
})

export class B2Discussions extends HttpApiGroup.make("b2.discussions", { topLevel: true })
    .add(HttpApiEndpoint.get("listDiscussions", "/api/b2/discussions").setUrlParams(DiscussionListParams).addSuccess(DiscussionsDocument)
      .annotate(OpenApi.Summary, "List a group's discussions visible to the caller, latest activity first"))
    .add(HttpApiEndpoint.post("createDiscussion", "/api/b2/discussions").setPayload(Inputs.DiscussionInput).annotate(BodyRoot, "discussion").addSuccess(DiscussionsDocument)
      .annotate(OpenApi.Summary, "Start a discussion; recipients are notified, or invited as guests"))
    .add(HttpApiEndpoint.get("getDiscussion")`/api/b2/discussions/${recordRef}`.setUrlParams(Responses).addSuccess(DiscussionsDocument)
      .annotate(OpenApi.Summary, "Get a discussion"))
    .add(HttpApiEndpoint.patch("updateDiscussion")`/api/b2/discussions/${recordRef}`.setPayload(Inputs.DiscussionInput).annotate(BodyRoot, "discussion").addSuccess(DiscussionsDocument)
      .annotate(OpenApi.Summary, "Update a discussion"))
    .add(HttpApiEndpoint.put("replaceDiscussion")`/api/b2/discussions/${recordRef}`.setPayload(Inputs.DiscussionInput).annotate(BodyRoot, "discussion").addSuccess(DiscussionsDocument)
      .annotate(OpenApi.Summary, "Update a discussion (the deprecated PUT alias)").annotate(OpenApi.Deprecated, true))
    .add(HttpApiEndpoint.del("deleteDiscussion")`/api/b2/discussions/${recordRef}`.addSuccess(DiscussionsDocument)
      .annotate(OpenApi.Summary, "Soft-delete a discussion: the record stays, title and description are hidden"))
    .add(HttpApiEndpoint.post("closeDiscussion")`/api/b2/discussions/${recordRef}/close`.addSuccess(DiscussionsDocument)
      .annotate(OpenApi.Summary, "Extension: close the thread (no new comments)"))
    .add(HttpApiEndpoint.post("reopenDiscussion")`/api/b2/discussions/${recordRef}/reopen`.addSuccess(DiscussionsDocument)
      .annotate(OpenApi.Summary, "Extension: reopen a closed thread"))
    .add(HttpApiEndpoint.post("pinDiscussion")`/api/b2/discussions/${recordRef}/pin`.addSuccess(DiscussionsDocument)
      .annotate(OpenApi.Summary, "Extension: pin the thread (first in its group's lists)"))
    .add(HttpApiEndpoint.post("unpinDiscussion")`/api/b2/discussions/${recordRef}/unpin`.addSuccess(DiscussionsDocument)
      .annotate(OpenApi.Summary, "Extension: unpin the thread"))
    .add(HttpApiEndpoint.post("moveDiscussion")`/api/b2/discussions/${recordRef}/move`.setPayload(Inputs.MoveInput).annotate(BodyRoot, "discussion").addSuccess(DiscussionsDocument)
      .annotate(OpenApi.Summary, "Extension: move the thread to another group where the caller may start threads; its polls follow, its privacy follows the group"))
    .add(HttpApiEndpoint.get("listDiscussionVersions")`/api/b2/discussions/${recordRef}/versions`.addSuccess(VersionsResult)
      .annotate(OpenApi.Summary, "Extension: the thread's edits, oldest first (who, when, each field's [before, after])"))
    .add(HttpApiEndpoint.patch("markDiscussionAsRead")`/api/b2/discussions/${recordRef}/mark_as_read`.setPayload(Inputs.MarkAsReadInput).annotate(BodyRoot, "discussion").addSuccess(DiscussionsDocument)
      .annotate(OpenApi.Summary, "Extension: mark these items of the thread read for the caller (Loomio's mark_as_read); the discussion answers with the caller's reader fields"))
    .add(HttpApiEndpoint.patch("setDiscussionVolume")`/api/b2/discussions/${recordRef}/set_volume`.setPayload(Inputs.VolumeInput).annotate(BodyRoot, "volume").addSuccess(VolumeResult)
      .annotate(OpenApi.Summary, "Extension: how much mail the caller wants from this thread (it wins over the group's volume), as Loomio's set_volume"))
    .annotate(OpenApi.Title, "Discussions").annotate(OpenApi.Description, "Discussions: the threads people talk in")
    .middleware(B2Auth) {}

export class B2Comments extends HttpApiGroup.make("b2.comments", { topLevel: true })
    .add(HttpApiEndpoint.post("createComment", "/api/b2/comments").setPayload(Inputs.CommentInput).annotate(BodyRoot, "comment").addSuccess(CommentsDocument)
      .annotate(OpenApi.Summary, "Comment on a discussion, or reply to a comment with parent_id"))
    .add(HttpApiEndpoint.patch("updateComment")`/api/b2/comments/${recordId}`.setPayload(Inputs.CommentInput).annotate(BodyRoot, "comment").addSuccess(CommentsDocument)
      .annotate(OpenApi.Summary, "Update a comment"))
    .add(HttpApiEndpoint.put("replaceComment")`/api/b2/comments/${recordId}`.setPayload(Inputs.CommentInput).annotate(BodyRoot, "comment").addSuccess(CommentsDocument)
      .annotate(OpenApi.Summary, "Update a comment (the deprecated PUT alias)").annotate(OpenApi.Deprecated, true))
    .add(HttpApiEndpoint.del("deleteComment")`/api/b2/comments/${recordId}`.addSuccess(CommentsDocument)
      .annotate(OpenApi.Summary, "Soft-delete a comment: the body is hidden"))
    .annotate(OpenApi.Title, "Comments").annotate(OpenApi.Description, "Comments and replies in a discussion")
    .middleware(B2Auth) {}

/**
 * Uploads (decisions §14), in the document only: the route is the server's own streaming one (files.ts), which
 * reads the body as it comes rather than the platform's buffered multipart. The declaration says what it takes and
 * answers.
 */
export class B2Attachments extends HttpApiGroup.make("b2.attachments", { topLevel: true })
    .add(HttpApiEndpoint.post("createAttachment", "/api/b2/attachments")
      .setPayload(HttpApiSchema.Multipart(Schema.Struct({ file: Multipart.SingleFileSchema })))
      .addSuccess(Schema.Struct({ attachment: AttachmentRecord }).annotations({ identifier: "AttachmentDocument" }))
      .addError(Schema.Struct({ error: Schema.String }).annotations({ identifier: "TooLarge" }), { status: 413 })
      .annotate(OpenApi.Summary, "Extension: upload one file (multipart, field file; at most ATTACHMENT_MAX_BYTES), typed from its bytes; send its signed_id in a record's files within 24 hours"))
    .annotate(OpenApi.Title, "Attachments").annotate(OpenApi.Description, "Files for discussions, comments, polls and outcomes")
    .middleware(B2Auth) {}

export class B2Threads extends HttpApiGroup.make("b2.threads", { topLevel: true })
    .add(HttpApiEndpoint.get("listThreads", "/api/b2/threads").setUrlParams(Schema.Struct({ ...PageParams, ...ResponseParams }))
      .addSuccess(ThreadsDocument)
      .annotate(OpenApi.Summary, "List the discussion and standalone-poll threads visible to the caller, latest activity first"))
    .add(HttpApiEndpoint.get("getThread")`/api/b2/threads/${topicId}`.setUrlParams(Responses).addSuccess(ThreadsDocument)
      .annotate(OpenApi.Summary, "Get a visible thread"))
    .add(HttpApiEndpoint.get("listThreadItems")`/api/b2/threads/${topicId}/items`.setUrlParams(Responses).addSuccess(ItemsDocument)
      .annotate(OpenApi.Summary, "List the thread's ordered items (by sequence_id)"))
    .add(HttpApiEndpoint.get("getThreadMarkdown")`/api/b2/threads/${topicId}/markdown`.addSuccess(MarkdownDocument)
      .annotate(OpenApi.Summary, "Get the whole visible thread as one Markdown document"))
    .annotate(OpenApi.Title, "Threads").annotate(OpenApi.Description, "Threads, their items, Markdown export, reactions and search")
    .middleware(B2Auth) {}

export class B2Reactions extends HttpApiGroup.make("b2.reactions", { topLevel: true })
    .add(HttpApiEndpoint.post("createReaction", "/api/b2/reactions").setPayload(Inputs.ReactionInput).annotate(BodyRoot, "reaction").addSuccess(ReactionsDocument)
      .annotate(OpenApi.Summary, "Extension: add the caller's reaction to a discussion, comment, poll, vote or outcome"))
    .add(HttpApiEndpoint.del("deleteReaction")`/api/b2/reactions/${recordId}`.addSuccess(Success)
      .annotate(OpenApi.Summary, "Extension: remove one of the caller's reactions"))
    .annotate(OpenApi.Title, "Threads")
    .middleware(B2Auth) {}

const PollListParams = Schema.Struct({ group_id: groupIdRequired, status: Schema.optional(pollStatus), ...AliasedPageParams, ...ResponseParams })

export class B2Polls extends HttpApiGroup.make("b2.polls", { topLevel: true })
    .add(HttpApiEndpoint.get("listPollTemplates", "/api/b2/poll_templates").setUrlParams(Schema.Struct({ group_id: Schema.optional(groupIdRequired) })).addSuccess(PollTemplatesResult)
      .annotate(OpenApi.Summary, "Extension: the templates a poll may start from, in the caller's language: Loomio's built-ins; with group_id, that group's list in its order (its own templates and the built-ins it does not hide; the caller must see the group)"))
    .add(HttpApiEndpoint.get("listPolls", "/api/b2/polls").setUrlParams(PollListParams).addSuccess(PollsDocument)
      .annotate(OpenApi.Summary, "List a group's polls visible to the caller, newest first, with their current outcomes"))
    .add(HttpApiEndpoint.post("createPoll", "/api/b2/polls").setPayload(Inputs.PollInput).annotate(BodyRoot, "poll").addSuccess(PollsDocument)
      .annotate(OpenApi.Summary, "Create a poll; closing_at null makes a draft"))
    .add(HttpApiEndpoint.get("getPoll")`/api/b2/polls/${recordRef}`.setUrlParams(Responses).addSuccess(PollsDocument)
      .annotate(OpenApi.Summary, "Get a poll"))
    .add(HttpApiEndpoint.patch("updatePoll")`/api/b2/polls/${recordRef}`.setPayload(Inputs.PollPatchInput).annotate(BodyRoot, "poll").addSuccess(PollsDocument)
      .annotate(OpenApi.Summary, "Update a poll; a closing_at on a draft opens it"))
    .add(HttpApiEndpoint.put("replacePoll")`/api/b2/polls/${recordRef}`.setPayload(Inputs.PollPatchInput).annotate(BodyRoot, "poll").addSuccess(PollsDocument)
      .annotate(OpenApi.Summary, "Update a poll (the deprecated PUT alias)").annotate(OpenApi.Deprecated, true))
    .add(HttpApiEndpoint.del("deletePoll")`/api/b2/polls/${recordRef}`.addSuccess(PollsDocument)
      .annotate(OpenApi.Summary, "Soft-delete a poll"))
    .add(HttpApiEndpoint.post("closePoll")`/api/b2/polls/${recordRef}/close`.addSuccess(PollsDocument)
      .annotate(OpenApi.Summary, "Extension: close a poll now (poll_closed_by_user)"))
    .add(HttpApiEndpoint.post("remindVoters")`/api/b2/polls/${recordRef}/remind`.addSuccess(RemindResult)
      .annotate(OpenApi.Summary, "Extension: mail those holding a ballot they have not cast (the poll's administrators; once a day at most, 429 before then)"))
    .add(HttpApiEndpoint.post("reopenPoll")`/api/b2/polls/${recordRef}/reopen`.setPayload(Inputs.PollReopenInput).annotate(BodyRoot, "poll").addSuccess(PollsDocument)
      .annotate(OpenApi.Summary, "Extension: reopen a closed poll with a future closing_at (poll_reopened)"))
    .add(HttpApiEndpoint.post("castVote", "/api/b2/stances").setPayload(Inputs.StanceInput).annotate(BodyRoot, "stance").addSuccess(PollsDocument)
      .annotate(OpenApi.Summary, "Extension: cast or change the caller's vote"))
    .add(HttpApiEndpoint.post("createOutcome", "/api/b2/outcomes").setPayload(Inputs.OutcomeInput).annotate(BodyRoot, "outcome").addSuccess(PollsDocument)
      .annotate(OpenApi.Summary, "Extension: state the outcome of a closed poll"))
    .add(HttpApiEndpoint.patch("updateOutcome")`/api/b2/outcomes/${recordId}`.setPayload(Inputs.OutcomePatchInput).annotate(BodyRoot, "outcome").addSuccess(PollsDocument)
      .annotate(OpenApi.Summary, "Extension: change an outcome (outcome_updated)"))
    .annotate(OpenApi.Title, "Polls").annotate(OpenApi.Description, "Polls, votes and outcomes")
    .middleware(B2Auth) {}

export class B2Chatbots extends HttpApiGroup.make("b2.chatbots", { topLevel: true })
    .add(HttpApiEndpoint.get("listWebhooks", "/api/b2/chatbots").setUrlParams(Schema.Struct({ group_id: groupIdRequired }))
      .addSuccess(ChatbotsDocument)
      .annotate(OpenApi.Summary, "List a group's webhooks (administrators only: the response holds destination URLs)"))
    .add(HttpApiEndpoint.post("createWebhook", "/api/b2/chatbots").setPayload(Inputs.ChatbotCreateInput).annotate(BodyRoot, "chatbot").addSuccess(ChatbotsDocument)
      .annotate(OpenApi.Summary, "Create a webhook; the destination must be a public URL"))
    .add(HttpApiEndpoint.post("checkWebhook", "/api/b2/chatbots/check").setPayload(Inputs.ChatbotCheckInput).annotate(BodyRoot, "chatbot")
      .addSuccess(Schema.Struct({ success: Schema.Literal(true), status: Schema.Int }).annotations({ identifier: "WebhookCheckResult" }))
      .annotate(OpenApi.Summary, "Send a test message; 422 when the destination is not public or does not answer 2xx"))
    .add(HttpApiEndpoint.patch("updateWebhook")`/api/b2/chatbots/${recordId}`.setPayload(Inputs.ChatbotUpdateInput).annotate(BodyRoot, "chatbot").addSuccess(ChatbotsDocument)
      .annotate(OpenApi.Summary, "Update a webhook (group_id is ignored: a webhook never moves)"))
    .add(HttpApiEndpoint.put("replaceWebhook")`/api/b2/chatbots/${recordId}`.setPayload(Inputs.ChatbotUpdateInput).annotate(BodyRoot, "chatbot").addSuccess(ChatbotsDocument)
      .annotate(OpenApi.Summary, "Update a webhook (the deprecated PUT alias)").annotate(OpenApi.Deprecated, true))
    .add(HttpApiEndpoint.del("deleteWebhook")`/api/b2/chatbots/${recordId}`.addSuccess(Success)
      .annotate(OpenApi.Summary, "Delete a webhook; future deliveries stop"))
    .annotate(OpenApi.Title, "Webhooks").annotate(OpenApi.Description, "Outgoing webhooks of a group (administrators only)")
    .middleware(B2Auth) {}

export class B2Reports extends HttpApiGroup.make("b2.reports", { topLevel: true })
    .add(HttpApiEndpoint.get("getParticipationReport", "/api/b2/reports").setUrlParams(Schema.Struct(ReportParams)).addSuccess(ReportDocument)
      .annotate(OpenApi.Summary, "Participation report over the caller's groups (a plain JSON object)"))
    .annotate(OpenApi.Title, "Reports").annotate(OpenApi.Description, "Participation reports")
    .middleware(B2Auth) {}

export class B2Search extends HttpApiGroup.make("b2.search", { topLevel: true })
    .add(HttpApiEndpoint.get("searchContent", "/api/b2/search").setUrlParams(Schema.Struct(SearchParams)).addSuccess(SearchDocument)
      .annotate(OpenApi.Summary, "Search what the caller may read (at most 20 results, no total)"))
    .annotate(OpenApi.Title, "Threads")
    .middleware(B2Auth) {}

// Server API (/api/b3)

const UserDocument = Schema.Struct({ user: ServerUserRecord }).annotations({ identifier: "ServerUserResponse" })
const UsersDocument = Schema.Struct({ users: Schema.Array(ServerUserRecord), meta: Schema.optional(Meta) })
  .annotations({ identifier: "ServerUsersResponse" })
const SuccessWithUser = Schema.Struct({ success: Schema.Literal(true), user: ServerUserRecord }).annotations({ identifier: "ServerUserSuccess" })

const userId = numeric("id", "User id")
const identityType = HttpApiSchema.param("identity_type", Schema.String.annotations({ description: "Identity type (e.g. oauth, saml)" }))
const uid = HttpApiSchema.param("uid", Schema.String.annotations({ description: "The identity's uid" }))
const LegacyId = Schema.Struct({ id: QueryInt({ description: "User id (required)" }) })

export class B3Users extends HttpApiGroup.make("b3.users", { topLevel: true })
    .add(HttpApiEndpoint.get("listServerUsers", "/api/b3/users")
      .setUrlParams(Schema.Struct({
        is_admin: Schema.optional(QueryBool("Only administrators (true) or only others (false)")),
        limit: Schema.optional(QueryInt({ minimum: 1, default: 200, description: "Page size (default 200; at most 1000 are served)", clampTo: 1000 })),
        offset: Schema.optional(QueryInt({ minimum: 0, default: 0, description: "Records to skip" }))
      }))
      .addSuccess(UsersDocument)
      .annotate(OpenApi.Summary, "List user accounts by id"))
    .add(HttpApiEndpoint.get("getServerUser")`/api/b3/users/${userId}`.addSuccess(UserDocument)
      .annotate(OpenApi.Summary, "Get a user account"))
    .add(HttpApiEndpoint.patch("updateServerUser")`/api/b3/users/${userId}`.setPayload(Inputs.ServerUserUpdate).addSuccess(UserDocument)
      .annotate(OpenApi.Summary, "Update a user account"))
    .add(HttpApiEndpoint.put("replaceServerUser")`/api/b3/users/${userId}`.setPayload(Inputs.ServerUserUpdate).addSuccess(UserDocument)
      .annotate(OpenApi.Summary, "Update a user account (the deprecated PUT alias)").annotate(OpenApi.Deprecated, true))
    .add(HttpApiEndpoint.del("deleteServerUser")`/api/b3/users/${userId}`.addSuccess(Success)
      .annotate(OpenApi.Summary, "Permanently delete a user and the records they authored"))
    .add(HttpApiEndpoint.post("deactivateServerUser")`/api/b3/users/${userId}/deactivate`.addSuccess(SuccessWithUser)
      .annotate(OpenApi.Summary, "Deactivate an active user"))
    .add(HttpApiEndpoint.post("reactivateServerUser")`/api/b3/users/${userId}/reactivate`.addSuccess(SuccessWithUser)
      .annotate(OpenApi.Summary, "Reactivate a deactivated user"))
    .add(HttpApiEndpoint.post("redactServerUser")`/api/b3/users/${userId}/redact`.addSuccess(Success)
      .annotate(OpenApi.Summary, "Remove identifying data while keeping contributed content"))
    .add(HttpApiEndpoint.get("getServerUserByIdentity")`/api/b3/users/identity/${identityType}/${uid}`.addSuccess(UserDocument)
      .annotate(OpenApi.Summary, "Get a user by external identity"))
    .add(HttpApiEndpoint.patch("updateServerUserByIdentity")`/api/b3/users/identity/${identityType}/${uid}`.setPayload(Inputs.ServerUserUpdate)
      .addSuccess(UserDocument)
      .annotate(OpenApi.Summary, "Update a user by external identity"))
    .add(HttpApiEndpoint.del("deleteServerUserByIdentity")`/api/b3/users/identity/${identityType}/${uid}`.addSuccess(Success)
      .annotate(OpenApi.Summary, "Permanently delete a user found by external identity"))
    .add(HttpApiEndpoint.post("deactivateServerUserByIdentity")`/api/b3/users/identity/${identityType}/${uid}/deactivate`
      .addSuccess(SuccessWithUser)
      .annotate(OpenApi.Summary, "Deactivate a user found by external identity"))
    .add(HttpApiEndpoint.post("reactivateServerUserByIdentity")`/api/b3/users/identity/${identityType}/${uid}/reactivate`
      .addSuccess(SuccessWithUser)
      .annotate(OpenApi.Summary, "Reactivate a user found by external identity"))
    .add(HttpApiEndpoint.post("redactServerUserByIdentity")`/api/b3/users/identity/${identityType}/${uid}/redact`.addSuccess(Success)
      .annotate(OpenApi.Summary, "Redact a user found by external identity"))
    .add(HttpApiEndpoint.post("deactivateServerUserLegacy", "/api/b3/users/deactivate").setUrlParams(LegacyId).addSuccess(SuccessWithUser)
      .annotate(OpenApi.Summary, "Deactivate a user (the legacy query-id route)").annotate(OpenApi.Deprecated, true))
    .add(HttpApiEndpoint.post("reactivateServerUserLegacy", "/api/b3/users/reactivate").setUrlParams(LegacyId).addSuccess(SuccessWithUser)
      .annotate(OpenApi.Summary, "Reactivate a user (the legacy query-id route)").annotate(OpenApi.Deprecated, true))
    .annotate(OpenApi.Title, "Server users").annotate(OpenApi.Description, "User accounts of the installation (server secret)")
    .middleware(B3Auth) {}

// Unauthenticated system routes (not in the documents)

export class System extends HttpApiGroup.make("system")
  .add(HttpApiEndpoint.get("healthz", "/healthz").addSuccess(Schema.Struct({ ok: Schema.Boolean })))
  .add(HttpApiEndpoint.get("version", "/api/v1/boot/version").addSuccess(Schema.Struct({ version: Schema.String, api: Schema.String })))
  .add(HttpApiEndpoint.get("openapiB2", "/api/b2/openapi.json").addSuccess(AnyJson))
  .add(HttpApiEndpoint.get("openapiB3", "/api/b3/openapi.json").addSuccess(AnyJson))
{}

// Legacy API (/api/b1): the b2 operations with the key as an `api_key` parameter (not in the documents)

const B1Key = { api_key: Schema.optional(QueryText("The user's API key (also accepted as a JSON body or form field)")) }

export class B1Discussions extends HttpApiGroup.make("b1.discussions")
    .add(HttpApiEndpoint.post("create", "/api/b1/discussions").setPayload(Inputs.DiscussionInput).annotate(BodyRoot, "discussion").addSuccess(DiscussionsDocument))
    .add(HttpApiEndpoint.get("show")`/api/b1/discussions/${recordRef}`.setUrlParams(Schema.Struct({ ...B1Key, ...ResponseParams }))
      .addSuccess(DiscussionsDocument))
    .middleware(B1Auth) {}

export class B1Polls extends HttpApiGroup.make("b1.polls")
    .add(HttpApiEndpoint.post("create", "/api/b1/polls").setPayload(Inputs.PollInput).annotate(BodyRoot, "poll").addSuccess(PollsDocument))
    .add(HttpApiEndpoint.get("show")`/api/b1/polls/${recordRef}`.setUrlParams(Schema.Struct({ ...B1Key, ...ResponseParams }))
      .addSuccess(PollsDocument))
    .middleware(B1Auth) {}

export class B1Memberships extends HttpApiGroup.make("b1.memberships")
    .add(HttpApiEndpoint.get("list", "/api/b1/memberships")
      .setUrlParams(Schema.Struct({ ...B1Key, group_id: groupIdRequired, ...PageParams, ...ResponseParams }))
      .addSuccess(MembershipsDocument))
    .add(HttpApiEndpoint.post("sync", "/api/b1/memberships").setPayload(Inputs.MembershipsInput).annotate(BodyRoot, "membership").addSuccess(MembershipsResult))
    .middleware(B1Auth) {}

/** Everything the server routes. */
export class ConveneApi extends HttpApi.make("convene").add(System).add(B2Groups).add(B2Memberships).add(B3Users)
  .add(B2Discussions).add(B2Comments).add(B2Threads).add(B2Reactions).add(B2Chatbots).add(B2Polls)
  .add(B2Reports).add(B2Search).add(B1Discussions).add(B1Polls).add(B1Memberships)
  .addError(BadRequest, { status: 400 }).addError(Forbidden, { status: 403 }).addError(NotFound, { status: 404 })
  .addError(Unprocessable, { status: 422 }) {}

const LICENSE = { name: "AGPL-3.0-only", url: "https://www.gnu.org/licenses/agpl-3.0.html" }

const DESCRIPTION = "Loomio-compatible. Every operation acts as the user who owns the API key, with that user's memberships and " +
  "permissions. Responses are compound documents: primary records under their root key, related records side-loaded under " +
  "theirs. Operations marked Extension are convene's additions."

/** The documents clients read: the User API with its extensions, and the Server API. */
export const UserApiDoc = HttpApi.make("convene-b2").add(B2Groups).add(B2Memberships)
  .add(B2Discussions).add(B2Comments).add(B2Attachments).add(B2Threads).add(B2Reactions).add(B2Polls).add(B2Chatbots).add(B2Reports).add(B2Search)
  .annotate(OpenApi.Title, "convene User API (Loomio b2 compatible)").annotate(OpenApi.Version, "1")
  .annotate(OpenApi.License, LICENSE)
  .addError(BadRequest, { status: 400 }).addError(Forbidden, { status: 403 }).addError(NotFound, { status: 404 })
  .addError(Unprocessable, { status: 422 })
  .annotate(OpenApi.Description, DESCRIPTION)
export const ServerApiDoc = HttpApi.make("convene-b3").add(B3Users)
  .addError(BadRequest, { status: 400 }).addError(Forbidden, { status: 403 }).addError(NotFound, { status: 404 })
  .addError(Unprocessable, { status: 422 })
  .annotate(OpenApi.Title, "convene Server API (Loomio b3 compatible)").annotate(OpenApi.Version, "1")
  .annotate(OpenApi.License, LICENSE)
  .annotate(OpenApi.Description, "Instance administration of user accounts, enabled by the B3_API_KEY secret (longer than 16 characters).")
