import type { Effect } from "effect"
import type { Id } from "../domain/records.js"
import type { DayCount, PersonActivity, ReportMember, ReportPerson, ReportTotals, ReportWindow, TagCount } from "../domain/reports.js"

/** Aggregates over the kept threads of `groupIds`, counting records created within the window. */
export interface ReportsRepo {
  /** Current (un-revoked) members of the groups, one row per person. */
  readonly members: (groupIds: ReadonlyArray<Id>) => Effect.Effect<ReadonlyArray<ReportMember>>
  /** Names and countries of these people (only what a row shows: cheaper than whole user records for thousands). */
  readonly people: (ids: ReadonlyArray<Id>) => Effect.Effect<ReadonlyArray<ReportPerson>>
  /** Per person: what they authored, reacted and voted (anonymous polls left out of the votes). */
  readonly activityByPerson: (groupIds: ReadonlyArray<Id>, window: ReportWindow) => Effect.Effect<ReadonlyArray<PersonActivity>>
  /** Per kind and UTC day: how many records were created. */
  readonly activityByDay: (groupIds: ReadonlyArray<Id>, window: ReportWindow) => Effect.Effect<ReadonlyArray<DayCount>>
  readonly totals: (groupIds: ReadonlyArray<Id>, window: ReportWindow) => Effect.Effect<ReportTotals>
  /** Tags of the threads started in the window, most used first. */
  readonly tags: (groupIds: ReadonlyArray<Id>, window: ReportWindow) => Effect.Effect<ReadonlyArray<TagCount>>
}
