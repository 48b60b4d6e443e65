/**
 * Every input of a use case, declared once as a Schema: the HTTP handlers decode request bodies with it,
 * the OpenAPI documents describe it, and the services take its type. Scalars accept what JSON sends typed and forms send as text.
 * Arrays are bounded (MAX_ITEMS) so that one request cannot hold the server; enumerated fields take
 * their words from the core's constants.
 */
import { HIDE_RESULTS, NOTIFY_ON_CLOSING_SOON, POLL_TYPES, STANCE_REASON_REQUIRED } from "./polls.js"
import { REACTABLE_TYPES } from "./records.js"
import { CHATBOT_KINDS, WEBHOOK_KINDS } from "./webhooks.js"
import { Schema } from "effect"

/** The most items any array input may hold (addresses, user ids, options, event kinds). */
export const MAX_ITEMS = 1000

const Int = Schema.Union(Schema.Int, Schema.compose(Schema.NumberFromString, Schema.Int)).annotations({
  message: () => "must be an integer",
  jsonSchema: { type: "integer" }
})

const boolWords = { true: true, false: false, "1": true, "0": false } as const
const Bool = Schema.Union(
  Schema.Boolean,
  Schema.transform(Schema.Literal("true", "false", "1", "0", 1, 0), Schema.Boolean, {
    strict: true,
    decode: (v) => boolWords[String(v) as keyof typeof boolWords],
    encode: (b) => (b ? "true" : "false")
  })
).annotations({ message: () => "must be true, false, 1 or 0", jsonSchema: { type: "boolean" } })

const Str = Schema.String.annotations({ message: () => "must be a string" })

const bounded = <A, I>(item: Schema.Schema<A, I>, what: string) =>
  Schema.Array(item).pipe(Schema.maxItems(MAX_ITEMS)).annotations({
    message: () => `must be an array of at most ${MAX_ITEMS} ${what}`
  })

const StrArray = bounded(Str, "strings")
const Email = Str.annotations({ jsonSchema: { type: "string", format: "email" } })
const EmailArray = bounded(Email, "e-mail addresses")
const IntArray = bounded(Int, "integers")

const oneOf = <const T extends ReadonlyArray<string>>(values: T) =>
  Schema.Literal(...values).annotations({ message: () => `must be one of ${values.join(", ")}` })

/**
 * A field whose words the core validates (422 naming the field, as Loomio's model validations): decoded
 * as a string, documented as the enumeration of the same constants the core checks against.
 */
const word = (values: ReadonlyArray<string>) => Str.annotations({ jsonSchema: { type: "string", enum: [...values] } })

const BodyFormat = oneOf(["md", "html"])
const DateTime = Schema.NullOr(Str).annotations({
  description: "ISO 8601 date-time (without an offset: UTC); null: a draft (voting disabled)",
  jsonSchema: { type: ["string", "null"], format: "date-time" }
})
const Audience = Schema.NullOr(Schema.Literal("group")).annotations({ message: () => "must be group or null" })

const recipients = {
  recipient_audience: Schema.optional(Audience.annotations({ description: "group: notify the whole group" })),
  recipient_user_ids: Schema.optional(IntArray.annotations({ description: "People to notify, or invite as guests" })),
  recipient_emails: Schema.optional(EmailArray.annotations({ description: "Addresses to invite" })),
  recipient_message: Schema.optional(Schema.NullOr(Str).annotations({ description: "Included in the e-mail invitation" }))
}

/** Loomio's `files`: the signed ids of uploads (POST /api/b2/attachments), in order; on update, the record's files from then on. */
const files = {
  files: Schema.optional(Schema.Array(Str).annotations({
    description: "Files as Loomio takes them: the signed ids of uploads (POST /api/b2/attachments), in order; on update, the record's files from then on"
  }))
}

export const DiscussionInput = Schema.Struct({
  group_id: Schema.optional(Int),
  title: Schema.optional(Schema.NullOr(Str)),
  description: Schema.optional(Schema.NullOr(Str)),
  description_format: Schema.optional(BodyFormat),
  private: Schema.optional(Bool).annotations({ description: "Loomio's privacy flag; checked against the group's discussion_privacy_options" }),
  tags: Schema.optional(Schema.Array(Str).annotations({ description: "Loomio's: the thread's tag names; a name the group has no tag for makes one" })),
  ...recipients,
  ...files
}).annotations({ identifier: "DiscussionInput" })

