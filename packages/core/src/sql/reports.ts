/** The report queries' SQL, the same on both stores but for how an id list and a thread's tags are read. */
import type { Id } from "../domain/records.js"
import type { BaseKind, PersonActivity, ReportWindow } from "../domain/reports.js"
import type { IdList } from "./scope.js"

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
  reactions: { who: "r.user_id", at: "r.created_at", from: "reactions r JOIN topics t ON t.id = r.topic_id", kept: "1 = 1" }
} as const
export type ActivitySource = keyof typeof SOURCES
export const ACTIVITY_SOURCES = Object.keys(SOURCES) as ReadonlyArray<ActivitySource>
export const DAY_KINDS: ReadonlyArray<BaseKind> = ["topics", "discussions", "comments", "polls", "stances", "outcomes", "reactions"]

/**
 * `ids` reads an id list; `tagsOf` is the FROM item that gives a thread's tags one row each, as `j.value`; `day`
 * is an instant's UTC day as YYYY-MM-DD.
 */
export const reportSql = (ids: IdList, tagsOf: string, day: (instant: string) => string) => {
  /** Kept threads of the selected groups (`@groups`). */
  const IN_GROUPS = `${ids.has("t.group_id", "groups")} AND t.discarded_at IS NULL`
  const within = (col: string) => `${col} >= @start AND ${col} < @end`
  /** Latest, un-revoked ballots of kept polls (a re-vote is a new ballot, counted when it was made). */
  const BALLOTS = `stances s JOIN polls p ON p.id = s.poll_id JOIN topics t ON t.id = p.topic_id
  WHERE s.latest = TRUE AND s.revoked_at IS NULL AND p.discarded_at IS NULL AND ${IN_GROUPS} AND ${within("s.created_at")}`
  const byDay = (kind: BaseKind) => {
    if (kind === "stances") return `SELECT ${day("s.created_at")} AS day, count(*) AS n FROM ${BALLOTS} AND s.cast_at IS NOT NULL GROUP BY day`
    if (kind === "topics") {
      return `SELECT ${day("t.created_at")} AS day, count(*) AS n FROM topics t WHERE ${IN_GROUPS} AND ${within("t.created_at")} GROUP BY day`
    }
    const src = SOURCES[kind === "discussions" ? "threads" : kind]
    return `SELECT ${day(src.at)} AS day, count(*) AS n FROM ${src.from}
    WHERE ${src.kept} AND ${IN_GROUPS} AND ${within(src.at)} GROUP BY day`
  }
  return {
    args: (groupIds: ReadonlyArray<Id>, w?: ReportWindow) => ({ groups: ids.bind(groupIds), ...(w === undefined ? {} : { start: w.start, end: w.end }) }),
    members: `SELECT user_id, max(CASE WHEN delegate THEN 1 ELSE 0 END) AS delegate FROM memberships
        WHERE ${ids.has("group_id", "groups")} AND revoked_at IS NULL GROUP BY user_id`,
    people: `SELECT id, name, username, country FROM users WHERE ${ids.has("id", "ids")}`,
    byPerson: (kind: ActivitySource) => {
      const src = SOURCES[kind]
      return `SELECT ${src.who} AS user_id, count(*) AS n FROM ${src.from}
    WHERE ${src.kept} AND ${IN_GROUPS} AND ${within(src.at)} GROUP BY ${src.who}`
    },
    // identified ballots only: anonymous polls are left out of every per-person vote count
    votes: `SELECT s.participant_id AS user_id, count(*) AS issued, count(s.cast_at) AS cast
      FROM ${BALLOTS} AND p.anonymous = FALSE GROUP BY s.participant_id`,
    byDay,
    totals: `SELECT
         (SELECT count(*) FROM topics t WHERE ${IN_GROUPS} AND ${within("t.created_at")}) AS topics_count,
         (SELECT count(*) FROM topics t WHERE ${IN_GROUPS} AND ${within("t.created_at")} AND t.topicable_type = 'Discussion') AS discussion_topics_count,
         (SELECT count(*) FROM topics t WHERE ${IN_GROUPS} AND ${within("t.created_at")} AND t.topicable_type = 'Poll') AS poll_topics_count,
         (SELECT count(*) FROM polls p JOIN topics t ON t.id = p.topic_id
           WHERE p.discarded_at IS NULL AND ${IN_GROUPS} AND ${within("p.created_at")}) AS polls_count,
         (SELECT count(*) FROM polls p JOIN topics t ON t.id = p.topic_id
           WHERE p.discarded_at IS NULL AND ${IN_GROUPS} AND ${within("p.created_at")}
             AND EXISTS (SELECT 1 FROM outcomes o WHERE o.poll_id = p.id)) AS polls_with_outcomes_count`,
    tags: `SELECT j.value AS name, count(*) AS count FROM topics t, ${tagsOf}
       WHERE ${IN_GROUPS} AND ${within("t.created_at")} GROUP BY j.value ORDER BY count DESC, name`
  }
}

/** Per person, from each source's counts and the ballots' (people in the order they are first met). */
export const personActivity = (
  bySource: ReadonlyArray<readonly [ActivitySource, ReadonlyArray<{ user_id: Id; n: number }>]>,
  votes: ReadonlyArray<{ user_id: Id; issued: number; cast: number }>
): Array<PersonActivity> => {
  const people = new Map<Id, { -readonly [K in keyof PersonActivity]: PersonActivity[K] }>()
  const person = (id: Id) => {
    let p = people.get(id)
    if (p === undefined) {
      p = { user_id: id, threads: 0, comments: 0, polls: 0, outcomes: 0, reactions: 0, votes_issued: 0, votes_cast: 0 }
      people.set(id, p)
    }
    return p
  }
  for (const [kind, rows] of bySource) for (const r of rows) person(r.user_id)[kind] = r.n
  for (const r of votes) {
    const p = person(r.user_id)
    p.votes_issued = r.issued
    p.votes_cast = r.cast
  }
  return [...people.values()]
}
