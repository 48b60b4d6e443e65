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
import { Format as FormatField, Id as IdField, NullId, NullStamp } from "./model.js"
import { HIDE_RESULTS, NOTIFY_ON_CLOSING_SOON, Outcome, Poll, POLL_SETTINGS, POLL_TYPES, PollOption, Stance, STANCE_REASON_REQUIRED } from "./polls.js"
import {
  BOOLEAN_GROUP_SETTINGS,
  DELEGATION_LIMIT,
  DELEGATION_LIMIT_MAX,
  type BooleanGroupSetting,
  Comment,
  Discussion,
  Group,
  GROUP_DEFAULTS,
  Membership,
  Reaction,
  Topic,
  TopicReader,
  User
} from "./records.js"

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

type Fields = Schema.Struct.Fields
type TypeOf<S> = S extends Schema.Schema.Any ? Schema.Schema.Type<S> : never
type FlagNames<F extends Fields, N extends keyof F> = { [K in N]: TypeOf<F[K]> extends boolean ? K : never }[N]
/** A convene column as Loomio's file holds it (see `columns`). */
type Column<K, S> = K extends "created_at" | "updated_at" ? typeof Stamp
  : TypeOf<S> extends boolean ? ReturnType<typeof flag>
  : S extends typeof FormatField ? typeof Format
  : null extends TypeOf<S> ? Schema.PropertySignature<":", TypeOf<S>, never, "?:", TypeOf<S> | null | undefined, true, never>
  : S

/**
 * Columns of a Loomio table that are also a convene record's, read from the record's declaration: each as its
 * declared type, read as defensively as Loomio's import reads it. A nullable column may be left out (null); an
 * instant is any date-time Rails writes; a flag left out or null is the column's default, given here for each
 * (Loomio's); a format left out is markdown; `created_at` and `updated_at` may be left out of a hand-written file.
 * A column Loomio holds otherwise than convene (a required convene column Loomio may leave null, an enumeration Loomio
 * stores as a number, a renamed one) is declared beside, after these.
 */
const columns = <F extends Fields, const N extends keyof F & string>(
  record: { readonly fields: F },
  names: ReadonlyArray<N>,
  flags: { readonly [K in FlagNames<F, N>]: boolean }
): { readonly [K in N]: Column<K, F[K]> } => {
  const column = (name: N) => {
    const field = record.fields[name] as unknown as Schema.Schema<unknown, unknown>
    if (name === "created_at" || name === "updated_at") return Stamp
    if (field === Schema.Boolean) return flag((flags as Record<string, boolean>)[name]!)
    if (field === FormatField) return Format
    if (field === NullStamp) return At
    if (field === NullId) return Ref
    if (field === IdField) return Id
    return Schema.is(field)(null) ? orNull(field) : field
  }
  return Object.fromEntries(names.map((name) => [name, column(name)])) as never
}

/**
 * A group's flags as Loomio's columns hold them: convene's declaration (domain/records.ts), each defaulting as
 * Loomio's column does where the file leaves it out. Loomio's `is_visible_to_public` column defaults to true (a
 * new convene group is secret); `enabled` is no column of an export.
 */
type LoomioFlag = Exclude<BooleanGroupSetting, "enabled">
const LOOMIO_COLUMN_DEFAULTS: Record<LoomioFlag, boolean> = Object.assign({}, GROUP_DEFAULTS, { is_visible_to_public: true })

export const LoomioGroup = Schema.Struct({
  ...columns(Group, ["id", "parent_id", "handle", "name", "description", "creator_id", ...BOOLEAN_GROUP_SETTINGS.filter((k): k is LoomioFlag => k !== "enabled"), "created_at", "updated_at"], LOOMIO_COLUMN_DEFAULTS),
  key: Text,
  description_format: Format,
  discussion_privacy_options: Schema.optionalWith(Group.fields.discussion_privacy_options, {
    default: () => GROUP_DEFAULTS.discussion_privacy_options
  }),
  /** convene's additions (decisions §15): delegated voting, off unless the file says so */
  members_can_delegate: flag(false),
  delegation_limit: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, DELEGATION_LIMIT_MAX)), { default: () => DELEGATION_LIMIT }),
  /** Loomio's: the built-in poll templates the group hides, and where it places them (key → position) */
  hidden_poll_templates: Schema.optionalWith(Schema.NullOr(Schema.Array(Schema.String)), { default: () => null }),
  poll_template_positions: Schema.optionalWith(Schema.NullOr(Schema.Record({ key: Schema.String, value: Schema.Int })), { default: () => null })
})

