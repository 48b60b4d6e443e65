import type { Id } from "./records.js"

export const POLL_TYPES = ["proposal", "poll", "count", "score", "ranked_choice", "meeting", "dot_vote"] as const
export type PollType = (typeof POLL_TYPES)[number]

/** The only options a proposal may have (spec: Poll create rules), in Loomio's order. */
export const PROPOSAL_OPTIONS = ["agree", "abstain", "disagree", "block"] as const

export const HIDE_RESULTS = ["off", "until_vote", "until_closed"] as const
export type HideResults = (typeof HIDE_RESULTS)[number]

export const NOTIFY_ON_CLOSING_SOON = ["nobody", "author", "undecided_voters", "voters"] as const
export type NotifyOnClosingSoon = (typeof NOTIFY_ON_CLOSING_SOON)[number]

/** The numbers that shape a ballot, per poll (Loomio's per-type defaults apply when not given). */
export interface BallotConfig {
  readonly poll_type: PollType
  readonly min_score: number
  readonly max_score: number
  readonly minimum_stance_choices: number
  readonly maximum_stance_choices: number
  readonly dots_per_person: number
  readonly can_respond_maybe: boolean
}

export interface Poll extends BallotConfig {
  readonly id: Id
  readonly key: string
  readonly topic_id: Id
  readonly group_id: Id | null
  readonly author_id: Id
  readonly title: string
  readonly details: string
  readonly details_format: "md" | "html"
  /** null: a draft (work in progress), voting disabled */
  readonly closing_at: string | null
  readonly opened_at: string | null
  readonly closed_at: string | null
  readonly discarded_at: string | null
  readonly discarded_by: Id | null
  readonly specified_voters_only: boolean
  readonly hide_results: HideResults
  readonly shuffle_options: boolean
  readonly anonymous: boolean
  readonly notify_on_closing_soon: NotifyOnClosingSoon
  /** scheduler markers: each job runs once per poll (per opening, for closing-soon) */
  readonly closing_soon_sent_at: string | null
  readonly created_at: string
  readonly updated_at: string
}

export interface PollOption {
  readonly id: Id
  readonly poll_id: Id
  readonly name: string
  readonly priority: number
}

/** A ballot: issued when `cast_at` is null, cast otherwise; one latest per participant. */
export interface Stance {
  readonly id: Id
  readonly poll_id: Id
  readonly participant_id: Id
  readonly inviter_id: Id | null
  readonly latest: boolean
  readonly cast_at: string | null
  readonly reason: string | null
  readonly reason_format: "md" | "html"
  readonly revoked_at: string | null
  readonly created_at: string
  readonly updated_at: string
  /** option id → score */
  readonly choices: ReadonlyMap<Id, number>
}

export interface Outcome {
  readonly id: Id
  readonly poll_id: Id
  readonly author_id: Id
  readonly statement: string
  readonly statement_format: "md" | "html"
  readonly poll_option_id: Id | null
  readonly review_on: string | null
  readonly latest: boolean
  readonly review_sent_at: string | null
  readonly created_at: string
  readonly updated_at: string
}

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
  readonly options: ReadonlyArray<OptionTally>
}
