import type { Id } from "../domain/records.js"
import type { DayCount, ReportMember, ReportPerson, ReportTotals, ReportWindow, TagCount } from "../domain/reports.js"
import type { ReportsRepo } from "../ports/reports.js"
import { ACTIVITY_SOURCES, DAY_KINDS, personActivity, reportSql } from "../sql/reports.js"
import { bool } from "../sql/rows.js"
import type { Stmt } from "./db.js"
import type { Offloader } from "./offload.js"
import { SQLITE_IDS } from "./dialect.js"

const SQL = reportSql(SQLITE_IDS, "json_each(t.tags) j", (at) => `substr(${at}, 1, 10)`)

/**
 * The report queries as plain functions of a statement cache: they may run off the event loop on a reader
 * thread (sqlite/offload.ts), which imports this same table.
 */
export const REPORT_QUERIES = {
  members: (s: Stmt, groupIds: ReadonlyArray<Id>) =>
    (s(SQL.members).all(SQL.args(groupIds)) as Array<{ user_id: Id; delegate: number }>)
      .map((r): ReportMember => ({ user_id: r.user_id, delegate: bool(r.delegate) })),
  people: (s: Stmt, ids: ReadonlyArray<Id>) => s(SQL.people).all({ ids: SQLITE_IDS.bind(ids) }) as Array<ReportPerson>,
  activityByPerson: (s: Stmt, groupIds: ReadonlyArray<Id>, w: ReportWindow) => {
    const a = SQL.args(groupIds, w)
    return personActivity(
      ACTIVITY_SOURCES.map((kind) => [kind, s(SQL.byPerson(kind)).all(a) as Array<{ user_id: Id; n: number }>] as const),
      s(SQL.votes).all(a) as Array<{ user_id: Id; issued: number; cast: number }>
    )
  },
  activityByDay: (s: Stmt, groupIds: ReadonlyArray<Id>, w: ReportWindow) => {
    const a = SQL.args(groupIds, w)
    const out: Array<DayCount> = []
    for (const kind of DAY_KINDS) {
      for (const r of s(SQL.byDay(kind)).all(a) as Array<{ day: string; n: number }>) out.push({ kind, day: r.day, n: r.n })
    }
    return out
  },
  totals: (s: Stmt, groupIds: ReadonlyArray<Id>, w: ReportWindow) => s(SQL.totals).get(SQL.args(groupIds, w)) as ReportTotals,
  tags: (s: Stmt, groupIds: ReadonlyArray<Id>, w: ReportWindow) => s(SQL.tags).all(SQL.args(groupIds, w)) as Array<TagCount>
}

/** Reports read many rows: each runs on a reader thread, never holding the event loop. */
export const makeReportsRepo = (offloader: Offloader): ReportsRepo => offloader.repo("reports", REPORT_QUERIES)