export const CommentInput = Schema.Struct({
  discussion_id: Schema.optional(Int),
  parent_id: Schema.optional(Schema.NullOr(Int).annotations({ description: "The comment replied to" })),
  body: Schema.optional(Schema.NullOr(Str)),
  body_format: Schema.optional(BodyFormat),
  ...files
}).annotations({ identifier: "CommentInput" })

export const ReactionInput = Schema.Struct({
  reactable_type: oneOf(REACTABLE_TYPES),
  reactable_id: Int,
  reaction: Str.annotations({ description: "An emoji or a shortcode" })
}).annotations({ identifier: "ReactionInput" })

/** **Start group** (decisions §12), an extension: a subgroup when `parent_id` names a group the caller administers. */
export const GroupInput = Schema.Struct({
  name: Str.annotations({ description: "The group's name" }),
  handle: Schema.optional(Str.annotations({ description: "2-63 lowercase letters, digits or '-' (a subgroup's begins with its parent's and '-'); left out: made from the name" })),
  description: Schema.optional(Str.annotations({ description: "Markdown" })),
  parent_id: Schema.optional(Int.annotations({ description: "Start a subgroup of this group (one level deep; its administrators)" }))
}).annotations({ identifier: "GroupInput" })

/** The flags a group's settings change (decisions §12), with Loomio's labels on the settings page. */
export const GROUP_PERMISSIONS = [
  "members_can_add_members",
  "members_can_start_discussions",
  "members_can_raise_motions",
  "members_can_edit_comments",
  "members_can_delete_comments",
  "members_can_edit_discussions",
  "members_can_create_subgroups",
  "members_can_announce",
  "members_can_add_guests",
  "admins_can_edit_user_content"
] as const

/** **Save settings** (decisions §12), an extension: what is left out stays as it is. */
export const GroupSettingsInput = Schema.Struct({
  name: Schema.optional(Str),
  handle: Schema.optional(Schema.NullOr(Str).annotations({ description: "null or empty: no handle" })),
  description: Schema.optional(Schema.NullOr(Str).annotations({ description: "Markdown" })),
  group_privacy: Schema.optional(oneOf(["open", "closed", "secret"]).annotations({
    description: "Loomio's: open (listed, public threads), closed (listed, private threads), secret (hidden, private threads)"
  })),
  membership_granted_upon: Schema.optional(oneOf(["request", "approval", "invitation"]).annotations({
    description: "Who can join (Loomio's): request (anyone, at once), approval (ask to join), invitation (only); a closed group is always approval, a secret one invitation"
  })),
  ...Object.fromEntries(GROUP_PERMISSIONS.map((flag) => [flag, Schema.optional(Bool)])) as { readonly [K in (typeof GROUP_PERMISSIONS)[number]]: Schema.optional<typeof Bool> },
  members_can_delegate: Schema.optional(Bool.annotations({ description: "extension (decisions §15): members may name a delegate whose vote is cast for them when they do not vote" })),
  delegation_limit: Schema.optional(Int.annotations({ description: "extension (decisions §15): the most delegations one delegate holds (1-100; default 5)" }))
}).annotations({ identifier: "GroupSettingsInput" })

/** **Ask to join** (decisions §12), an extension. */
export const MembershipRequestInput = Schema.Struct({
  introduction: Str.annotations({ description: "Why do you want to join? (required, at most 250 characters)" })
}).annotations({ identifier: "MembershipRequestInput" })

/** **Decline** a request to join, an extension: the reason is mailed to the requester. */
export const DeclineInput = Schema.Struct({
  reason: Schema.optional(Str.annotations({ description: "Optional, at most 500 characters; mailed to the requester" }))
}).annotations({ identifier: "DeclineInput" })

/** **Move thread** (decisions §12), an extension. */
export const MoveInput = Schema.Struct({
  group_id: Int.annotations({ description: "The group the thread moves to (one where the caller may start threads)" })
}).annotations({ identifier: "MoveInput" })

/** A group's tag (decisions §12), an extension. */
export const TagInput = Schema.Struct({
  name: Str.annotations({ description: "Unique in the group whatever its case; at most 50 characters" }),
  color: Schema.optional(Str.annotations({ description: "#rrggbb; left out: one of a palette" }))
}).annotations({ identifier: "TagInput" })

