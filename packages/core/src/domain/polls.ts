import { Schema } from "effect"
import { Format, Id as IdField, model, NullId, NullStamp, NullText, Stamp } from "./model.js"
import type { Id } from "./records.js"

export const POLL_TYPES = ["proposal", "poll", "count", "score", "ranked_choice", "meeting", "dot_vote"] as const
export type PollType = (typeof POLL_TYPES)[number]

/** The only options a proposal may have (spec: Poll create rules), in Loomio's order. */
export const PROPOSAL_OPTIONS = ["agree", "abstain", "disagree", "block"] as const

export const HIDE_RESULTS = ["off", "until_vote", "until_closed"] as const
export type HideResults = (typeof HIDE_RESULTS)[number]

/** Loomio's `stance_reason_required`: whether a vote takes a reason (0, 1, 2 in its exports). */
export const STANCE_REASON_REQUIRED = ["disabled", "optional", "required"] as const
export const NOTIFY_ON_CLOSING_SOON = ["nobody", "author", "undecided_voters", "voters"] as const
export type NotifyOnClosingSoon = (typeof NOTIFY_ON_CLOSING_SOON)[number]

/** The numbers that shape a ballot, per poll (Loomio's per-type defaults apply when not given). */
const ballotConfig = {
  poll_type: Schema.Literal(...POLL_TYPES),
  min_score: Schema.Int,
  max_score: Schema.Int,
  minimum_stance_choices: Schema.Int,
  maximum_stance_choices: Schema.Int,
  dots_per_person: Schema.Int,
  can_respond_maybe: Schema.Boolean
}
export type BallotConfig = Schema.Struct.Type<typeof ballotConfig>

/**
 * A poll's settings (who votes, what shows, who hears it is closing) with a new poll's values: the one place
 * they are listed. A write takes those given (`pollSettings`); an import from Loomio defaults as its columns do.
 */
export const POLL_SETTINGS = {
  specified_voters_only: false,
  hide_results: "off",
  shuffle_options: false,
  anonymous: false,
  notify_on_closing_soon: "nobody",
  stance_reason_required: "optional",
  allow_delegated_votes: true
} as const satisfies Record<string, unknown>
export type PollSettings = {
  readonly specified_voters_only: boolean
  readonly hide_results: (typeof HIDE_RESULTS)[number]
  readonly shuffle_options: boolean
  readonly anonymous: boolean
  readonly notify_on_closing_soon: (typeof NOTIFY_ON_CLOSING_SOON)[number]
  readonly stance_reason_required: (typeof STANCE_REASON_REQUIRED)[number]
  /** false: "No delegated votes" (an election): a delegate's vote counts for themselves only */
  readonly allow_delegated_votes: boolean
}
const SETTING_NAMES = Object.keys(POLL_SETTINGS) as ReadonlyArray<keyof PollSettings>

/**
 * The settings `input` gives (an update's patch), or each one's value for a new poll where it gives none
 * (`withDefaults`). Their values were checked before (rules/polls.ts `pollSettingsErrors`).
 */
export const pollSettings = (input: { readonly [K in keyof PollSettings]?: unknown }, withDefaults: boolean): Partial<PollSettings> => {
  const out: Record<string, unknown> = {}
  for (const name of SETTING_NAMES) {
    const given = input[name]
    if (given != null) out[name] = given
    else if (withDefaults) out[name] = POLL_SETTINGS[name]
  }
  return out as Partial<PollSettings>
}

export const Poll = model("Poll", {
  id: IdField,
  key: Schema.String,
  topic_id: IdField,
  group_id: NullId,
  author_id: IdField,
  title: Schema.String,
  details: Schema.String,
  details_format: Format,
  /** null: a draft (work in progress), voting disabled */
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
  stance_reason_required: Schema.Literal(...STANCE_REASON_REQUIRED),
  allow_delegated_votes: Schema.Boolean,
  /** Loomio's: the template it was started from (a built-in's key; a group's own template's id, not built yet) */
  poll_template_key: NullText,
  poll_template_id: NullId,
  ...ballotConfig,
  /** scheduler markers: each job runs once per poll (per opening, for closing-soon) */
  closing_soon_sent_at: NullStamp,
  /** when its administrators last reminded those who have not voted (**Remind**, once a day at most) */
  reminded_at: NullStamp,
  created_at: Stamp,
  updated_at: Stamp
})
export type Poll = typeof Poll.Type

export const PollOption = model("PollOption", {
  id: IdField,
  poll_id: IdField,
  name: Schema.String,
  priority: Schema.Int
})
export type PollOption = typeof PollOption.Type

/** A ballot: issued when `cast_at` is null, cast otherwise; one latest per participant. */
export const Stance = model("Stance", {
  id: IdField,
  poll_id: IdField,
  participant_id: IdField,
  inviter_id: NullId,
  latest: Schema.Boolean,
  cast_at: NullStamp,
  reason: NullText,
  reason_format: Format,
  revoked_at: NullStamp,
  /** cast by this delegate's vote for the participant, who has not voted themselves (decisions §15) */
  delegated_by: NullId,
  created_at: Stamp,
  updated_at: Stamp
})
/** A ballot with its choices (option id → score), read apart from its row. */
export type Stance = typeof Stance.Type & { readonly choices: ReadonlyMap<Id, number> }

