/**
 * The participation report, pure (Loomio's ParticipationReportService): reading its parameters, the window
 * and intervals, and turning per-person and per-day counts into the `users`, `countries` and `base` sections.
 */
import type { Id } from "../domain/records.js"
import {
  BASE_KINDS,
  type BaseKind,
  type CountryReportRow,
  type DayCount,
  type PersonActivity,
  REPORT_GROUP_SCOPES,
  REPORT_INTERVALS,
  REPORT_MEMBER_TYPES,
  REPORT_SECTIONS,
  type ReportGroupScope,
  type ReportInterval,
  type ReportMember,
  type ReportMemberType,
  type ReportPerson,
  type ReportSection,
  type ReportWindow,
  type UserReportRow
} from "../domain/reports.js"
import { displayName } from "./users.js"
import { isOneOf } from "./values.js"
import { isNumericId } from "../domain/refs.js"

/** What a caller sent, as text (query parameters). */
export interface ReportParams {
  readonly section?: string | undefined
  readonly group_scope?: string | undefined
  readonly group_ids?: string | undefined
  readonly start_month?: string | undefined
  readonly end_month?: string | undefined
  readonly interval?: string | undefined
  readonly member_type?: string | undefined
}

export interface ReportRequest {
  readonly section: ReportSection
  /** `all` already read as `my` */
  readonly group_scope: "custom" | "my"
  /** the ids asked for with `custom` (before dropping groups the caller is not a member of) */
  readonly group_ids: ReadonlyArray<Id>
  readonly window: ReportWindow
  readonly interval: ReportInterval
  readonly member_type: ReportMemberType | null
}

/** A parameter that is not acceptable, and why (the HTTP layer answers 400 naming it). */
export interface ReportParamError {
  readonly param: string
  readonly message: string
}

const MONTH = /^([0-9]{4})-(0[1-9]|1[0-2])$/

/** Bounds that keep one report request cheap: ten years, a thousand intervals, a thousand groups. */
export const MAX_REPORT_INTERVALS = 1000
export const MAX_REPORT_GROUPS = 1000
const INTERVAL_DAYS: Record<ReportInterval, number> = { day: 1, week: 7, month: 28, year: 365 }

const pad = (n: number, w = 2) => String(n).padStart(w, "0")
const monthText = (year: number, month0: number) => `${pad(year, 4)}-${pad(month0 + 1)}`
const iso = (ms: number) => new Date(ms).toISOString()

/** The first instant of `YYYY-MM` plus `add` months, UTC. */
const monthStart = (text: string, add = 0): number => {
  const m = MONTH.exec(text)!
  // setUTCFullYear, not Date.UTC: Date.UTC reads the years 0–99 as 1900–1999
  return new Date(0).setUTCFullYear(Number(m[1]), Number(m[2]) - 1 + add, 1)
}

/**
 * Defaults: from the month 12 months before now to the current month (Loomio: "12 months ago"). Any window is
 * served, however long (real clients send `start_month=2000-01` for "all history"); the work is what is bounded
 * (section=base's number of intervals, reports off the event loop).
 */
export const reportWindow = (startMonth: string | undefined, endMonth: string | undefined, now: Date): ReportWindow | ReportParamError => {
  const present = (v: string | undefined): v is string => v !== undefined && v !== ""
  if (present(startMonth) && !MONTH.test(startMonth)) return { param: "start_month", message: "start_month must be a month as YYYY-MM" }
  if (present(endMonth) && !MONTH.test(endMonth)) return { param: "end_month", message: "end_month must be a month as YYYY-MM" }
  const end_month = present(endMonth) ? endMonth : monthText(now.getUTCFullYear(), now.getUTCMonth())
  const yearAgo = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 12, 1))
  const start_month = present(startMonth) ? startMonth : monthText(yearAgo.getUTCFullYear(), yearAgo.getUTCMonth())
  if (start_month > end_month) return { param: "start_month", message: "start_month must not be after end_month" }
  // after 9999-12 the instant has no four-digit year: the window ends with the last instant that has one
  const end = monthStart(end_month, 1)
  return { start_month, end_month, start: iso(monthStart(start_month)), end: new Date(end).getUTCFullYear() > 9999 ? "9999-12-31T23:59:59.999Z" : iso(end) }
}


