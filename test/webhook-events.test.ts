import { Effect, TestClock, TestContext } from "effect"
import t from "tap"
import { Scheduler } from "@convene/core"
import { startReceiver } from "./receiver.js"
import { seedUser, startTestServer, future } from "./helpers.js"

/** The body of a request that must succeed. */
const ok = async (p: Promise<any>) => {
  const r = await p
  if (r.statusCode !== 200) throw new Error(`${r.statusCode} ${JSON.stringify(r.body)}`)
  return r.body as any
}

t.test("real operations emit every event kind; payloads respect anonymity and hidden results", async (t) => {
  const receiver = await startReceiver()
  const s = await startTestServer({ allowPrivateWebhooks: true }, { worker: {} })
  t.teardown(async () => { await s.close(); await receiver.close() })
  const ada = await seedUser(s.convene, { name: "Ada" })
  const bob = await seedUser(s.convene, { name: "Bob" })
  const group = (await s.convene.groups.create({ name: "G", owner: ada.user })).group
  const other = (await s.convene.groups.create({ name: "Other", owner: ada.user })).group
  await s.convene.members.add({ group, user: bob.user })
  const [A, B] = [ada, bob].map((u) => s.as(u.apiKey))
  await ok(A.post("api/b2/chatbots", { json: { group_id: group.id, name: "all", server: `${receiver.url}/g`, webhook_kind: "slack",
    event_kinds: ["new_discussion", "discussion_edited", "new_comment", "poll_created", "poll_edited", "poll_closing_soon", "poll_expired",
      "poll_closed_by_user", "poll_reopened", "outcome_created", "outcome_updated", "outcome_review_due", "stance_created", "stance_updated"] } }))

  const d = (await ok(A.post("api/b2/discussions", { json: { group_id: group.id, title: "Plans" } }))).discussions[0]
  await ok(A.patch(`api/b2/discussions/${d.id}`, { json: { title: "Plans, revised" } }))
  await ok(B.post("api/b2/comments", { json: { discussion_id: d.id, body: "A comment" } }))
  const p = (await ok(A.post("api/b2/polls", { json: { discussion_id: d.id, title: "Open vote", poll_type: "proposal", closing_at: future(48) } }))).polls[0]
  await ok(A.patch(`api/b2/polls/${p.id}`, { json: { title: "Open vote, edited" } }))
  await ok(B.post("api/b2/stances", { json: { poll_id: p.id, option_scores: { agree: 1 }, reason: "Because" } }))
  await ok(B.post("api/b2/stances", { json: { poll_id: p.id, option_scores: { disagree: 1 } } }))
  await ok(A.post(`api/b2/polls/${p.id}/close`))
  await ok(A.post(`api/b2/polls/${p.id}/reopen`, { json: { closing_at: future(72) } }))
  await ok(A.post(`api/b2/polls/${p.id}/close`))
  const reviewOn = future(24 * 10).slice(0, 10)
  const o = (await ok(A.post("api/b2/outcomes", { json: { poll_id: p.id, statement: "Decided", review_on: reviewOn } }))).outcomes[0]
  await ok(A.patch(`api/b2/outcomes/${o.id}`, { json: { statement: "Decided, amended" } }))
  const anon = (await ok(A.post("api/b2/polls", { json: { group_id: group.id, title: "Anon vote", poll_type: "proposal", closing_at: future(48), anonymous: true } }))).polls[0]
  await ok(B.post("api/b2/stances", { json: { poll_id: anon.id, option_scores: { agree: 1 }, reason: "secret reason" } }))
  const hidden = (await ok(A.post("api/b2/polls", { json: { group_id: group.id, title: "Hidden vote", poll_type: "poll", options: ["x", "y"], closing_at: future(48), hide_results: "until_closed" } }))).polls[0]
  await ok(B.post("api/b2/stances", { json: { poll_id: hidden.id, option_scores: { y: 1 }, reason: "hidden reason" } }))
  // another group's activity goes to nobody here
  await ok(A.post("api/b2/discussions", { json: { group_id: other.id, title: "Elsewhere" } }))

  // the scheduler's kinds: a reminder, an expiry and a review, with the clock moved on
  const soon = (await ok(A.post("api/b2/polls", { json: { group_id: group.id, title: "Closing poll", poll_type: "proposal", closing_at: future(30) } }))).polls[0]
  const run = (ms: number) => s.convene.run(Effect.zipRight(TestClock.setTime(ms), Scheduler.runScheduler).pipe(Effect.provide(TestContext.TestContext)))
  t.match(await run(Date.now() + 7 * 3600_000), { reminded: 1 })
  t.match(await run(Date.now() + 31 * 3600_000), { expired: 1 })
  t.match(await run(Date.parse(`${reviewOn}T01:00:00Z`)), { reviews: 1 })
  void soon
  // the scheduler ran on a test clock ahead of real time: make its deliveries due now
  await s.sql("UPDATE webhook_deliveries SET next_attempt_at = ? WHERE status = 'pending'", new Date().toISOString())
  s.worker!.kick()

  const kinds = (await s.sql<any>("SELECT kind FROM webhook_events WHERE group_id = ? ORDER BY id", group.id)).map((r) => r.kind)
  t.same([...new Set(kinds)].sort(), ["discussion_edited", "new_comment", "new_discussion", "outcome_created", "outcome_review_due", "outcome_updated",
    "poll_closed_by_user", "poll_closing_soon", "poll_created", "poll_edited", "poll_expired", "poll_reopened", "stance_created", "stance_updated"],
    "all fourteen kinds")
  await receiver.waitFor(kinds.length)
  const texts = receiver.received.map((r) => r.body.text as string)
  t.notOk(texts.some((x) => x.includes("Elsewhere")), "another group's event is not delivered")
  t.ok(texts.some((x) => x.startsWith("Ada started a discussion: <http://convene.test/d/")), "links identify the content")
  t.ok(texts.some((x) => /^Bob voted: <[^|]+\|Open vote, edited>\n\nagree\n\nBecause$/.test(x)), "a visible vote names voter, choice and reason")
  const anonTexts = texts.filter((x) => x.includes("Anon vote") && x.includes("voted"))
  t.same(anonTexts.map((x) => x.split(":")[0]), ["Someone voted"], "an anonymous vote names nobody")
  t.notOk(texts.some((x) => x.includes("secret reason") || x.includes("hidden reason")), "no hidden or anonymous reason leaks")
  t.ok(texts.some((x) => x.startsWith("Bob voted: <") && x.includes("Hidden vote>") && !x.includes("\n")), "a hidden-results vote carries no choice")
})