export const MembershipsInput = Schema.Struct({
  group_id: Int,
  emails: EmailArray,
  remove_absent: Schema.optional(Bool.annotations({ description: "true or 1: remove current members whose address is absent from emails" }))
}).annotations({ identifier: "MembershipsInput" })

/** How much mail the caller wants from a group or a thread (decisions §11): Loomio's `set_volume`. */
/** **Delegate my vote** (decisions §15), an extension. */
export const DelegationInput = Schema.Struct({
  delegate_id: Int.annotations({ description: "Another accepted member of the group, holding fewer delegations than the group's delegation_limit" })
}).annotations({ identifier: "DelegationInput" })

export const VolumeInput = Schema.Struct({
  volume: Schema.Literal("mute", "normal", "loud").annotations({
    description: "mute: no notifications (invitations and sign-in codes still come); normal: new threads and polls, outcomes, closing-soon reminders, mentions and replies to you; loud: also every comment and vote"
  })
}).annotations({ identifier: "VolumeInput" })

/** `PATCH /discussions/{id}/mark_as_read` (decisions §13): the items read, as Loomio's client sends them. */
export const MarkAsReadInput = Schema.Struct({
  ranges: Schema.String.pipe(Schema.maxLength(10_000)).annotations({ description: "sequence id ranges read, like 1-5,9-9 (Loomio's RangeSet text)" })
}).annotations({ identifier: "MarkAsReadInput" })

/** The spec's Poll input, plus Loomio 3.8's `topic_id`: what create and update both accept (decisions §1). */
/** A poll's settings (domain/polls.ts POLL_SETTINGS), as a write gives them. */
const pollSettingFields = {
  specified_voters_only: Schema.optional(Bool),
  hide_results: Schema.optional(word(HIDE_RESULTS)),
  shuffle_options: Schema.optional(Bool),
  anonymous: Schema.optional(Bool),
  notify_on_closing_soon: Schema.optional(word(NOTIFY_ON_CLOSING_SOON)),
  stance_reason_required: Schema.optional(word(STANCE_REASON_REQUIRED).annotations({ description: "Loomio's \"Reason\": disabled, optional (default) or required with each vote" })),
  allow_delegated_votes: Schema.optional(Bool.annotations({ description: "extension (decisions §15): false refuses delegated votes (\"No delegated votes\", e.g. an election); default true" })),
}

const pollFields = {
  group_id: Schema.optional(Schema.NullOr(Int).annotations({ description: "Ignored when discussion_id or topic_id is sent" })),
  discussion_id: Schema.optional(Schema.NullOr(Int)),
  topic_id: Schema.optional(Schema.NullOr(Int).annotations({ description: "Loomio 3.8: the thread to add the poll to" })),
  title: Schema.optional(Str),
  poll_type: Schema.optional(word(POLL_TYPES)),
  details: Schema.optional(Schema.NullOr(Str)),
  details_format: Schema.optional(BodyFormat),
  options: Schema.optional(StrArray.annotations({ description: "proposal: agree, disagree, abstain, block; meeting: ISO 8601 dates or date-times" })),
  closing_at: Schema.optional(DateTime),
  ...pollSettingFields,
  ...recipients,
  notify_recipients: Schema.optional(Bool),
  ...files
}

/** The numbers of a poll's type, set on creation and changed by an edit (decisions §12: "the type's settings"). */
const ballotFields = {
  min_score: Schema.optional(Int.annotations({ description: "extension (Loomio): lowest score of a score poll" })),
  max_score: Schema.optional(Int.annotations({ description: "extension (Loomio): highest score of a score poll" })),
  minimum_stance_choices: Schema.optional(Int.annotations({ description: "extension (Loomio): fewest choices on a ballot" })),
  maximum_stance_choices: Schema.optional(Int.annotations({ description: "extension (Loomio): most choices (multiple choice poll)" })),
  dots_per_person: Schema.optional(Int.annotations({ description: "extension (Loomio): a dot vote's budget" })),
  can_respond_maybe: Schema.optional(Bool.annotations({ description: "extension (Loomio): meetings offer 'maybe'" }))
}

export const PollInput = Schema.Struct({
  ...pollFields,
  ...ballotFields,
  poll_template_key: Schema.optional(Schema.NullOr(Str).annotations({ description: "Loomio's: the built-in template the poll was started from (GET /api/b2/poll_templates); recorded, not applied" })),
  poll_template_id: Schema.optional(Schema.NullOr(Int).annotations({ description: "Loomio's: the group's own template the poll was started from (GET /api/b2/poll_templates?group_id=); recorded, not applied" }))
}).annotations({ identifier: "PollInput" })

