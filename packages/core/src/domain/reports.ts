import type { Id } from "./records.js"

/** The participation report (Loomio's ParticipationReportService; spec: Reports and search). */
export const REPORT_SECTIONS = ["base", "users", "countries"] as const
export type ReportSection = (typeof REPORT_SECTIONS)[number]

/** `all` is legacy and means `my`. */
export const REPORT_GROUP_SCOPES = ["custom", "my", "all"] as const
export type ReportGroupScope = (typeof REPORT_GROUP_SCOPES)[number]

export const REPORT_INTERVALS = ["day", "week", "month", "year"] as const
export type ReportInterval = (typeof REPORT_INTERVALS)[number]

export const REPORT_MEMBER_TYPES = ["delegate"] as const
export type ReportMemberType = (typeof REPORT_MEMBER_TYPES)[number]

/** Whole months: from the first instant of `start_month` to (excluding) the first instant after `end_month`. */
export interface ReportWindow {
  readonly start_month: string
  readonly end_month: string
  /** ISO 8601 instants, UTC; `end` is exclusive */
  readonly start: string
  readonly end: string
}

/** What one person did in the selected groups within the window (records created in it). */
export interface PersonActivity {
  readonly user_id: Id
  readonly threads: number
  readonly comments: number
  readonly polls: number
  readonly outcomes: number
  readonly reactions: number
  /** latest, un-revoked ballots of polls that are not anonymous */
  readonly votes_issued: number
  /** those of them cast */
  readonly votes_cast: number
}

/** What a report row shows of a person. */
export interface ReportPerson {
  readonly id: Id
  readonly name: string | null
  readonly username: string | null
  readonly country: string | null
}

/** A current member of a selected group; `delegate` when any of their memberships there is a delegate one. */
export interface ReportMember {
  readonly user_id: Id
  readonly delegate: boolean
}

/** The spec's "Participation report user row". */
export interface UserReportRow {
  readonly id: Id
  readonly name: string
  readonly country: string | null
  readonly delegate: boolean
  readonly threads: number
  readonly comments: number
  readonly polls: number
  readonly votes: number
  readonly outcomes: number
  readonly reactions: number
  readonly votes_issued: number
  readonly votes_cast: number
  readonly votes_missed: number
  readonly all_votes_cast: boolean
}

/** People and their activity per country (null: never located). */
export interface CountryReportRow {
  readonly country: string | null
  readonly users: number
  readonly threads: number
  readonly comments: number
  readonly polls: number
  readonly votes: number
  readonly outcomes: number
  readonly reactions: number
}

/** Kinds of records counted per day for the `base` section. */
export const BASE_KINDS = ["topics", "discussions", "comments", "polls", "stances", "outcomes", "reactions"] as const
export type BaseKind = (typeof BASE_KINDS)[number]

export interface DayCount {
  readonly kind: BaseKind
  /** YYYY-MM-DD (UTC) */
  readonly day: string
  readonly n: number
}

export interface ReportTotals {
  readonly topics_count: number
  readonly discussion_topics_count: number
  readonly poll_topics_count: number
  readonly polls_count: number
  readonly polls_with_outcomes_count: number
}

export interface TagCount {
  readonly name: string
  readonly count: number
}