t.test("every format, first vote and changed vote: an anonymous vote names nobody, a hidden-results vote shows no choice", async (t) => {
  const receiver = await startReceiver()
  const s = await startTestServer({ allowPrivateWebhooks: true }, { worker: {} })
  t.teardown(async () => { await s.close(); await receiver.close() })
  const ada = await seedUser(s.convene, { name: "Ada" })
  const voter = await seedUser(s.convene, { name: "Bartholomew" })
  const group = (await s.convene.groups.create({ name: "G", owner: ada.user })).group
  await s.convene.members.add({ group, user: voter.user })
  const [A, V] = [ada, voter].map((u) => s.as(u.apiKey))
  const formats = ["markdown", "slack", "discord", "microsoft", "webex", "matrix"] as const
  for (const format of formats) {
    await ok(A.post("api/b2/chatbots", { json: {
      group_id: group.id, name: format, event_kinds: ["stance_created", "stance_updated"],
      ...(format === "matrix" ? { kind: "matrix", server: `${receiver.url}/matrix/send/m.room.message` } : { server: `${receiver.url}/${format}`, webhook_kind: format })
    } }))
  }
  const poll = async (title: string, fields: object) =>
    (await ok(A.post("api/b2/polls", { json: { group_id: group.id, title, closing_at: future(48), ...fields } }))).polls[0]
  const anon = await poll("Anon vote", { poll_type: "poll", options: ["xylophone", "yodel"], anonymous: true })
  const hidden = await poll("Hidden vote", { poll_type: "poll", options: ["xylophone", "yodel"], hide_results: "until_closed" })
  for (const p of [anon, hidden]) {
    await ok(V.post("api/b2/stances", { json: { poll_id: p.id, option_scores: { xylophone: 1 }, reason: "first-secret-reason" } }))
    await ok(V.post("api/b2/stances", { json: { poll_id: p.id, option_scores: { yodel: 1 }, reason: "changed-secret-reason" } }))
  }
  await receiver.waitFor(2 * 2 * formats.length)
  await new Promise((r) => setTimeout(r, 300))
  t.equal(receiver.received.length, 2 * 2 * formats.length, "two votes on each poll, in each format, and nothing else")
  for (const format of formats) {
    const bodies = receiver.received.filter((r) => r.url.startsWith(`/${format}`)).map((r) => JSON.stringify(r.body))
    t.equal(bodies.length, 4, `${format}: four votes delivered`)
    const about = (title: string) => bodies.filter((b) => b.includes(title))
    t.equal(about("Anon vote").length, 2, `${format}: the anonymous poll's first and changed vote`)
    t.equal(about("Hidden vote").length, 2, `${format}: the hidden poll's first and changed vote`)
    for (const body of about("Anon vote")) {
      t.notMatch(body, /Bartholomew/, `${format}: an anonymous vote never names the voter`)
      t.match(body, /Someone (voted|changed their vote)/, `${format}: it says someone voted`)
    }
    for (const body of bodies) {
      t.notMatch(body, /xylophone|yodel/, `${format}: no choice while results are hidden or the poll is anonymous`)
      t.notMatch(body, /secret-reason/, `${format}: no reason either`)
    }
    for (const body of about("Hidden vote")) t.match(body, /Bartholomew (voted|changed their vote)/, `${format}: a hidden-results vote still names its voter`)
  }
})