/** What a poll started from a template starts with: its settings and its type's numbers, those the template gives. */
export const PollTemplateSettings = Schema.Struct({ ...pollSettingFields, ...ballotFields }).annotations({ identifier: "PollTemplateSettings" })

/** A group's own poll template (decisions §15): its process's words and what a poll from it starts with. */
export const PollTemplateInput = Schema.Struct({
  process_name: Str.annotations({ description: "the template's name, as the chooser lists it; at most 100 characters" }),
  process_subtitle: Schema.optional(Str.annotations({ description: "what the process is for, in a line" })),
  poll_type: word(POLL_TYPES),
  details: Schema.optional(Str.annotations({ description: "the poll's details as it starts (markdown)" })),
  options: Schema.optional(StrArray.annotations({ description: "the options it starts with; none: the author's own" })),
  default_duration_in_days: Int.annotations({ description: "a poll from it closes this many days on: 1 to 365" }),
  settings: Schema.optional(PollTemplateSettings)
}).annotations({ identifier: "PollTemplateInput" })

export const PollPatchInput = Schema.Struct({
  ...pollFields,
  ...ballotFields,
  notify_voters: Schema.optional(Bool.annotations({ description: "extension: tell the voters of the edit by mail, with recipient_message (\"What's changed?\")" }))
}).annotations({
  identifier: "PollUpdateInput",
  description: "poll_type, group_id, discussion_id and topic_id are accepted when unchanged; anonymous only from false to true"
})
export const PollReopenInput = Schema.Struct({ closing_at: Str.annotations({ jsonSchema: { type: "string", format: "date-time" } }) })
  .annotations({ identifier: "PollReopenInput" })

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
  review_on: Schema.optional(Schema.NullOr(Str).annotations({
    description: "YYYY-MM-DD: when outcome_review_due is raised",
    jsonSchema: { type: ["string", "null"], format: "date" }
  })),
  event_summary: Schema.optional(Schema.NullOr(Str).annotations({ description: "a meeting poll's outcome: the event's title (default: the poll's); with poll_option_id, those who answered Yes or Maybe get a calendar invitation" })),
  event_location: Schema.optional(Schema.NullOr(Str).annotations({ description: "a meeting poll's outcome: where the meeting is" })),
  ...files
}
export const OutcomeInput = Schema.Struct({ ...outcomeFields, poll_id: Int, poll_option_id: Schema.optional(Schema.NullOr(Int)) })
  .annotations({ identifier: "OutcomeInput" })
export const OutcomePatchInput = Schema.Struct(outcomeFields).annotations({ identifier: "OutcomeUpdateInput" })

const chatbotFields = {
  name: Schema.optional(Str),
  kind: Schema.optional(word(CHATBOT_KINDS).annotations({ description: "webhook (default) or matrix" })),
  webhook_kind: Schema.optional(Schema.NullOr(word(WEBHOOK_KINDS)).annotations({ description: "markdown (default), slack, discord, microsoft, webex" })),
  server: Schema.optional(Str.annotations({ description: "Destination URL; must resolve to a public address", jsonSchema: { type: "string", format: "uri" } })),
  event_kinds: Schema.optional(StrArray),
  notification_only: Schema.optional(Bool)
}
export const ChatbotCreateInput = Schema.Struct({ group_id: Int, ...chatbotFields }).annotations({ identifier: "WebhookInput" })
/** `group_id` is accepted and ignored: a webhook never moves to another group. */
export const ChatbotUpdateInput = Schema.Struct({ group_id: Schema.optional(Int), ...chatbotFields }).annotations({ identifier: "WebhookUpdateInput" })
export const ChatbotCheckInput = Schema.Struct({
  group_id: Int,
  server: Str.annotations({ jsonSchema: { type: "string", format: "uri" } })
}).annotations({ identifier: "WebhookCheckInput" })

export const ServerUserUpdate = Schema.Struct({
  user: Schema.Struct({
    name: Schema.optional(Schema.NullOr(Str)),
    username: Schema.optional(Schema.NullOr(Str)),
    email: Schema.optional(Email),
    is_admin: Schema.optional(Bool)
  })
}).annotations({ identifier: "ServerUserUpdate" })