/**
 * Reads the parameters. Unknown values are refused (Loomio answers 500 for some and guesses for others; we
 * name the parameter). Without `group_scope`: `custom` when `group_ids` is sent, else `my`.
 */
export const readReportParams = (p: ReportParams, now: Date): ReportRequest | ReportParamError => {
  const given = (v: string | undefined): v is string => v !== undefined && v !== ""
  const section = given(p.section) ? p.section : "base"
  if (!isOneOf(REPORT_SECTIONS, section)) return { param: "section", message: `section must be one of ${REPORT_SECTIONS.join(", ")}` }
  const interval = given(p.interval) ? p.interval : "month"
  if (!isOneOf(REPORT_INTERVALS, interval)) return { param: "interval", message: `interval must be one of ${REPORT_INTERVALS.join(", ")}` }
  const memberType = given(p.member_type) ? p.member_type : null
  if (memberType !== null && !isOneOf(REPORT_MEMBER_TYPES, memberType)) {
    return { param: "member_type", message: `member_type must be ${REPORT_MEMBER_TYPES.join(" or ")}` }
  }
  const pieces = given(p.group_ids) ? p.group_ids.split(",").map((x) => x.trim()).filter((x) => x !== "") : []
  if (pieces.some((x) => !isNumericId(x))) return { param: "group_ids", message: "group_ids must be a comma-separated list of integers" }
  const scope = given(p.group_scope) ? p.group_scope : given(p.group_ids) ? "custom" : "my"
  if (!isOneOf<ReportGroupScope>(REPORT_GROUP_SCOPES, scope)) {
    return { param: "group_scope", message: `group_scope must be one of ${REPORT_GROUP_SCOPES.join(", ")}` }
  }
  if (pieces.length > MAX_REPORT_GROUPS) return { param: "group_ids", message: `group_ids must hold at most ${MAX_REPORT_GROUPS} ids` }
  const window = reportWindow(p.start_month, p.end_month, now)
  if ("param" in window) return window
  const days = (Date.parse(window.end) - Date.parse(window.start)) / 86_400_000
  if (section === "base" && Math.ceil(days / INTERVAL_DAYS[interval]) > MAX_REPORT_INTERVALS) {
    return { param: "interval", message: `interval: at most ${MAX_REPORT_INTERVALS} intervals per report; choose a longer interval or a shorter window` }
  }
  return {
    section,
    group_scope: scope === "custom" ? "custom" : "my",
    group_ids: [...new Set(pieces.map(Number))],
    window,
    interval,
    member_type: memberType
  }
}

export const isParamError = (v: unknown): v is ReportParamError => typeof v === "object" && v !== null && "param" in v

/** The UTC day of an instant or date text. */
const dayMs = (day: string) => Date.UTC(Number(day.slice(0, 4)), Number(day.slice(5, 7)) - 1, Number(day.slice(8, 10)))
const dayText = (ms: number) => iso(ms).slice(0, 10)

/** The start (YYYY-MM-DD) of the interval holding `day`; weeks start on Monday (as PostgreSQL's date_trunc). */
export const intervalStart = (day: string, interval: ReportInterval): string => {
  switch (interval) {
    case "day":
      return day.slice(0, 10)
    case "week": {
      const ms = dayMs(day)
      const weekday = (new Date(ms).getUTCDay() + 6) % 7
      return dayText(ms - weekday * 86_400_000)
    }
    case "month":
      return `${day.slice(0, 7)}-01`
    case "year":
      return `${day.slice(0, 4)}-01-01`
  }
}