t.test("a group's life: a request to join and a thread moved in are delivered (decisions §12, beyond the spec's list)", async (t) => {
  const receiver = await startReceiver()
  const s = await startTestServer({ allowPrivateWebhooks: true }, { worker: {} })
  t.teardown(async () => { await s.close(); await receiver.close() })
  const ada = await seedUser(s.convene, { name: "Ada" })
  const bob = await seedUser(s.convene, { name: "Bob" })
  const A = s.as(ada.apiKey)
  const group = (await ok(A.post("api/b2/groups", { json: { name: "Orchard" } }))).groups[0]
  const from = (await ok(A.post("api/b2/groups", { json: { name: "Shed" } }))).groups[0]
  await ok(A.patch(`api/b2/groups/${group.id}`, { json: { group_privacy: "closed" } }))
  await ok(A.post("api/b2/chatbots", { json: { group_id: group.id, name: "life", server: `${receiver.url}/g`, event_kinds: ["membership_requested", "discussion_moved"] } }))
  await ok(s.as(bob.apiKey).post(`api/b2/groups/${group.id}/membership_requests`, { json: { introduction: "I prune" } }))
  const d = (await ok(A.post("api/b2/discussions", { json: { group_id: from.id, title: "Ladders" } }))).discussions[0]
  await ok(A.post(`api/b2/discussions/${d.id}/move`, { json: { group_id: group.id } }))
  await receiver.waitFor(2)
  const texts = receiver.received.map((r) => r.body.text as string)
  t.same(texts, [
    `Bob asked to join: [Orchard](http://convene.test/g/${group.key}/requests)`,
    `Ada moved a discussion here: [Ladders](http://convene.test/d/${d.key})`
  ])
})
