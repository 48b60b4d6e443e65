import t from "tap"
import { seedUser, startTestServer, future } from "./helpers.js"

const thisMonth = new Date().toISOString().slice(0, 7)

/**
 * A seeded history whose numbers are counted by hand below. Group G (Ada administers it):
 *
 *   threads    Ann D1, Ada D2                      (Olga's D3 is in group H, where Ada is not a member)
 *   comments   Ann 2 on D1, Ben 1 on D1, Gus 1 on D1 (Gus is a guest of D1, not a member)
 *   reactions  Ben 1 (on Ann's comment), Ann 1 (on D2)
 *   polls (all by Ada):
 *     P1 proposal, voters Ada, Ann, Ben      cast: Ann, Ben
 *     P2 poll,     voters Ann, Ben           cast: Ann
 *     P3 proposal, ANONYMOUS, voters Ann, Ben cast: Ann, Ben   → in no per-person count
 *     P4 count in D1, voters Ada, Ann        cast: Ada, Ann (Ann votes again: still one latest ballot)
 *     P5 poll, every member (Ada, Ann, Ben)  cast: Ann; closed before Del joins
 *   outcomes   Ada 1 (on P1, after closing it)
 *   Del joins last as a delegate: no activity at all.
 *
 *   person  threads comments polls votes outcomes reactions issued cast missed all_cast
 *   Ada        1       0      5     1      1        0        3      1     2     false   (P1, P4, P5)
 *   Ann        1       2      0     4      0        1        4      4     0     true    (P1, P2, P4, P5)
 *   Ben        0       1      0     1      0        1        3      1     2     false   (P1, P2, P5)
 *   Del        0       0      0     0      0        0        0      0     0     false   delegate
 *   Gus        0       1      0     0      0        0        0      0     0     false   (guest: activity only)
 */