const nextStart = (start: string, interval: ReportInterval): string => {
  const ms = dayMs(start)
  const d = new Date(ms)
  switch (interval) {
    case "day":
      return dayText(ms + 86_400_000)
    case "week":
      return dayText(ms + 7 * 86_400_000)
    case "month":
      return dayText(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1))
    case "year":
      return dayText(Date.UTC(d.getUTCFullYear() + 1, 0, 1))
  }
}

/** Every interval of the window: from the one holding its start, while it starts before the window ends. */
export const intervalStarts = (window: ReportWindow, interval: ReportInterval): ReadonlyArray<string> => {
  const out: Array<string> = []
  const end = window.end.slice(0, 10)
  for (let s = intervalStart(window.start, interval); s < end; s = nextStart(s, interval)) out.push(s)
  return out
}

/** Per kind, a count for every interval (zeros included). */
export const perInterval = (
  starts: ReadonlyArray<string>,
  interval: ReportInterval,
  days: ReadonlyArray<DayCount>
): Record<BaseKind, Record<string, number>> => {
  const out = Object.fromEntries(BASE_KINDS.map((k) => [k, Object.fromEntries(starts.map((s) => [s, 0]))])) as Record<BaseKind, Record<string, number>>
  for (const { day, kind, n } of days) {
    const key = intervalStart(day, interval)
    if (key in out[kind]) out[kind][key]! += n
  }
  return out
}

const NONE: Omit<PersonActivity, "user_id"> = {
  threads: 0, comments: 0, polls: 0, outcomes: 0, reactions: 0, votes_issued: 0, votes_cast: 0
}

/**
 * The `users` rows: every current member of the selected groups and everyone with activity there (with
 * `delegateOnly`, only current delegates, whatever their counts). Votes are the identified ballots: issued,
 * cast, missed = issued − cast; `all_votes_cast` only when some were issued and all were cast. By user id.
 */
export const userReportRows = (
  members: ReadonlyArray<ReportMember>,
  activity: ReadonlyArray<PersonActivity>,
  users: ReadonlyMap<Id, ReportPerson>,
  delegateOnly: boolean
): ReadonlyArray<UserReportRow> => {
  const delegates = new Set(members.filter((m) => m.delegate).map((m) => m.user_id))
  const done = new Map(activity.map((a) => [a.user_id, a]))
  const ids = delegateOnly ? [...delegates] : [...new Set([...members.map((m) => m.user_id), ...activity.map((a) => a.user_id)])]
  return ids
    .filter((id) => users.has(id))
    .sort((a, b) => a - b)
    .map((id) => {
      const u = users.get(id)!
      const a = done.get(id) ?? { user_id: id, ...NONE }
      return {
        id,
        name: displayName(u),
        country: u.country,
        delegate: delegates.has(id),
        threads: a.threads,
        comments: a.comments,
        polls: a.polls,
        votes: a.votes_cast,
        outcomes: a.outcomes,
        reactions: a.reactions,
        votes_issued: a.votes_issued,
        votes_cast: a.votes_cast,
        votes_missed: a.votes_issued - a.votes_cast,
        all_votes_cast: a.votes_issued > 0 && a.votes_issued === a.votes_cast
      }
    })
}

/** People and activity per country, most people first (then by name; unknown country last). */
export const countryReportRows = (rows: ReadonlyArray<UserReportRow>): ReadonlyArray<CountryReportRow> => {
  const by = new Map<string | null, { -readonly [K in keyof CountryReportRow]: CountryReportRow[K] }>()
  for (const r of rows) {
    let c = by.get(r.country)
    if (c === undefined) {
      c = { country: r.country, users: 0, threads: 0, comments: 0, polls: 0, votes: 0, outcomes: 0, reactions: 0 }
      by.set(r.country, c)
    }
    c.users++
    c.threads += r.threads
    c.comments += r.comments
    c.polls += r.polls
    c.votes += r.votes
    c.outcomes += r.outcomes
    c.reactions += r.reactions
  }
  return [...by.values()].sort((a, b) =>
    (a.country === null ? 1 : 0) - (b.country === null ? 1 : 0) || b.users - a.users || String(a.country).localeCompare(String(b.country)))
}
