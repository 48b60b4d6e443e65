/**
 * The embedding facade's polls, votes and outcomes: the HTTP API's rules through `makeConvene`, with the
 * database effect of each, and bad input refused by the same input Schemas before any rule runs.
 */
import { makeConvene } from "@convene/core"
import t from "tap"

/** What a use case rejected with: its error's tag (or "resolved"). */
const refusal = (p: Promise<unknown>) => p.then(() => "resolved", (e: { _tag?: string; message?: string }) => `${e._tag}${e.message ? `: ${e.message}` : ""}`)

t.test("polls, votes, close, reopen and outcomes with the API's permissions", async (t) => {
  const c = makeConvene({ filename: ":memory:" })
  t.teardown(c.close)
  const { user: ada } = await c.users.create({ email: "ada@example.org", name: "Ada" })
  const { user: bob } = await c.users.create({ email: "bob@example.org", name: "Bob" })
  const { user: eve } = await c.users.create({ email: "eve@example.org", name: "Eve" })
  const { group } = await c.groups.create({ name: "Board", owner: ada })
  await c.members.add({ group, user: bob })
  const asAda = c.as(ada)
  const asBob = c.as(bob)
  const asEve = c.as(eve)

  const week = new Date(Date.now() + 7 * 86_400_000).toISOString()
  const started = await asAda.startPoll({ group_id: group.id, title: "Lunch?", poll_type: "poll", options: ["soup", "salad"], closing_at: week })
  t.same(started.options.map((o) => o.name), ["soup", "salad"])
  t.match(await refusal(asEve.startPoll({ group_id: group.id, title: "Mine", poll_type: "poll", options: ["a"], closing_at: week })), /^(Forbidden)/)
  t.match(await refusal(asAda.startPoll({ group_id: "one" as never, title: "x" })), /^BadRequest: Invalid group_id: /, "the input Schema refuses first")

  const voted = await asBob.vote({ poll_id: started.poll.id, option_scores: { salad: 1 } })
  const salad = started.options.find((o) => o.name === "salad")!
  t.match(voted.stance, { poll_id: started.poll.id, participant_id: bob.id, cast_at: String, latest: true }, "Bob's ballot, cast")
  t.same([...voted.stance.choices], [[salad.id, 1]], "for salad alone")
  t.match(await refusal(asEve.vote({ poll_id: started.poll.id, option_scores: { soup: 1 } })), /^(Forbidden|NotFound)/, "not a voter")
  t.match(await refusal(asBob.vote({ poll_id: started.poll.id, option_scores: { pizza: 1 } })), /^(Invalid)/)
  t.equal((await asAda.poll(started.poll.key)).cast_count, 1)
  t.equal((await asBob.polls(group.id)).total, 1)

  t.match(await refusal(asBob.updatePoll(started.poll.key, { title: "Dinner?" })), /^(Forbidden)/)
  t.equal((await asAda.updatePoll(started.poll.key, { title: "Dinner?" })).poll.title, "Dinner?")

  t.match(await refusal(asBob.closePoll(started.poll.key)), /^(Forbidden)/)
  t.not((await asAda.closePoll(started.poll.key)).poll.closed_at, null)
  t.match(await refusal(asBob.vote({ poll_id: started.poll.id, option_scores: { soup: 1 } })), /^(Invalid)/, "a closed poll takes no votes")
  t.equal((await asAda.polls(group.id, "closed")).total, 1)

  t.match(await refusal(asEve.publishOutcome({ poll_id: started.poll.id, statement: "Salad" })), /^(Forbidden|NotFound)/)
  const outcome = await asAda.publishOutcome({ poll_id: started.poll.id, statement: "Salad" })
  t.match(outcome, { outcome: { statement: "Salad" } })
  t.match(await asAda.updateOutcome(outcome.outcome.id, { statement: "Salad, on Fridays" }), { outcome: { statement: "Salad, on Fridays" } })

  t.match(await refusal(asAda.reopenPoll(started.poll.key, "not a date")), /^(Invalid)/)
  const reopened = await asAda.reopenPoll(started.poll.key, new Date(Date.now() + 86_400_000).toISOString())
  t.equal(reopened.poll.closed_at, null)
  t.match(await refusal(asBob.deletePoll(started.poll.key)), /^(Forbidden)/)
  await asAda.deletePoll(started.poll.key)
  t.match(await refusal(asBob.poll(started.poll.key)), /^(NotFound)/)
})
