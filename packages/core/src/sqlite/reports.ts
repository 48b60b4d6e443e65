import type { Id } from "../domain/records.js"
import type { BaseKind, DayCount, PersonActivity, ReportMember, ReportPerson, ReportTotals, ReportWindow, TagCount } from "../domain/reports.js"
import type { ReportsRepo } from "../ports/reports.js"
import type { Stmt } from "./db.js"
import type { Offloader } from "./offload.js"
import { bool } from "./rows.js"

/** Kept threads of the selected groups (`@groups`, a JSON array). */
const IN_GROUPS = "t.group_id IN (SELECT value FROM json_each(@groups)) AND t.discarded_at IS NULL"
const within = (col: string) => `${col} >= @start AND ${col} < @end`

/** Each kind of record: who did it, when, and the joins that reach its thread. */
const SOURCES = {
  threads: { who: "d.author_id", at: "d.created_at", from: "discussions d JOIN topics t ON t.id = d.topic_id", kept: "d.discarded_at IS NULL" },
  comments: {
    who: "c.author_id",
    at: "c.created_at",
    from: "comments c JOIN discussions d ON d.id = c.discussion_id JOIN topics t ON t.id = d.topic_id",
    kept: "c.discarded_at IS NULL AND d.discarded_at IS NULL"
  },
  polls: { who: "p.author_id", at: "p.created_at", from: "polls p JOIN topics t ON t.id = p.topic_id", kept: "p.discarded_at IS NULL" },
  outcomes: {
    who: "o.author_id",
    at: "o.created_at",
    from: "outcomes o JOIN polls p ON p.id = o.poll_id JOIN topics t ON t.id = p.topic_id",
    kept: "p.discarded_at IS NULL"
  },
  reactions: { who: "r.user_id", at: "r.created_at", from: "reactions r JOIN topics t ON t.id = r.topic_id", kept: "1" }
} as const

/** Latest, un-revoked ballots of kept polls (a re-vote is a new ballot, counted when it was made). */
const BALLOTS = `stances s JOIN polls p ON p.id = s.poll_id JOIN topics t ON t.id = p.topic_id
  WHERE s.latest = 1 AND s.revoked_at IS NULL AND p.discarded_at IS NULL AND ${IN_GROUPS} AND ${within("s.created_at")}`

const byPersonSql = (kind: keyof typeof SOURCES) => {
  const src = SOURCES[kind]
  return `SELECT ${src.who} AS user_id, count(*) AS n FROM ${src.from}
    WHERE ${src.kept} AND ${IN_GROUPS} AND ${within(src.at)} GROUP BY ${src.who}`
}

const byDaySql = (kind: BaseKind) => {
  if (kind === "stances") {
    return `SELECT substr(s.created_at, 1, 10) AS day, count(*) AS n FROM ${BALLOTS} AND s.cast_at IS NOT NULL GROUP BY day`
  }
  if (kind === "topics") {
    return `SELECT substr(t.created_at, 1, 10) AS day, count(*) AS n FROM topics t WHERE ${IN_GROUPS} AND ${within("t.created_at")} GROUP BY day`
  }
  const src = SOURCES[kind === "discussions" ? "threads" : kind]
  return `SELECT substr(${src.at}, 1, 10) AS day, count(*) AS n FROM ${src.from}
    WHERE ${src.kept} AND ${IN_GROUPS} AND ${within(src.at)} GROUP BY day`
}

const KINDS: ReadonlyArray<BaseKind> = ["topics", "discussions", "comments", "polls", "stances", "outcomes", "reactions"]

const args = (groupIds: ReadonlyArray<Id>, w?: ReportWindow) => ({
  groups: JSON.stringify(groupIds),
  ...(w === undefined ? {} : { start: w.start, end: w.end })
})

/**
 * The report queries as plain functions of a statement cache: they may run off the event loop on a reader
 * thread (sqlite/offload.ts), which imports this same table.
 */
