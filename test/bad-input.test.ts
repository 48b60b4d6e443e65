/**
 * Bad input and abuse through the real server: each is refused with a clear 4xx (never a 5xx), quickly,
 * and changes nothing; and the reactions that used to be refused on polls now work.
 */
import t from "tap"
import { seedUser, startTestServer, nextYear } from "./helpers.js"
import { matchExact } from "./match.js"

const s = await startTestServer()
t.teardown(s.close)
const owner = await seedUser(s.convene, { name: "Owner" })
const admin = await seedUser(s.convene, { name: "Admin" })
const member = await seedUser(s.convene, { name: "Member" })
const { group } = await s.convene.groups.create({ name: "Abuse", owner: owner.user })
await s.convene.members.add({ group, user: admin.user, admin: true })
await s.convene.members.add({ group, user: member.user })
const O = s.as(owner.apiKey)
const count = async (table: string) => ((await s.sql(`SELECT count(*) AS n FROM ${table}`))[0] as { n: number }).n
const snapshot = () => Promise.all(["users", "memberships", "discussions", "comments", "polls", "reactions", "mail_outbox"].map(count))

t.test("JSON nested deeper than the bound is 400 within milliseconds, before decoding", async (t) => {
  const before = (await snapshot())
  for (const [where, depth] of [["recipient_user_ids", 5000], ["title", 2000], ["top", 40]] as const) {
    const nest = "[".repeat(depth) + "]".repeat(depth)
    const body = where === "top"
      ? `{"group_id":${group.id},"title":"x","recipient_user_ids":${nest}}`
      : `{"group_id":${group.id},"${where}":${nest}}`
    const started = Date.now()
    const res = await O.post("api/b2/discussions", { body, headers: { "content-type": "application/json" } })
    t.equal(res.statusCode, 400, `${where} at depth ${depth}`)
    t.match(res.body, { error: /nested deeper than 32/ })
    t.ok(Date.now() - started < 1000, "answered quickly")
  }
  t.same((await snapshot()), before, "nothing written")
})

t.test("report windows and intervals are bounded; /healthz is not held up", async (t) => {
  const started = Date.now()
  const res = await O.get("api/b2/reports?section=base&interval=day&start_month=1000-01&end_month=1999-12")
  t.equal(res.statusCode, 400)
  t.match(res.body, { error: /start_month|interval/ })
  t.ok(Date.now() - started < 1000, "refused at once")
  const days = await O.get("api/b2/reports?section=base&interval=day&start_month=2020-01&end_month=2023-12")
  t.equal(days.statusCode, 400, "1,461 days is more than 1,000 intervals")
  t.match(days.body, { error: /interval/ })
  t.equal((await O.get("api/b2/reports?section=base&interval=week&start_month=2020-01&end_month=2023-12")).statusCode, 200, "209 weeks are fine")
  // a real Loomio client (loomiomcp's get_user_activity) asks for the whole history this way: any window is served
  const history = await O.get(`api/b2/reports?section=users&start_month=2000-01&end_month=${new Date().toISOString().slice(0, 7)}`)
  t.equal(history.statusCode, 200, "a window from 2000-01 is served")
  t.ok(Array.isArray((history.body as { users?: unknown }).users), "with its rows")
  t.equal((await O.get("api/b2/reports?section=countries&start_month=0001-01&end_month=9999-12")).statusCode, 200, "however long")
  t.equal((await O.get("api/b2/reports?section=base&interval=year&start_month=0001-01&end_month=0999-12")).statusCode, 200, "999 years are 999 intervals")
  t.equal((await O.get("api/b2/reports?section=base&interval=year&start_month=0001-01&end_month=1001-12")).statusCode, 400, "1,001 are not")
  const ids = Array.from({ length: 1001 }, (_, i) => i + 1).join(",")
  t.match((await O.get(`api/b2/reports?group_ids=${ids}`)).body, { error: /group_ids/ })
})

t.test("array inputs hold at most 1,000 items", async (t) => {
  const before = (await snapshot())
  const emails = Array.from({ length: 1001 }, (_, i) => `person${i}@example.org`)
  const res = await O.post("api/b2/memberships", { json: { group_id: group.id, emails } })
  t.equal(res.statusCode, 400)
  t.match(res.body, { error: /emails.*1000/ })
  const ids = await O.post("api/b2/discussions", { json: { group_id: group.id, title: "x", recipient_user_ids: Array.from({ length: 1001 }, () => 1) } })
  t.equal(ids.statusCode, 400)
  t.match(ids.body, { error: /recipient_user_ids/ })
  const options = await O.post("api/b2/polls", { json: { group_id: group.id, title: "x", poll_type: "poll", options: Array.from({ length: 1001 }, (_, i) => `o${i}`) } })
  t.equal(options.statusCode, 400)
  t.same((await snapshot()), before, "nothing written")
  const fine = await O.post("api/b2/memberships", { json: { group_id: group.id, emails: [...emails.slice(0, 999), owner.user.email] } })
  t.equal(fine.statusCode, 200, "1,000 addresses are accepted")
  t.equal((fine.body as any).added_emails.length, 999)
})

