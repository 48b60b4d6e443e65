/**
 * Delegated voting (decisions §15) end to end through the real server, on both stores: a table of steps (grant,
 * revoke, own vote before and after the delegate's, a changed delegate mid-poll, the limit, non-transitivity, an
 * anonymous poll, a poll that refuses delegated votes, a delegator and a delegate who leave), and after each step
 * the results, the participation report and the webhook events agree with a recount from the ballots themselves.
 */
import t, { type Test } from "tap"
import { matchExact } from "./match.js"
import { future, seedUser, startTestServer } from "./helpers.js"

t.setTimeout(120_000)

const s = await startTestServer()
t.teardown(s.close)
const names = ["Ada", "Bo", "Cy", "Di", "Ed", "Fay", "Gus"] as const
type Name = (typeof names)[number]
const people = Object.fromEntries(await Promise.all(names.map(async (n) => [n, await seedUser(s.convene, { name: n, email: `${n.toLowerCase()}@example.org` })]))) as Record<Name, Awaited<ReturnType<typeof seedUser>>>
const as = (n: Name) => s.as(people[n].apiKey)
const id = (n: Name) => people[n].user.id
const nameOf = new Map(names.map((n) => [id(n), n]))
const { group } = await s.convene.groups.create({ name: "Co-op", owner: people.Ada.user })
for (const n of names.slice(1)) await s.convene.members.add({ group, user: people[n].user })

const ok = async (p: Promise<any>) => {
  const r = await p
  if (r.statusCode !== 200) throw new Error(`${r.statusCode} ${JSON.stringify(r.body)}`)
  return r.body as any
}
const vote = (n: Name, poll: any, option: string) => ok(as(n).post("api/b2/stances", { json: { poll_id: poll.id, option_scores: { [option]: 1 } } }))
const delegate = (from: Name, to: Name) => as(from).put(`api/b2/groups/${group.id}/delegation`, { json: { delegate_id: id(to) } })
const newPoll = async (title: string, extra: object = {}) =>
  (await ok(as("Ada").post("api/b2/polls", { json: { group_id: group.id, title, poll_type: "proposal", closing_at: future(48), ...extra } }))).polls[0]

/** Each counted ballot of the poll, as the database holds it: voter → [option, delegate or null]. */
const ballots = async (poll: any) => {
  const rows = await s.sql<any>(`SELECT s.id, s.participant_id, s.delegated_by, o.name FROM stances s JOIN stance_choices c ON c.stance_id = s.id
      JOIN poll_options o ON o.id = c.poll_option_id WHERE s.poll_id = ? AND s.latest = TRUE AND s.revoked_at IS NULL AND s.cast_at IS NOT NULL ORDER BY s.participant_id`, poll.id)
  return Object.fromEntries(rows.map((r) => [nameOf.get(Number(r.participant_id)), [r.name, r.delegated_by === null ? null : nameOf.get(Number(r.delegated_by))]])) as Record<string, [string, Name | null]>
}

/** The results, the participation report and the webhook events agree with a recount of the ballots. */
const agree = async (t: Test, poll: any, want: Record<string, [string, Name | null]>) => {
  const counted = await ballots(poll)
  t.same(counted, want, "the ballots: who counts for whom")
  const shown = (await ok(as("Ada").get(`api/b2/polls/${poll.id}`))).polls[0]
  const tally: Record<string, number> = {}
  for (const [option] of Object.values(counted)) tally[option] = (tally[option] ?? 0) + 1
  t.same(Object.fromEntries(shown.results.filter((r: any) => r.voter_count > 0).map((r: any) => [r.name, r.voter_count])), tally, "results = recount")
  t.equal(shown.decided_voters_count, Object.keys(counted).length, "cast ballots = recount")
  t.equal(shown.delegated_voters_count, Object.values(counted).filter(([, by]) => by !== null).length, "cast by delegates = recount")
  const report = (await ok(as("Ada").get(`api/b2/reports?section=users&group_scope=custom&group_ids=${group.id}`))) as any
  if (!poll.anonymous) {
    const all = await s.sql<any>(`SELECT s.participant_id, count(*) AS n FROM stances s JOIN polls p ON p.id = s.poll_id JOIN topics tp ON tp.id = p.topic_id
        WHERE tp.group_id = ? AND p.anonymous = FALSE AND s.latest = TRUE AND s.revoked_at IS NULL AND s.cast_at IS NOT NULL GROUP BY s.participant_id`, group.id)
    const cast = Object.fromEntries(all.map((r) => [Number(r.participant_id), Number(r.n)]))
    for (const row of report.users) t.equal(row.votes_cast, cast[row.id] ?? 0, `report: ${row.name}'s votes cast = recount`)
  }
  const counts = await s.sql<any>(`SELECT s.id FROM stances s WHERE s.poll_id = ? AND s.latest = TRUE AND s.revoked_at IS NULL AND s.cast_at IS NOT NULL`, poll.id)
  const published = new Set((await s.sql<any>(`SELECT eventable_id FROM webhook_events WHERE eventable_type = 'Stance' AND kind IN ('stance_created', 'stance_updated')`))
    .map((r) => Number(r.eventable_id)))
  t.same(counts.filter((c) => !published.has(Number(c.id))), [], "every counted ballot has its vote event (none missing)")
  // a ballot a delegate's vote cast and that was withdrawn: the uncast ballot in its place has its event too
  const withdrawn = await s.sql<any>(`SELECT s.id FROM stances s WHERE s.poll_id = ? AND s.latest = TRUE AND s.cast_at IS NULL AND EXISTS
      (SELECT 1 FROM stances d WHERE d.poll_id = s.poll_id AND d.participant_id = s.participant_id AND d.delegated_by IS NOT NULL AND d.id < s.id)`, poll.id)
  t.same(withdrawn.filter((c) => !published.has(Number(c.id))), [], "every withdrawal has its event (a webhook's recount agrees)")
}

