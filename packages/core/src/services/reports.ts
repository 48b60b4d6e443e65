/**
 * The participation report (Loomio's ParticipationReportService, as `GET /api/b2/reports` serves it):
 * which groups, then the section. `my` is the caller's groups and their subgroups the caller can see;
 * `custom` keeps only the listed groups the caller is a member of (others are ignored, as Loomio).
 * Instance administrators get nothing more (`current_user_is_admin` is always false here).
 */
import { Clock, Effect } from "effect"
import type { Group, Id } from "../domain/records.js"
import type { CountryReportRow, ReportInterval, ReportSection, ReportTotals, TagCount, UserReportRow } from "../domain/reports.js"
import { badRequest, type BadRequest } from "../errors.js"
import { Store } from "../ports/store.js"
import { type Access, isMember } from "../rules/access.js"
import { canShowGroup } from "../rules/groups.js"
import {
  countryReportRows,
  intervalStarts,
  isParamError,
  perInterval,
  type ReportParams,
  readReportParams,
  userReportRows
} from "../rules/reports.js"
import { candidateGroups } from "./threads/kernel.js"

/** What every section carries (Loomio's report meta). */
export interface ReportMeta {
  readonly section: ReportSection
  readonly start_month: string
  readonly end_month: string
  readonly group_scope: "custom" | "my"
  /** the groups reported on */
  readonly group_ids: ReadonlyArray<Id>
  /** the groups the caller may report on */
  readonly all_groups: ReadonlyArray<{ readonly id: Id; readonly name: string }>
  readonly first_year: number
  readonly current_user_is_admin: false
}

export interface UsersReport extends ReportMeta {
  readonly users: ReadonlyArray<UserReportRow>
}

export interface CountriesReport extends ReportMeta {
  readonly countries: ReadonlyArray<CountryReportRow>
  readonly total_users: number
}

export interface BaseReport extends ReportMeta, ReportTotals {
  readonly interval: ReportInterval
  /** the start (YYYY-MM-DD) of every interval of the window */
  readonly intervals: ReadonlyArray<string>
  /** counts per interval start, every interval present */
  readonly topics_per_interval: Readonly<Record<string, number>>
  readonly discussions_per_interval: Readonly<Record<string, number>>
  readonly comments_per_interval: Readonly<Record<string, number>>
  readonly polls_per_interval: Readonly<Record<string, number>>
  readonly stances_per_interval: Readonly<Record<string, number>>
  readonly outcomes_per_interval: Readonly<Record<string, number>>
  readonly reactions_per_interval: Readonly<Record<string, number>>
  readonly tags: ReadonlyArray<TagCount>
}

export type ParticipationReport = UsersReport | CountriesReport | BaseReport

/** The groups the caller may report on: their groups and the subgroups of those they can see. */
const reportableGroups = (access: Access): Effect.Effect<ReadonlyArray<Group>, never, Store> =>
  Effect.map(candidateGroups(access), (groups) => groups.filter((g) => canShowGroup(access, g)).sort((a, b) => a.id - b.id))

/** GET /reports. A parameter that cannot be read → 400 naming it. */
export const participationReport = Effect.fnUntraced(function*(access: Access, params: ReportParams): Effect.fn.Return<ParticipationReport, BadRequest, Store> {
  const store = yield* Store
  const now = new Date(yield* Clock.currentTimeMillis)
  const req = readReportParams(params, now)
  if (isParamError(req)) return yield* badRequest(req.message)
  const choosable = yield* reportableGroups(access)
  const groupIds = req.group_scope === "my"
    ? choosable.map((g) => g.id)
    : req.group_ids.filter((id) => isMember(access, id))
  const meta: ReportMeta = {
    section: req.section,
    start_month: req.window.start_month,
    end_month: req.window.end_month,
    group_scope: req.group_scope,
    group_ids: groupIds,
    all_groups: choosable.map((g) => ({ id: g.id, name: g.name })),
    first_year: Math.min(now.getUTCFullYear(), ...choosable.map((g) => Number(g.created_at.slice(0, 4)))),
    current_user_is_admin: false
  }

  if (req.section === "base") {
    const intervals = intervalStarts(req.window, req.interval)
    const counts = perInterval(intervals, req.interval, yield* store.reports.activityByDay(groupIds, req.window))
    return {
      ...meta,
      ...(yield* store.reports.totals(groupIds, req.window)),
      interval: req.interval,
      intervals,
      topics_per_interval: counts.topics,
      discussions_per_interval: counts.discussions,
      comments_per_interval: counts.comments,
      polls_per_interval: counts.polls,
      stances_per_interval: counts.stances,
      outcomes_per_interval: counts.outcomes,
      reactions_per_interval: counts.reactions,
      tags: yield* store.reports.tags(groupIds, req.window)
    }
  }

  const members = yield* store.reports.members(groupIds)
  const activity = yield* store.reports.activityByPerson(groupIds, req.window)
  const delegateOnly = req.section === "users" && req.member_type === "delegate"
  const ids = delegateOnly
    ? members.filter((m) => m.delegate).map((m) => m.user_id)
    : [...new Set([...members.map((m) => m.user_id), ...activity.map((a) => a.user_id)])]
  const users = new Map((yield* store.reports.people(ids)).map((u) => [u.id, u]))
  const rows = userReportRows(members, activity, users, delegateOnly)
  if (req.section === "users") return { ...meta, users: rows }
  return { ...meta, countries: countryReportRows(rows), total_users: rows.length }
})