/** A person, without secrets: Loomio leaves out the API key, password digest and tokens, and so does convene. */
export const LoomioUser = Schema.Struct(
  columns(User, ["id", "name", "username", "email", "country", "bot", "deactivated_at", "created_at", "updated_at"], { bot: false })
)

export const LoomioMembership = Schema.Struct(
  columns(Membership, ["id", "group_id", "user_id", "inviter_id", "admin", "delegate", "title", "accepted_at", "revoked_at", "revoker_id", "created_at", "updated_at"], {
    admin: false,
    delegate: false
  })
)

/** The thread of the newer format; in the older one, discussions and polls carry these columns themselves. */
export const LoomioTopic = Schema.Struct({
  ...columns(Topic, ["id", "group_id", "topicable_type", "topicable_id", "private", "closed_at", "closer_id", "discarded_at", "created_at", "updated_at"], {
    private: true
  }),
  tags: Schema.optionalWith(Schema.NullOr(Topic.fields.tags), { default: () => null }),
  max_depth: orNull(Schema.Int),
  last_activity_at: At,
  /** the newer format's name for a closed thread */
  locked_at: At,
  locker_id: Ref
})

/** A thread's columns, which the older format's discussions and polls carry (each may be null: the newer format's topic holds them). */
const threadColumns = {
  group_id: Ref,
  topic_id: Ref,
  private: orNull(Topic.fields.private),
  tags: Schema.optionalWith(Schema.NullOr(Topic.fields.tags), { default: () => null }),
  max_depth: orNull(Schema.Int),
  last_activity_at: At,
  closed_at: At,
  closer_id: Ref
}

export const LoomioDiscussion = Schema.Struct({
  ...columns(Discussion, ["id", "author_id", "title", "description_format", "discarded_at", "discarded_by", "created_at", "updated_at"], {}),
  key: Text,
  description: Text,
  ...threadColumns
})

export const LoomioPoll = Schema.Struct({
  // a setting the file leaves out is a new poll's (Loomio's column defaults are the same)
  ...columns(Poll, ["id", "author_id", "title", "details_format", "poll_type", "closing_at", "opened_at", "discarded_at", "discarded_by",
    "specified_voters_only", "shuffle_options", "anonymous", "created_at", "updated_at"], POLL_SETTINGS),
  key: Text,
  discussion_id: Ref,
  details: Text,
  hide_results: Schema.optionalWith(enumOf(HIDE_RESULTS), { default: () => POLL_SETTINGS.hide_results }),
  notify_on_closing_soon: Schema.optionalWith(enumOf(NOTIFY_ON_CLOSING_SOON), { default: () => POLL_SETTINGS.notify_on_closing_soon }),
  stance_reason_required: Schema.optionalWith(enumOf(STANCE_REASON_REQUIRED), { default: () => POLL_SETTINGS.stance_reason_required }),
  /** Loomio's: the built-in template it was started from, or the group's own (`poll_templates`) */
  poll_template_key: Text,
  poll_template_id: Ref,
  /** convene's addition: false for a poll that refuses delegated votes */
  allow_delegated_votes: Schema.optionalWith(Schema.Boolean, { default: () => POLL_SETTINGS.allow_delegated_votes }),
  // Loomio leaves a type's numbers null where they do not apply
  min_score: orNull(Poll.fields.min_score),
  max_score: orNull(Poll.fields.max_score),
  minimum_stance_choices: orNull(Poll.fields.minimum_stance_choices),
  maximum_stance_choices: orNull(Poll.fields.maximum_stance_choices),
  dots_per_person: orNull(Poll.fields.dots_per_person),
  can_respond_maybe: orNull(Poll.fields.can_respond_maybe),
  ...threadColumns
})

export const LoomioPollOption = Schema.Struct({
  ...columns(PollOption, ["id", "poll_id", "name"], {}),
  priority: Schema.optionalWith(PollOption.fields.priority, { default: () => 0 })
})

export const LoomioStance = Schema.Struct({
  ...columns(Stance, ["id", "poll_id", "participant_id", "inviter_id", "latest", "cast_at", "reason", "reason_format", "revoked_at", "created_at", "updated_at"], {
    latest: true
  }),
  revoker_id: Ref
})

export const LoomioStanceChoice = Schema.Struct({
  id: orNull(Id),
  stance_id: Id,
  poll_option_id: Id,
  score: Schema.optionalWith(Schema.Int, { default: () => 1 })
})

