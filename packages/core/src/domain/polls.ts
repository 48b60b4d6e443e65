import type { Id } from "./records.js"

export const POLL_TYPES = ["proposal", "poll", "count", "score", "ranked_choice", "meeting", "dot_vote"] as const
export type PollType = (typeof POLL_TYPES)[number]

/** The only options a proposal may have (spec: Poll create rules). */
export const PROPOSAL_OPTIONS = ["agree", "disagree", "abstain", "block"] as const

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