t.test("e-mail addresses with control or bidi characters are refused in one place, everywhere", async (t) => {
  const before = (await snapshot())
  for (const bad of ["nul\u0000@example.org", "bel\u0007@example.org", "del\u007f@example.org", "rtl\u202e@example.org", "a b@example.org", "x@localhost", "x@-bad.org"]) {
    const sync = await O.post("api/b2/memberships", { json: { group_id: group.id, emails: [bad] } })
    t.equal(sync.statusCode, 422, JSON.stringify(bad))
    matchExact(t, sync.body, { errors: { emails: [/not a valid e-mail address/] } })
    const d = await O.post("api/b2/discussions", { json: { group_id: group.id, title: "x", recipient_emails: [bad] } })
    t.equal(d.statusCode, 422)
    matchExact(t, d.body, { errors: { recipient_emails: [/not a valid/] } })
    const p = await O.post("api/b2/polls", { json: { group_id: group.id, title: "x", poll_type: "poll", options: ["a"], recipient_emails: [bad] } })
    t.equal(p.statusCode, 422)
    const u = await s.b3.patch(`api/b3/users/${member.user.id}`, { json: { user: { email: bad } } })
    t.equal(u.statusCode, 422, "b3 too")
  }
  t.same((await snapshot()), before, "no user, membership or mail was created")
  t.equal((await O.post("api/b2/memberships", { json: { group_id: group.id, emails: ["O'Brien+tag@Example.org"] } })).statusCode, 200, "valid unusual addresses pass")
})

t.test("a date-time without an offset is UTC, whatever the server's time zone", async (t) => {
  const y = nextYear()
  const res = await O.post("api/b2/polls", { json: { group_id: group.id, title: "When", poll_type: "proposal", closing_at: `${y}-05-06T10:00` } })
  t.equal(res.statusCode, 200)
  t.equal((res.body as any).polls[0].closing_at, `${y}-05-06T10:00:00.000Z`)
  const offset = await O.post("api/b2/polls", { json: { group_id: group.id, title: "When", poll_type: "proposal", closing_at: `${y}-05-06T10:00:00+02:00` } })
  t.equal((offset.body as any).polls[0].closing_at, `${y}-05-06T08:00:00.000Z`)
  const impossible = await O.post("api/b2/polls", { json: { group_id: group.id, title: "When", poll_type: "proposal", closing_at: `${y}-02-30T10:00` } })
  t.equal(impossible.statusCode, 422)
  matchExact(t, impossible.body, { errors: { closing_at: [/ISO 8601/] } })
})

t.test("reactions on polls, votes and outcomes work as on discussions", async (t) => {
  const poll = ((await O.post("api/b2/polls", { json: { group_id: group.id, title: "React", poll_type: "proposal", closing_at: new Date(Date.now() + 86_400_000).toISOString() } })).body as any).polls[0]
  for (const [who, key] of [["owner", owner.apiKey], ["admin", admin.apiKey], ["member", member.apiKey]] as const) {
    const res = await s.as(key).post("api/b2/reactions", { json: { reactable_type: "Poll", reactable_id: poll.id, reaction: ":+1:" } })
    t.equal(res.statusCode, 200, `${who} reacts to a poll`)
    matchExact(t, res.body, { reactions: [{ reactable_type: "Poll", reactable_id: poll.id, reaction: ":+1:" }] })
  }
  const voted = (await s.as(member.apiKey).post("api/b2/stances", { json: { poll_id: poll.id, option_scores: { agree: 1 } } })).body as any
  const stanceId = voted.polls[0].my_stance_id
  t.equal((await O.post("api/b2/reactions", { json: { reactable_type: "Stance", reactable_id: stanceId, reaction: "heart" } })).statusCode, 200, "a visible vote")
  await O.post(`api/b2/polls/${poll.id}/close`)
  const outcome = ((await O.post("api/b2/outcomes", { json: { poll_id: poll.id, statement: "Agreed" } })).body as any).outcomes[0]
  t.equal((await s.as(member.apiKey).post("api/b2/reactions", { json: { reactable_type: "Outcome", reactable_id: outcome.id, reaction: "tada" } })).statusCode, 200)
  const outsider = await seedUser(s.convene)
  t.equal((await s.as(outsider.apiKey).post("api/b2/reactions", { json: { reactable_type: "Poll", reactable_id: poll.id, reaction: "x" } })).statusCode, 404, "not for those who cannot see it")
  const items = (await O.get(`api/b2/threads/${poll.topic_id}/items`)).body as any
  t.equal(items.reactions.length, 5, "the thread shows them")
})

t.test("hidden votes cannot be reacted to before results show", async (t) => {
  const poll = ((await O.post("api/b2/polls", { json: { group_id: group.id, title: "Secret", poll_type: "proposal", hide_results: "until_closed", closing_at: new Date(Date.now() + 86_400_000).toISOString() } })).body as any).polls[0]
  const voted = (await s.as(member.apiKey).post("api/b2/stances", { json: { poll_id: poll.id, option_scores: { agree: 1 } } })).body as any
  const res = await s.as(admin.apiKey).post("api/b2/reactions", { json: { reactable_type: "Stance", reactable_id: voted.polls[0].my_stance_id, reaction: "eyes" } })
  t.equal(res.statusCode, 404)
})

t.test("PATCH and PUT need a body", async (t) => {
  const d = ((await O.post("api/b2/discussions", { json: { group_id: group.id, title: "Keep" } })).body as any).discussions[0]
  for (const method of ["PATCH", "PUT"] as const) {
    for (const body of [undefined, "{}", `{"discussion":{}}`]) {
      const res = await O(`api/b2/discussions/${d.id}`, { method, ...(body === undefined ? {} : { body, headers: { "content-type": "application/json" } }) })
      t.equal(res.statusCode, 400, `${method} ${body ?? "(none)"}`)
      t.match(res.body, { error: /body is required/ })
    }
  }
})
