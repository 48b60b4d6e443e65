/**
 * Loomio's group export (reference/loomio-people-and-export.md §5, decisions §7): JSON Lines of
 * `{"table", "record"}`, where a record is a database row. Each table convene reads is declared once here:
 * the import decodes every line with it, and the export encodes every row it writes with it.
 *
 * Records are read defensively, as Loomio's own import does: unknown columns are ignored and missing
 * optional ones defaulted. Both generations of the format are read: the older one (`events`,
 * `discussion_readers`, discussions and polls carrying their group) and the newer one (`topics`,
 * `topic_items`, `topic_readers`). Loomio's enumerations stored as integers (`hide_results`,
 * `notify_on_closing_soon`) are read as integers or words.
 */
import { ParseResult, Schema } from "effect"
import { HIDE_RESULTS, NOTIFY_ON_CLOSING_SOON, POLL_SETTINGS, POLL_TYPES } from "./polls.js"
import { BOOLEAN_GROUP_SETTINGS, type BooleanGroupSetting, DISCUSSION_PRIVACY_OPTIONS, GROUP_DEFAULTS } from "./records.js"

const Id = Schema.Int.annotations({ message: () => "must be an integer id" })
const orNull = <A, I>(s: Schema.Schema<A, I>) => Schema.optionalWith(Schema.NullOr(s), { default: () => null })
const Ref = orNull(Id)
const Text = orNull(Schema.String)

/** Any date-time Loomio writes (Rails' ISO 8601), stored as convene stores time: UTC ISO with milliseconds. */
const Time = Schema.transformOrFail(Schema.String, Schema.String, {
  strict: true,
  decode: (s, _, ast) => {
    const ms = Date.parse(s)
    return Number.isNaN(ms)
      ? ParseResult.fail(new ParseResult.Type(ast, s, "is not a date-time"))
      : ParseResult.succeed(new Date(ms).toISOString())
  },
  encode: ParseResult.succeed
})
const At = orNull(Time)
/** created_at and updated_at are present in every real export; a hand-written file may leave them out. */
const Stamp = Schema.optional(Time)

/** A boolean column: null or missing means the column's default. */
const flag = (byDefault: boolean) =>
  Schema.optionalWith(
    Schema.transform(Schema.NullOr(Schema.Boolean), Schema.Boolean, { strict: true, decode: (v) => v ?? byDefault, encode: (v) => v }),
    { default: () => byDefault }
  )
const Format = Schema.optionalWith(
  Schema.transform(Schema.NullOr(Schema.Literal("md", "html")), Schema.Literal("md", "html"), {
    strict: true,
    decode: (v) => v ?? "md",
    encode: (v) => v
  }),
  { default: () => "md" as const }
)

/** A Rails integer enum read as its number or its word; written as the number, as Loomio stores it. */
const enumOf = <const W extends ReadonlyArray<string>>(words: W) => {
  const Word = Schema.Literal(...words)
  const Index = Schema.Int.pipe(Schema.between(0, words.length - 1))
  return Schema.transform(Schema.Union(Index, Word), Word, {
    strict: true,
    decode: (v) => (typeof v === "number" ? words[v]! : v) as W[number],
    encode: (w) => words.indexOf(w)
  })
}

/**
 * A group's flags as Loomio's columns hold them: convene's declaration (domain/records.ts), each defaulting as
 * Loomio's column does where the file leaves it out. Loomio's `is_visible_to_public` column defaults to true (a
 * new convene group is secret); `enabled` is no column of an export.
 */
type LoomioFlag = Exclude<BooleanGroupSetting, "enabled">
const LOOMIO_COLUMN_DEFAULTS: Record<LoomioFlag, boolean> = Object.assign({}, GROUP_DEFAULTS, { is_visible_to_public: true })
const groupFlags = Object.fromEntries(BOOLEAN_GROUP_SETTINGS.filter((k): k is LoomioFlag => k !== "enabled").map((k) => [k, flag(LOOMIO_COLUMN_DEFAULTS[k])])) as {
  readonly [K in LoomioFlag]: ReturnType<typeof flag>
}