export const REPORT_QUERIES = {
  members: (s: Stmt, groupIds: ReadonlyArray<Id>) =>
    (s(`SELECT user_id, max(delegate) AS delegate FROM memberships
        WHERE group_id IN (SELECT value FROM json_each(@groups)) AND revoked_at IS NULL GROUP BY user_id`)
      .all(args(groupIds)) as Array<{ user_id: Id; delegate: number }>)
      .map((r): ReportMember => ({ user_id: r.user_id, delegate: bool(r.delegate) })),
  people: (s: Stmt, ids: ReadonlyArray<Id>) =>
    s(`SELECT id, name, username, country FROM users WHERE id IN (SELECT value FROM json_each(?))`).all(JSON.stringify(ids)) as Array<ReportPerson>,
  activityByPerson: (s: Stmt, groupIds: ReadonlyArray<Id>, w: ReportWindow) => {
    const people = new Map<Id, { -readonly [K in keyof PersonActivity]: PersonActivity[K] }>()
    const person = (id: Id) => {
      let p = people.get(id)
      if (p === undefined) {
        p = { user_id: id, threads: 0, comments: 0, polls: 0, outcomes: 0, reactions: 0, votes_issued: 0, votes_cast: 0 }
        people.set(id, p)
      }
      return p
    }
    const a = args(groupIds, w)
    for (const kind of Object.keys(SOURCES) as Array<keyof typeof SOURCES>) {
      for (const r of s(byPersonSql(kind)).all(a) as Array<{ user_id: Id; n: number }>) person(r.user_id)[kind] = r.n
    }
    // identified ballots only: anonymous polls are left out of every per-person vote count
    const votes = s(`SELECT s.participant_id AS user_id, count(*) AS issued, count(s.cast_at) AS cast
      FROM ${BALLOTS} AND p.anonymous = 0 GROUP BY s.participant_id`).all(a) as Array<{ user_id: Id; issued: number; cast: number }>
    for (const r of votes) {
      const p = person(r.user_id)
      p.votes_issued = r.issued
      p.votes_cast = r.cast
    }
    return [...people.values()]
  },
  activityByDay: (s: Stmt, groupIds: ReadonlyArray<Id>, w: ReportWindow) => {
    const a = args(groupIds, w)
    const out: Array<DayCount> = []
    for (const kind of KINDS) {
      for (const r of s(byDaySql(kind)).all(a) as Array<{ day: string; n: number }>) out.push({ kind, day: r.day, n: r.n })
    }
    return out
  },
  totals: (s: Stmt, groupIds: ReadonlyArray<Id>, w: ReportWindow) =>
    s(`SELECT
         (SELECT count(*) FROM topics t WHERE ${IN_GROUPS} AND ${within("t.created_at")}) AS topics_count,
         (SELECT count(*) FROM topics t WHERE ${IN_GROUPS} AND ${within("t.created_at")} AND t.topicable_type = 'Discussion') AS discussion_topics_count,
         (SELECT count(*) FROM topics t WHERE ${IN_GROUPS} AND ${within("t.created_at")} AND t.topicable_type = 'Poll') AS poll_topics_count,
         (SELECT count(*) FROM polls p JOIN topics t ON t.id = p.topic_id
           WHERE p.discarded_at IS NULL AND ${IN_GROUPS} AND ${within("p.created_at")}) AS polls_count,
         (SELECT count(*) FROM polls p JOIN topics t ON t.id = p.topic_id
           WHERE p.discarded_at IS NULL AND ${IN_GROUPS} AND ${within("p.created_at")}
             AND EXISTS (SELECT 1 FROM outcomes o WHERE o.poll_id = p.id)) AS polls_with_outcomes_count`)
      .get(args(groupIds, w)) as ReportTotals,
  tags: (s: Stmt, groupIds: ReadonlyArray<Id>, w: ReportWindow) =>
    s(`SELECT j.value AS name, count(*) AS count FROM topics t, json_each(t.tags) j
       WHERE ${IN_GROUPS} AND ${within("t.created_at")} GROUP BY j.value ORDER BY count DESC, name`)
      .all(args(groupIds, w)) as Array<TagCount>
}

/** Reports read many rows: each runs on a reader thread, never holding the event loop. */
export const makeReportsRepo = (offloader: Offloader): ReportsRepo => offloader.repo("reports", REPORT_QUERIES)