t.test("GET /api/b2/reports", async (t) => {
  const s = await startTestServer()
  t.teardown(s.close)
  const mk = async (name: string, country: string | null, extra: { is_admin?: boolean } = {}) =>
    s.convene.users.create({ email: `${name.toLowerCase()}@example.org`, name, country, ...extra })
  const ada = await mk("Ada", "New Zealand")
  const ann = await mk("Ann", "New Zealand")
  const ben = await mk("Ben", "France")
  const del = await mk("Del", "Germany")
  const olga = await mk("Olga", "France")
  const ivan = await mk("Ivan", null, { is_admin: true })
  const gus = await mk("Gus", null)
  const G = (await s.convene.groups.create({ name: "G", owner: ada.user })).group
  const H = (await s.convene.groups.create({ name: "H", owner: olga.user })).group
  await s.convene.members.add({ group: G, user: ann.user })
  await s.convene.members.add({ group: G, user: ben.user })
  const A = s.as(ada.apiKey), N = s.as(ann.apiKey), B = s.as(ben.apiKey)
  const ok = async (p: Promise<any>) => {
    const r = await p
    if (r.statusCode !== 200) throw new Error(`${r.statusCode} ${JSON.stringify(r.body)}`)
    return r.body as any
  }

  const d1 = (await ok(N.post("api/b2/discussions", { json: { group_id: G.id, title: "D1", recipient_user_ids: [gus.user.id] } }))).discussions[0]
  const d2 = (await ok(A.post("api/b2/discussions", { json: { group_id: G.id, title: "D2" } }))).discussions[0]
  await ok(s.as(olga.apiKey).post("api/b2/discussions", { json: { group_id: H.id, title: "D3" } }))
  const c1 = (await ok(N.post("api/b2/comments", { json: { discussion_id: d1.id, body: "one" } }))).comments[0]
  await ok(N.post("api/b2/comments", { json: { discussion_id: d1.id, body: "two" } }))
  await ok(B.post("api/b2/comments", { json: { discussion_id: d1.id, body: "three" } }))
  await ok(s.as(gus.apiKey).post("api/b2/comments", { json: { discussion_id: d1.id, body: "a guest's word" } }))
  await ok(B.post("api/b2/reactions", { json: { reactable_type: "Comment", reactable_id: c1.id, reaction: "👍" } }))
  await ok(N.post("api/b2/reactions", { json: { reactable_type: "Discussion", reactable_id: d2.id, reaction: "🎉" } }))

  const poll = async (json: any) => (await ok(A.post("api/b2/polls", { json: { group_id: G.id, closing_at: future(), ...json } }))).polls[0]
  const vote = (who: any, poll_id: number, option_scores: any) => ok(who.post("api/b2/stances", { json: { poll_id, option_scores } }))
  const p1 = await poll({ title: "P1", poll_type: "proposal", specified_voters_only: true, recipient_user_ids: [ada.user.id, ann.user.id, ben.user.id] })
  const p2 = await poll({ title: "P2", poll_type: "poll", options: ["x", "y"], specified_voters_only: true, recipient_user_ids: [ann.user.id, ben.user.id] })
  const p3 = await poll({ title: "P3", poll_type: "proposal", anonymous: true, specified_voters_only: true, recipient_user_ids: [ann.user.id, ben.user.id] })
  const p4 = await poll({ title: "P4", poll_type: "count", discussion_id: d1.id, specified_voters_only: true, recipient_user_ids: [ada.user.id, ann.user.id] })
  const p5 = await poll({ title: "P5", poll_type: "poll", options: ["x", "y"] })
  t.equal(p5.voters_count, 3, "P5 issues a ballot to every member")
  await vote(N, p1.id, { agree: 1 })
  await vote(B, p1.id, { disagree: 1 })
  await vote(N, p2.id, { x: 1 })
  await vote(N, p3.id, { agree: 1 })
  await vote(B, p3.id, { agree: 1 })
  await vote(A, p4.id, { accept: 1 })
  await vote(N, p4.id, { accept: 1 })
  // Ann's second vote in P4 is a new ballot replacing the first (changed more than 15 minutes later in Loomio terms)
  await vote(N, p4.id, { decline: 1 })
  await vote(N, p5.id, { y: 1 })
  await ok(A.post(`api/b2/polls/${p5.id}/close`))
  await ok(A.post(`api/b2/polls/${p1.id}/close`))
  await ok(A.post("api/b2/outcomes", { json: { poll_id: p1.id, statement: "Agreed" } }))
  await s.convene.members.add({ group: G, user: del.user, delegate: true })

  const report = (who: any, q: string) => who.get(`api/b2/reports?${q}`)
  const rows = (body: any) => Object.fromEntries(body.users.map((u: any) => [u.name, u]))
  const expected = {
    Ada: { threads: 1, comments: 0, polls: 5, votes: 1, outcomes: 1, reactions: 0, votes_issued: 3, votes_cast: 1, votes_missed: 2, all_votes_cast: false, delegate: false },
    Ann: { threads: 1, comments: 2, polls: 0, votes: 4, outcomes: 0, reactions: 1, votes_issued: 4, votes_cast: 4, votes_missed: 0, all_votes_cast: true, delegate: false },
    Ben: { threads: 0, comments: 1, polls: 0, votes: 1, outcomes: 0, reactions: 1, votes_issued: 3, votes_cast: 1, votes_missed: 2, all_votes_cast: false, delegate: false },
    Del: { threads: 0, comments: 0, polls: 0, votes: 0, outcomes: 0, reactions: 0, votes_issued: 0, votes_cast: 0, votes_missed: 0, all_votes_cast: false, delegate: true },
    Gus: { threads: 0, comments: 1, polls: 0, votes: 0, outcomes: 0, reactions: 0, votes_issued: 0, votes_cast: 0, votes_missed: 0, all_votes_cast: false, delegate: false }
  }

  t.test("users: every member and everyone with activity, counted by hand", async (t) => {
    const res = await report(A, `section=users&group_scope=custom&group_ids=${G.id},${H.id}`)
    t.equal(res.statusCode, 200)
    const body = res.body as any
    t.notOk("meta" in body, "a plain JSON object, no envelope")
    t.same(body.group_ids, [G.id], "a group the caller is not a member of is ignored")
    t.equal(body.current_user_is_admin, false)
    const r = rows(body)
    for (const [name, want] of Object.entries(expected)) t.match(r[name], want, name)
    t.same(Object.keys(r).sort(), ["Ada", "Ann", "Ben", "Del", "Gus"], "members plus the guest who commented; nobody from H")
    t.same(body.users.map((u: any) => u.id), [ada, ann, ben, del, gus].map((x) => x.user.id), "by user id")
    t.same(Object.keys(r.Ada).sort(), [
      "all_votes_cast", "comments", "country", "delegate", "id", "name", "outcomes", "polls", "reactions", "threads", "votes", "votes_cast",
      "votes_issued", "votes_missed"
    ], "exactly the spec's row fields")
    t.equal(r.Ada.country, "New Zealand")
    t.same((await s.sql("SELECT count(*) AS n FROM stances WHERE poll_id = ? AND latest = TRUE AND cast_at IS NOT NULL", p3.id)), [{ n: 2 }],
      "the anonymous poll has cast ballots, left out above")
  })

  t.test("my (and legacy all) covers the caller's groups; the default section is base", async (t) => {
    const my = (await report(A, "section=users&group_scope=my")).body as any
    const all = (await report(A, "section=users&group_scope=all")).body as any
    t.same(my.group_ids, [G.id])
    t.same(all.users, my.users)
    t.same(all.group_scope, "my")
    t.same(my.all_groups, [{ id: G.id, name: "G" }])
    t.same(rows(my).Ann, rows((await report(A, `section=users&group_ids=${G.id}`)).body).Ann, "group_ids alone means custom")
    t.equal(((await report(A, "")).body as any).section, "base")
  })

  t.test("member_type=delegate: only current delegates, even with nothing done", async (t) => {
    const body = (await report(A, `section=users&group_scope=custom&group_ids=${G.id}&member_type=delegate`)).body as any
    t.same(body.users.map((u: any) => u.name), ["Del"])
    t.match(body.users[0], expected.Del)
  })

  t.test("groups the caller is not in are ignored; instance admins get nothing more", async (t) => {
    const olgaView = (await report(s.as(olga.apiKey), `section=users&group_scope=custom&group_ids=${G.id}`)).body as any
    t.same(olgaView.users, [])
    t.same(olgaView.group_ids, [])
    const ivanView = (await report(s.as(ivan.apiKey), `section=users&group_scope=custom&group_ids=${G.id}`)).body as any
    t.same(ivanView.users, [], "instance admin status widens nothing")
    t.equal(ivanView.current_user_is_admin, false)
    const olgaMine = (await report(s.as(olga.apiKey), "section=users")).body as any
    t.same(olgaMine.users.map((u: any) => u.name), ["Olga"], "Olga's own group H: her thread only")
    t.match(olgaMine.users[0], { threads: 1 })
  })

  t.test("countries: people and activity per country", async (t) => {
    const body = (await report(A, `section=countries&group_ids=${G.id}`)).body as any
    t.equal(body.total_users, 5)
    t.same(body.countries, [
      { country: "New Zealand", users: 2, threads: 2, comments: 2, polls: 5, votes: 5, outcomes: 1, reactions: 1 },
      { country: "France", users: 1, threads: 0, comments: 1, polls: 0, votes: 1, outcomes: 0, reactions: 1 },
      { country: "Germany", users: 1, threads: 0, comments: 0, polls: 0, votes: 0, outcomes: 0, reactions: 0 },
      { country: null, users: 1, threads: 0, comments: 1, polls: 0, votes: 0, outcomes: 0, reactions: 0 }
    ])
  })

  t.test("base: activity per interval and totals", async (t) => {
    const body = (await report(A, `section=base&group_ids=${G.id}&start_month=${thisMonth}&end_month=${thisMonth}`)).body as any
    const key = `${thisMonth}-01`
    t.same(body.intervals, [key], "one month, one interval")
    t.match(body, {
      interval: "month",
      // D1, D2 and the threads of the standalone polls P1, P2, P3, P5 (P4 is in D1)
      topics_count: 6, discussion_topics_count: 2, poll_topics_count: 4, polls_count: 5, polls_with_outcomes_count: 1
    })
    t.equal(body.topics_per_interval[key], 6)
    t.equal(body.discussions_per_interval[key], 2)
    t.equal(body.comments_per_interval[key], 4)
    t.equal(body.polls_per_interval[key], 5)
    // latest cast ballots, anonymous ones included in the group's totals: P1 2, P2 1, P3 2, P4 2, P5 1
    t.equal(body.stances_per_interval[key], 8)
    t.equal(body.outcomes_per_interval[key], 1)
    t.equal(body.reactions_per_interval[key], 2)
    const days = (await report(A, `section=base&group_ids=${G.id}&start_month=${thisMonth}&end_month=${thisMonth}&interval=day`)).body as any
    t.ok(days.intervals.length >= 28 && days.intervals.length <= 31, "every day of the month")
    t.equal(Object.values(days.comments_per_interval as Record<string, number>).reduce((a, b) => a + b, 0), 4)
    const weeks = (await report(A, `section=base&group_ids=${G.id}&interval=week&start_month=2024-01&end_month=2024-01`)).body as any
    t.same(weeks.intervals, ["2024-01-01", "2024-01-08", "2024-01-15", "2024-01-22", "2024-01-29"], "weeks start on Monday")
    const years = (await report(A, `section=base&group_ids=${G.id}&interval=year&start_month=2023-06&end_month=2024-02`)).body as any
    t.same(years.intervals, ["2023-01-01", "2024-01-01"])
    await s.sql("UPDATE topics SET tags = ? WHERE id = ?", JSON.stringify(["budget", "garden"]), d1.topic_id)
    await s.sql("UPDATE topics SET tags = ? WHERE id = ?", JSON.stringify(["budget"]), d2.topic_id)
    const tagged = (await report(A, `section=base&group_ids=${G.id}`)).body as any
    t.same(tagged.tags, [{ name: "budget", count: 2 }, { name: "garden", count: 1 }])
  })

  t.test("the month window: records are counted in the month they were made", async (t) => {
    // move one of Ann's comments, Ben's reaction and Ann's P1 vote to January 2020
    await s.sql("UPDATE comments SET created_at = '2020-01-15T10:00:00.000Z' WHERE id = ?", c1.id)
    await s.sql("UPDATE reactions SET created_at = '2020-01-20T10:00:00.000Z' WHERE user_id = ?", ben.user.id)
    await s.sql("UPDATE stances SET created_at = '2020-01-31T23:59:59.999Z' WHERE poll_id = ? AND participant_id = ? AND latest = TRUE", p1.id, ann.user.id)
    const now = rows((await report(A, `section=users&group_ids=${G.id}`)).body)
    t.match(now.Ann, { comments: 1, votes_issued: 3, votes_cast: 3, all_votes_cast: true })
    t.match(now.Ben, { reactions: 0 })
    const jan = (await report(A, `section=users&group_ids=${G.id}&start_month=2020-01&end_month=2020-01`)).body as any
    const r = rows(jan)
    t.match(r.Ann, { comments: 1, threads: 0, votes_issued: 1, votes_cast: 1, all_votes_cast: true })
    t.match(r.Ben, { reactions: 1, comments: 0, votes_issued: 0 })
    t.match(r.Ada, { threads: 0, polls: 0, votes_issued: 0, all_votes_cast: false }, "members without activity in the window still appear")
    t.same(Object.keys(r).sort(), ["Ada", "Ann", "Ben", "Del"], "Gus did nothing that month and is not a member")
    const feb = rows((await report(A, `section=users&group_ids=${G.id}&start_month=2020-02&end_month=2020-02`)).body)
    t.match(feb.Ann, { comments: 0, votes_issued: 0 }, "a vote in the last millisecond of January is not February's")

    // both edges to the millisecond: from the first instant of start_month, up to (not including) the month after end_month
    const annComments = async (at: string, window: string) => {
      await s.sql("UPDATE comments SET created_at = ? WHERE id = ?", at, c1.id)
      return rows((await report(A, `section=users&group_ids=${G.id}&${window}`)).body).Ann.comments as number
    }
    const JAN = "start_month=2020-01&end_month=2020-01"
    t.equal(await annComments("2019-12-31T23:59:59.999Z", JAN), 0, "before the start: out")
    t.equal(await annComments("2020-01-01T00:00:00.000Z", JAN), 1, "the first instant of start_month: in")
    t.equal(await annComments("2020-01-31T23:59:59.999Z", JAN), 1, "the last instant of end_month: in")
    t.equal(await annComments("2020-02-01T00:00:00.000Z", JAN), 0, "the first instant after end_month: out")
    t.equal(await annComments("2020-02-01T00:00:00.000Z", "start_month=2020-02&end_month=2020-02"), 1, "and in the next month's window")
    await s.sql("UPDATE comments SET created_at = '2020-01-15T10:00:00.000Z' WHERE id = ?", c1.id)
  })

  t.test("bad parameters are 400 naming the parameter; no key is 403", async (t) => {
    for (const [q, param] of [
      ["start_month=2026-1", "start_month"],
      ["start_month=2026-13", "start_month"],
      ["end_month=june", "end_month"],
      ["start_month=2026-05&end_month=2026-04", "start_month"],
      ["section=everything", "section"],
      ["interval=hour", "interval"],
      ["section=users&member_type=admin", "member_type"],
      ["group_scope=everyone", "group_scope"],
      ["group_scope=custom&group_ids=1,x", "group_ids"],
      ["group_ids=1.5", "group_ids"]
    ] as const) {
      const res = await report(A, q)
      t.equal(res.statusCode, 400, q)
      t.match((res.body as any).error, param, q)
    }
    t.equal((await s.api.get("api/b2/reports?section=users")).statusCode, 403)
    t.equal((await s.api.get(`api/b2/reports?section=users&api_key=${ada.apiKey}`)).statusCode, 403, "never a query-string key on b2")
    t.equal((await s.as("not-a-key").get("api/b2/reports")).statusCode, 403)
  })
})

t.test("seedUser-only groups: a new member with nothing done is a zero row", async (t) => {
  const s = await startTestServer()
  t.teardown(s.close)
  const a = await seedUser(s.convene, { name: "Solo" })
  const g = (await s.convene.groups.create({ name: "Solo group", owner: a.user })).group
  const body = (await s.as(a.apiKey).get(`api/b2/reports?section=users&group_ids=${g.id}`)).body as any
  t.same(body.users.map((u: any) => [u.name, u.votes_issued, u.all_votes_cast, u.delegate]), [["Solo", 0, false, false]])
})