export const LoomioGroup = Schema.Struct({
  id: Id,
  parent_id: Ref,
  key: Text,
  handle: Text,
  name: Schema.String,
  description: Text,
  description_format: Format,
  creator_id: Ref,
  ...groupFlags,
  discussion_privacy_options: Schema.optionalWith(Schema.Literal(...DISCUSSION_PRIVACY_OPTIONS), {
    default: () => GROUP_DEFAULTS.discussion_privacy_options
  }),
  created_at: Stamp,
  updated_at: Stamp
})

/** A person, without secrets: Loomio leaves out the API key, password digest and tokens, and so does convene. */
export const LoomioUser = Schema.Struct({
  id: Id,
  name: Text,
  username: Text,
  email: Text,
  country: Text,
  bot: flag(false),
  deactivated_at: At,
  created_at: Stamp,
  updated_at: Stamp
})

export const LoomioMembership = Schema.Struct({
  id: Id,
  group_id: Id,
  user_id: Id,
  inviter_id: Ref,
  admin: flag(false),
  delegate: flag(false),
  title: Text,
  accepted_at: At,
  revoked_at: At,
  revoker_id: Ref,
  created_at: Stamp,
  updated_at: Stamp
})

/** The thread of the newer format; in the older one, discussions and polls carry these columns themselves. */
export const LoomioTopic = Schema.Struct({
  id: Id,
  group_id: Ref,
  topicable_type: Schema.Literal("Discussion", "Poll"),
  topicable_id: Ref,
  private: flag(true),
  tags: Schema.optionalWith(Schema.NullOr(Schema.Array(Schema.String)), { default: () => null }),
  max_depth: orNull(Schema.Int),
  last_activity_at: At,
  closed_at: At,
  closer_id: Ref,
  /** the newer format's name for a closed thread */
  locked_at: At,
  locker_id: Ref,
  discarded_at: At,
  created_at: Stamp,
  updated_at: Stamp
})

const threadColumns = {
  group_id: Ref,
  topic_id: Ref,
  private: orNull(Schema.Boolean),
  tags: Schema.optionalWith(Schema.NullOr(Schema.Array(Schema.String)), { default: () => null }),
  max_depth: orNull(Schema.Int),
  last_activity_at: At,
  closed_at: At,
  closer_id: Ref
}

export const LoomioDiscussion = Schema.Struct({
  id: Id,
  key: Text,
  author_id: Id,
  title: Schema.String,
  description: Text,
  description_format: Format,
  discarded_at: At,
  discarded_by: Ref,
  created_at: Stamp,
  updated_at: Stamp,
  ...threadColumns
})

export const LoomioPoll = Schema.Struct({
  id: Id,
  key: Text,
  discussion_id: Ref,
  author_id: Id,
  title: Schema.String,
  details: Text,
  details_format: Format,
  poll_type: Schema.Literal(...POLL_TYPES),
  closing_at: At,
  opened_at: At,
  discarded_at: At,
  discarded_by: Ref,
  // a setting the file leaves out is a new poll's (Loomio's column defaults are the same)
  specified_voters_only: flag(POLL_SETTINGS.specified_voters_only),
  hide_results: Schema.optionalWith(enumOf(HIDE_RESULTS), { default: () => POLL_SETTINGS.hide_results }),
  shuffle_options: flag(POLL_SETTINGS.shuffle_options),
  anonymous: flag(POLL_SETTINGS.anonymous),
  notify_on_closing_soon: Schema.optionalWith(enumOf(NOTIFY_ON_CLOSING_SOON), { default: () => POLL_SETTINGS.notify_on_closing_soon }),
  min_score: orNull(Schema.Int),
  max_score: orNull(Schema.Int),
  minimum_stance_choices: orNull(Schema.Int),
  maximum_stance_choices: orNull(Schema.Int),
  dots_per_person: orNull(Schema.Int),
  can_respond_maybe: orNull(Schema.Boolean),
  created_at: Stamp,
  updated_at: Stamp,
  ...threadColumns
})

export const LoomioPollOption = Schema.Struct({
  id: Id,
  poll_id: Id,
  name: Schema.String,
  priority: Schema.optionalWith(Schema.Int, { default: () => 0 })
})