t.test("off by default: nobody delegates until the group's administrators allow it", async (t) => {
  const r = await delegate("Bo", "Cy")
  t.equal(r.statusCode, 403)
  t.match(r.body, { error: /does not let its members delegate/ })
  t.same(await s.sql("SELECT count(*) AS n FROM delegations"), [{ n: 0 }], "nothing written")
  t.equal((await as("Bo").patch(`api/b2/groups/${group.id}`, { json: { members_can_delegate: true } })).statusCode, 403, "a member may not turn it on")
  const on = await ok(as("Ada").patch(`api/b2/groups/${group.id}`, { json: { members_can_delegate: true, delegation_limit: 2 } }))
  t.match(on.groups[0], { members_can_delegate: true, delegation_limit: 2 })
  const bad = await as("Ada").patch(`api/b2/groups/${group.id}`, { json: { delegation_limit: 0 } })
  t.equal(bad.statusCode, 422)
})

t.test("the steps, each followed by a recount", async (t) => {
  const p1 = await newPoll("Buy the van?")
  const mailsTo = async (n: Name) => (await s.sql<any>(`SELECT subject FROM mail_outbox WHERE recipient_user_id = ? AND kind = 'vote_delegated'`, id(n))).map((r) => r.subject)

  await t.test("grant, then the delegate votes: their vote is cast for the delegator, who is told by mail", async (t) => {
    const granted = await ok(delegate("Bo", "Cy"))
    matchExact(t, granted.delegation, { group_id: group.id, delegate_id: id("Cy"), delegator_ids: [] })
    matchExact(t, (await ok(as("Cy").get(`api/b2/groups/${group.id}/delegation`))).delegation.delegator_ids, [id("Bo")], "the delegate sees who delegated to them")
    await vote("Cy", p1, "agree")
    await agree(t, p1, { Bo: ["agree", "Cy"], Cy: ["agree", null] })
    const [mine] = (await ok(as("Bo").get(`api/b2/polls/${p1.id}`))).stances
    t.match(mine, { participant_id: id("Bo"), delegated_by: id("Cy"), option_scores: { agree: 1 } }, "the ballot names its delegate")
    matchExact(t, await mailsTo("Bo"), ["Cy voted for you, as your delegate: Buy the van?"])
  })

  await t.test("the delegate changes their vote: the delegator's follows, never counted twice", async (t) => {
    await vote("Cy", p1, "disagree")
    await agree(t, p1, { Bo: ["disagree", "Cy"], Cy: ["disagree", null] })
  })

  await t.test("the delegator votes themselves: their own vote wins, even after the delegate's, and stays", async (t) => {
    await vote("Bo", p1, "abstain")
    await agree(t, p1, { Bo: ["abstain", null], Cy: ["disagree", null] })
    await vote("Cy", p1, "agree")
    await agree(t, p1, { Bo: ["abstain", null], Cy: ["agree", null] })
  })

  await t.test("a grant while the poll is open: the delegate's vote stands at once", async (t) => {
    await ok(delegate("Di", "Cy"))
    await agree(t, p1, { Bo: ["abstain", null], Cy: ["agree", null], Di: ["agree", "Cy"] })
  })

  await t.test("the limit: a delegate holding the group's limit takes no more", async (t) => {
    const r = await delegate("Ed", "Cy")
    t.equal(r.statusCode, 422)
    matchExact(t, r.body, { errors: { delegate_id: [/already holds 2 delegations/] } })
    t.same(await s.sql("SELECT count(*) AS n FROM delegations WHERE delegator_id = ?", id("Ed")), [{ n: 0 }])
    for (const [who, to, why] of [["Ed", "Ed", /yourself/], ["Ed", "Ada", null]] as const) {
      const res = await delegate(who, to)
      if (why === null) t.equal(res.statusCode, 200)
      else matchExact(t, res.body, { errors: { delegate_id: [why] } })
    }
    await ok(as("Ed").delete(`api/b2/groups/${group.id}/delegation`))
  })

  const p2 = await newPoll("Paint it green?")
  await t.test("not transitive: a delegate's ballot cast for them carries nobody", async (t) => {
    await ok(delegate("Cy", "Fay"))
    await vote("Fay", p2, "agree")
    await agree(t, p2, { Cy: ["agree", "Fay"], Fay: ["agree", null] })
    await agree(t, p1, { Bo: ["abstain", null], Cy: ["agree", null], Di: ["agree", "Cy"] })
  })

  await t.test("a changed delegate mid-poll: the new delegate's vote", async (t) => {
    await ok(delegate("Di", "Fay"))
    await agree(t, p2, { Cy: ["agree", "Fay"], Di: ["agree", "Fay"], Fay: ["agree", null] })
    await agree(t, p1, { Bo: ["abstain", null], Cy: ["agree", null] })
  })

  await t.test("revoke: the ballots cast through the delegation are withdrawn", async (t) => {
    const r = await ok(as("Di").delete(`api/b2/groups/${group.id}/delegation`))
    t.equal(r.delegation.delegate_id, null)
    await agree(t, p2, { Cy: ["agree", "Fay"], Fay: ["agree", null] })
  })

  await t.test("an anonymous poll counts delegated votes and names nobody's delegate", async (t) => {
    await ok(delegate("Gus", "Ed"))
    const p3 = await newPoll("Secret ballot", { anonymous: true })
    await vote("Ed", p3, "agree")
    await agree(t, p3, { Ed: ["agree", null], Gus: ["agree", "Ed"] })
    const [mine] = (await ok(as("Gus").get(`api/b2/polls/${p3.id}`))).stances
    t.match(mine, { cast_at: String, delegated_by: null }, "not even the voter's own ballot names the delegate")
  })

  await t.test("a poll that refuses delegated votes; allowed again, the delegate's vote stands", async (t) => {
    const p4 = await newPoll("Elect a treasurer", { allow_delegated_votes: false })
    t.equal(p4.allow_delegated_votes, false)
    await vote("Ed", p4, "agree")
    await agree(t, p4, { Ed: ["agree", null] })
    await ok(as("Ada").patch(`api/b2/polls/${p4.id}`, { json: { allow_delegated_votes: true } }))
    await agree(t, p4, { Ed: ["agree", null], Gus: ["agree", "Ed"] })
  })

  await t.test("a delegate who leaves: their delegators' ballots are withdrawn, the delegations ended", async (t) => {
    await ok(as("Fay").post(`api/b2/groups/${group.id}/leave`))
    // Fay keeps her own cast vote (leaving keeps votes cast); Cy's, cast by her, goes
    await agree(t, p2, { Fay: ["agree", null] })
    t.same(await s.sql("SELECT count(*) AS n FROM delegations WHERE delegate_id = ? AND revoked_at IS NULL", id("Fay")), [{ n: 0 }])
  })

  await t.test("a delegator who leaves: their ballots go with their membership", async (t) => {
    const p5 = await newPoll("Last one")
    await vote("Ed", p5, "disagree")
    await agree(t, p5, { Ed: ["disagree", null], Gus: ["disagree", "Ed"] })
    await ok(as("Gus").post(`api/b2/groups/${group.id}/leave`))
    await agree(t, p5, { Ed: ["disagree", null] })
  })

  t.test("every grant and revoke is kept", async (t) => {
    const rows = await s.sql<any>("SELECT delegator_id, delegate_id, revoked_at FROM delegations ORDER BY id")
    matchExact(t, rows.map((r) => [nameOf.get(Number(r.delegator_id)), nameOf.get(Number(r.delegate_id)), r.revoked_at !== null]), [
      ["Bo", "Cy", false], ["Di", "Cy", true], ["Ed", "Ada", true], ["Cy", "Fay", true], ["Di", "Fay", true], ["Gus", "Ed", true]
    ])
  })
})

t.test("bad input: clear 4xx, nothing written", async (t) => {
  const before = await s.sql("SELECT count(*) AS n FROM delegations")
  for (const [body, status] of [[{}, 400], [{ delegate_id: "x" }, 400], [{ delegate_id: 999999 }, 422]] as const) {
    const r = await as("Ed").put(`api/b2/groups/${group.id}/delegation`, { json: body })
    t.equal(r.statusCode, status, JSON.stringify(body))
  }
  const outsider = await seedUser(s.convene, { name: "Out" })
  t.equal((await s.as(outsider.apiKey).get(`api/b2/groups/${group.id}/delegation`)).statusCode, 403)
  t.equal((await s.as(outsider.apiKey).put(`api/b2/groups/${group.id}/delegation`, { json: { delegate_id: id("Ed") } })).statusCode, 403)
  t.equal((await as("Ed").get("api/b2/groups/999999/delegation")).statusCode, 404)
  t.same(await s.sql("SELECT count(*) AS n FROM delegations"), before)
})