export const LoomioOutcome = Schema.Struct(
  columns(Outcome, ["id", "poll_id", "author_id", "statement", "statement_format", "poll_option_id", "review_on", "latest", "created_at", "updated_at"], {
    latest: true
  })
)

/** A comment replies to its discussion or to another comment: `parent_type` says which (older exports: `discussion_id`). */
export const LoomioComment = Schema.Struct({
  ...columns(Comment, ["id", "parent_id", "body_format", "edited_at", "discarded_at", "discarded_by", "created_at", "updated_at"], {}),
  discussion_id: Ref,
  parent_type: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null }),
  /** Loomio's name for the author */
  user_id: Id,
  body: Schema.optionalWith(Schema.NullOr(Comment.fields.body), { default: () => "" })
})

export const LoomioReaction = Schema.Struct({
  ...columns(Reaction, ["id", "reactable_id", "user_id", "created_at"], {}),
  reactable_type: Schema.optionalWith(Schema.String, { default: () => "Comment" }),
  reaction: Schema.optionalWith(Reaction.fields.reaction, { default: () => "+1" })
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
  ...columns(TopicReader, ["id", "user_id", "inviter_id", "guest", "revoked_at", "created_at", "last_read_at", "dismissed_at"], { guest: false }),
  /** what the person has read ("1-5,7-9"): convene's `read_ranges` */
  read_ranges_string: Text,
  discussion_id: Ref,
  topic_id: Ref,
  /** convene's addition for the older format: a guest of a poll outside any discussion */
  poll_id: Ref
})

/**
 * A file of a record (Loomio writes one line per Active Storage attachment; the bytes are not in the export). The
 * import attaches those of discussions, comments, polls and outcomes from a directory given beside the file
 * (decisions §14), found by `key`, by `path` or by `filename` there.
 */
export const LoomioAttachment = Schema.Struct({
  id: Id,
  record_type: Schema.String,
  record_id: Id,
  /** Loomio's attachment list: `files`, `image_files`, or a group's or person's picture */
  name: Schema.optionalWith(Schema.String, { default: () => "files" }),
  filename: Schema.String,
  content_type: Text,
  host: Text,
  path: Text,
  url: Text,
  /** convene's addition: the SHA-256 of the bytes, their name in the files directory `convene export --files` writes */
  key: Text
})

/** A group's own poll template (Loomio's `poll_templates` row); an option is Loomio's object (its `name`) or a name. */
export const LoomioPollTemplate = Schema.Struct({
  id: Id,
  group_id: Id,
  author_id: Ref,
  poll_type: Schema.Literal(...POLL_TYPES),
  process_name: Text,
  process_subtitle: Text,
  title: Text,
  details: Text,
  details_format: Format,
  poll_options: Schema.optionalWith(Schema.NullOr(Schema.Array(Schema.Union(Schema.String, Schema.Struct({ name: Schema.String })))), { default: () => null }),
  default_duration_in_days: Schema.optionalWith(Schema.NullOr(Schema.Int), { default: () => null }),
  anonymous: flag(POLL_SETTINGS.anonymous),
  specified_voters_only: flag(POLL_SETTINGS.specified_voters_only),
  shuffle_options: flag(POLL_SETTINGS.shuffle_options),
  hide_results: Schema.optionalWith(enumOf(HIDE_RESULTS), { default: () => POLL_SETTINGS.hide_results }),
  notify_on_closing_soon: Schema.optionalWith(enumOf(NOTIFY_ON_CLOSING_SOON), { default: () => POLL_SETTINGS.notify_on_closing_soon }),
  stance_reason_required: Schema.optionalWith(enumOf(STANCE_REASON_REQUIRED), { default: () => POLL_SETTINGS.stance_reason_required }),
  /** convene's addition: false for a template whose polls refuse delegated votes */
  allow_delegated_votes: flag(POLL_SETTINGS.allow_delegated_votes),
  min_score: orNull(Schema.Int),
  max_score: orNull(Schema.Int),
  minimum_stance_choices: orNull(Schema.Int),
  maximum_stance_choices: orNull(Schema.Int),
  dots_per_person: orNull(Schema.Int),
  /** convene's addition: the built-in a group's copy was edited from */
  source_key: Text,
  position: Schema.optionalWith(Schema.Int, { default: () => 0 }),
  discarded_at: At,
  created_at: Stamp,
  updated_at: Stamp
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
  topic_readers: LoomioReader,
  attachments: LoomioAttachment,
  poll_templates: LoomioPollTemplate
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
  "discussion_templates",
  "membership_requests",
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