export const LoomioStance = Schema.Struct({
  id: Id,
  poll_id: Id,
  participant_id: Id,
  inviter_id: Ref,
  latest: flag(true),
  cast_at: At,
  reason: Text,
  reason_format: Format,
  revoked_at: At,
  revoker_id: Ref,
  created_at: Stamp,
  updated_at: Stamp
})

export const LoomioStanceChoice = Schema.Struct({
  id: orNull(Id),
  stance_id: Id,
  poll_option_id: Id,
  score: Schema.optionalWith(Schema.Int, { default: () => 1 })
})

export const LoomioOutcome = Schema.Struct({
  id: Id,
  poll_id: Id,
  author_id: Id,
  statement: Schema.String,
  statement_format: Format,
  poll_option_id: Ref,
  review_on: Text,
  latest: flag(true),
  created_at: Stamp,
  updated_at: Stamp
})

/** A comment replies to its discussion or to another comment: `parent_type` says which (older exports: `discussion_id`). */
export const LoomioComment = Schema.Struct({
  id: Id,
  discussion_id: Ref,
  parent_id: Ref,
  parent_type: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null }),
  user_id: Id,
  body: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => "" }),
  body_format: Format,
  edited_at: At,
  discarded_at: At,
  discarded_by: Ref,
  created_at: Stamp,
  updated_at: Stamp
})

export const LoomioReaction = Schema.Struct({
  id: Id,
  reactable_type: Schema.optionalWith(Schema.String, { default: () => "Comment" }),
  reactable_id: Id,
  user_id: Id,
  reaction: Schema.optionalWith(Schema.String, { default: () => "+1" }),
  created_at: Stamp
})

/** A thread item: `events` (older, placed by discussion) or `topic_items` (newer, placed by topic). */
export const LoomioEvent = Schema.Struct({
  id: Id,
  kind: Schema.String,
  eventable_type: Text,
  eventable_id: Ref,
  itemable_type: Text,
  itemable_id: Ref,
  user_id: Ref,
  discussion_id: Ref,
  topic_id: Ref,
  sequence_id: orNull(Schema.Int),
  parent_id: Ref,
  /** written for Loomio, which stores them; convene derives them from the tree on import */
  depth: orNull(Schema.Int),
  position: orNull(Schema.Int),
  position_key: Text,
  created_at: Stamp
})

export const LoomioReader = Schema.Struct({
  id: Id,
  discussion_id: Ref,
  topic_id: Ref,
  /** convene's addition for the older format: a guest of a poll outside any discussion */
  poll_id: Ref,
  user_id: Id,
  inviter_id: Ref,
  guest: flag(false),
  revoked_at: At,
  created_at: Stamp
})

export const LOOMIO_TABLES = {
  groups: LoomioGroup,
  users: LoomioUser,
  memberships: LoomioMembership,
  topics: LoomioTopic,
  discussions: LoomioDiscussion,
  polls: LoomioPoll,
  poll_options: LoomioPollOption,
  stances: LoomioStance,
  stance_choices: LoomioStanceChoice,
  outcomes: LoomioOutcome,
  comments: LoomioComment,
  reactions: LoomioReaction,
  events: LoomioEvent,
  topic_items: LoomioEvent,
  discussion_readers: LoomioReader,
  topic_readers: LoomioReader
} as const
export type LoomioTable = keyof typeof LOOMIO_TABLES
export type LoomioRecord<T extends LoomioTable> = Schema.Schema.Type<(typeof LOOMIO_TABLES)[T]>

/**
 * Tables a Loomio export holds that convene has no place for: read (each line must still be
 * `{"table", "record"}`), counted, and left out. Any other table name is refused.
 */
export const LOOMIO_SKIPPED_TABLES = [
  "notifications",
  "notification_deliveries",
  "poll_templates",
  "discussion_templates",
  "membership_requests",
  "attachments",
  "tags",
  "taggings",
  "stance_receipts",
  "anonymous_ballots",
  "anonymous_ballot_choices",
  "anonymous_poll_voters",
  "legacy_anonymous_vote_reasons",
  "versions",
  "tasks",
  "tasks_users"
] as const

/** One line of the file: the envelope, before its record is read by its table's declaration. */
export const LoomioLine = Schema.Struct({
  table: Schema.String,
  record: Schema.Record({ key: Schema.String, value: Schema.Unknown })
})
