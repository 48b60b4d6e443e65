import t from "tap"
import { aUser } from "./fixtures.js"
import { type PersonActivity, Rules, type User } from "@convene/core"
import { matchExact } from "../../../test/match.js"

const now = new Date("2026-03-15T12:00:00Z")
const user = (id: number, name: string | null, country: string | null = null): User => aUser({ id, name, email: null, country })
const act = (user_id: number, over: Partial<PersonActivity> = {}): PersonActivity => ({
  user_id, threads: 0, comments: 0, polls: 0, outcomes: 0, reactions: 0, votes_issued: 0, votes_cast: 0, ...over
})

t.test("parameters: defaults, group_scope, and every bad value names its parameter", async (t) => {
  const d = Rules.readReportParams({}, now)
  matchExact(t, d, {
    section: "base", group_scope: "my", interval: "month", member_type: null, group_ids: [],
    window: { start_month: "2025-03", end_month: "2026-03", start: "2025-03-01T00:00:00.000Z", end: "2026-04-01T00:00:00.000Z" }
  }, "default window: 12 months ago to the current month")
  matchExact(t, Rules.readReportParams({ group_ids: "3, 1,3" }, now), { group_scope: "custom", group_ids: [3, 1] })
  t.match(Rules.readReportParams({ group_scope: "all" }, now), { group_scope: "my" }, "all is read as my")
  t.match(Rules.readReportParams({ start_month: "2025-12", end_month: "2025-12" }, now),
    { window: { start: "2025-12-01T00:00:00.000Z", end: "2026-01-01T00:00:00.000Z" } }, "December ends at the new year")
  const bad: Array<[Rules.ReportParams, string]> = [
    [{ section: "all" }, "section"], [{ interval: "hour" }, "interval"], [{ member_type: "admin" }, "member_type"],
    [{ group_scope: "mine" }, "group_scope"], [{ group_ids: "1,two" }, "group_ids"], [{ group_ids: "-1" }, "group_ids"],
    [{ start_month: "2025-1" }, "start_month"], [{ start_month: "2025-00" }, "start_month"], [{ end_month: "2025/01" }, "end_month"],
    [{ start_month: "2026-02", end_month: "2026-01" }, "start_month"]
  ]
  for (const [p, param] of bad) {
    const r = Rules.readReportParams(p, now)
    t.ok(Rules.isParamError(r), JSON.stringify(p))
    if (Rules.isParamError(r)) {
      t.equal(r.param, param)
      t.match(r.message, param)
    }
  }
})

t.test("intervals", async (t) => {
  const w = (start_month: string, end_month: string) => Rules.readReportParams({ start_month, end_month }, now) as Rules.ReportRequest
  t.same(Rules.intervalStarts(w("2026-01", "2026-03").window, "month"), ["2026-01-01", "2026-02-01", "2026-03-01"])
  t.same(Rules.intervalStarts(w("2024-02", "2024-02").window, "day").length, 29, "a leap February")
  t.same(Rules.intervalStarts(w("2026-03", "2026-03").window, "week"), ["2026-02-23", "2026-03-02", "2026-03-09", "2026-03-16", "2026-03-23", "2026-03-30"],
    "weeks start on the Monday on or before the first day")
  t.same(Rules.intervalStarts(w("2025-11", "2026-02").window, "year"), ["2025-01-01", "2026-01-01"])
  t.equal(Rules.intervalStart("2026-03-15T23:59:59.999Z", "week"), "2026-03-09")
  t.equal(Rules.intervalStart("2026-03-16", "week"), "2026-03-16")
  const per = Rules.perInterval(["2026-01-01", "2026-02-01"], "month", [
    { kind: "comments", day: "2026-01-05", n: 2 }, { kind: "comments", day: "2026-01-31", n: 1 },
    { kind: "comments", day: "2026-02-01", n: 4 }, { kind: "polls", day: "2025-12-31", n: 9 }
  ])
  t.same(per.comments, { "2026-01-01": 3, "2026-02-01": 4 })
  t.same(per.polls, { "2026-01-01": 0, "2026-02-01": 0 }, "outside the intervals: not counted; zeros kept")
})

t.test("user rows: members and active people; delegates even idle; votes issued, cast, missed", async (t) => {
  const users = new Map([user(1, "Ada", "NZ"), user(2, "Ben", "FR"), user(3, null, "NZ"), user(4, "Dee")].map((u) => [u.id, u]))
  const members = [{ user_id: 1, delegate: false }, { user_id: 3, delegate: true }, { user_id: 4, delegate: true }]
  const activity = [act(1, { votes_issued: 3, votes_cast: 3, comments: 2 }), act(2, { votes_issued: 2, votes_cast: 1, threads: 1 })]
  const rows = Rules.userReportRows(members, activity, users, false)
  t.same(rows.map((r) => r.id), [1, 2, 3, 4])
  t.same(rows[0], {
    id: 1, name: "Ada", country: "NZ", delegate: false, threads: 0, comments: 2, polls: 0, votes: 3, outcomes: 0, reactions: 0,
    votes_issued: 3, votes_cast: 3, votes_missed: 0, all_votes_cast: true
  })
  t.match(rows[1], { votes: 1, votes_missed: 1, all_votes_cast: false, delegate: false }, "active without membership")
  t.match(rows[2], { name: "Anonymous", delegate: true, votes_issued: 0, all_votes_cast: false }, "nothing issued: not all cast")
  const delegates = Rules.userReportRows(members, activity, users, true)
  t.same(delegates.map((r) => r.id), [3, 4], "only delegates, with zero counts")
  const countries = Rules.countryReportRows(rows)
  t.same(countries.map((c) => [c.country, c.users, c.comments, c.votes, c.threads]), [["NZ", 2, 2, 3, 0], ["FR", 1, 0, 1, 1], [null, 1, 0, 0, 0]])
})