/** A member's delegate in a group (decisions §15), kept when revoked: the history administrators see. */
export const Delegation = model("Delegation", {
  id: IdField,
  group_id: IdField,
  delegator_id: IdField,
  delegate_id: IdField,
  created_at: Stamp,
  revoked_at: NullStamp,
  revoker_id: NullId
})
export type Delegation = typeof Delegation.Type

export const Outcome = model("Outcome", {
  id: IdField,
  poll_id: IdField,
  author_id: IdField,
  statement: Schema.String,
  statement_format: Format,
  poll_option_id: NullId,
  review_on: NullText,
  latest: Schema.Boolean,
  review_sent_at: NullStamp,
  /** a meeting's outcome: its event's "Event title" and "Location" (Loomio's custom_fields) */
  event_summary: NullText,
  event_location: NullText,
  created_at: Stamp,
  updated_at: Stamp
})
export type Outcome = typeof Outcome.Type

/** What each poll type is, in one table (as Loomio's config/poll_types.yml); the rules read only this. */
export interface PollTypeFacts {
  /** options a poll gets when created without any */
  readonly defaultOptions: ReadonlyArray<string>
  readonly minOptions: number
  /** what an option name must be: anything, one of PROPOSAL_OPTIONS, or an ISO 8601 date or date-time */
  readonly optionNames: "any" | "proposal" | "dates"
  /** Loomio's prevent_anonymous */
  readonly anonymousAllowed: boolean
  /** results keep the option order (priority) or rank by total score */
  readonly resultsOrder: "priority" | "score"
  /** ballot settings a poll starts from */
  readonly ballot: Omit<BallotConfig, "poll_type">
}

const ballot = (b: Partial<Omit<BallotConfig, "poll_type">>): Omit<BallotConfig, "poll_type"> => ({
  min_score: 1, max_score: 1, minimum_stance_choices: 1, maximum_stance_choices: 1, dots_per_person: 1, can_respond_maybe: false, ...b
})

export const POLL_TYPE_FACTS: Readonly<Record<PollType, PollTypeFacts>> = {
  proposal: {
    defaultOptions: PROPOSAL_OPTIONS, minOptions: 1, optionNames: "proposal", anonymousAllowed: true, resultsOrder: "priority", ballot: ballot({})
  },
  poll: { defaultOptions: [], minOptions: 1, optionNames: "any", anonymousAllowed: true, resultsOrder: "score", ballot: ballot({}) },
  count: {
    defaultOptions: ["accept", "decline"], minOptions: 1, optionNames: "any", anonymousAllowed: false, resultsOrder: "priority", ballot: ballot({})
  },
  score: {
    defaultOptions: [], minOptions: 1, optionNames: "any", anonymousAllowed: true, resultsOrder: "score",
    ballot: ballot({ min_score: 0, max_score: 5, maximum_stance_choices: 0 })
  },
  ranked_choice: {
    defaultOptions: [], minOptions: 2, optionNames: "any", anonymousAllowed: true, resultsOrder: "score",
    ballot: ballot({ max_score: 0, minimum_stance_choices: 0, maximum_stance_choices: 0 })
  },
  meeting: {
    defaultOptions: [], minOptions: 1, optionNames: "dates", anonymousAllowed: false, resultsOrder: "priority",
    ballot: ballot({ min_score: 0, max_score: 2, minimum_stance_choices: 0, maximum_stance_choices: 0, can_respond_maybe: true })
  },
  dot_vote: {
    defaultOptions: [], minOptions: 1, optionNames: "any", anonymousAllowed: true, resultsOrder: "score",
    ballot: ballot({ min_score: 0, max_score: 0, maximum_stance_choices: 0, dots_per_person: 8 })
  }
}

/**
 * What results are computed from: per option, the sum of scores and who chose it over the latest, un-revoked,
 * cast ballots; per poll, ballots issued and cast. The store counts these in SQL for large polls;
 * `tallyBallots` is the same count over ballots in memory (the definition, tested against the store).
 */
export interface OptionTally {
  readonly option_id: Id
  readonly score: number
  /** ballots that chose it (any answer for a meeting, a score above 0 otherwise) */
  readonly voter_count: number
  readonly yes: number
  readonly maybe: number
  readonly no: number
  /** the first VOTER_NAMES (rules/pollTypes.ts) of them, by ballot */
  readonly voter_ids: ReadonlyArray<Id>
}

export interface PollTally {
  readonly voters_count: number
  readonly cast_count: number
  /** of the cast ballots, those a delegate's vote cast (decisions §15) */
  readonly delegated_count: number
  readonly options: ReadonlyArray<OptionTally>
}
