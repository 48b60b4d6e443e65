/**
 * Decisions §1 "Records as Loomio serializes them" (amended): a poll carries Loomio's `poll_option_names` (what a
 * client such as loomiomcp reads before it changes the options) and `stance_counts` (each option's total in
 * priority order, which list views show as tallies), beside the counts of voters; `stance_counts` is null while
 * the reader may not see results.
 */
import t from "tap"
import { future, seedUser, startTestServer } from "./helpers.js"
import { matchExact } from "./match.js"

const s = await startTestServer()
t.teardown(s.close)
const ada = await seedUser(s.convene, { name: "Ada" })
const bob = await seedUser(s.convene, { name: "Bob" })
const group = (await s.convene.groups.create({ name: "G", owner: ada.user })).group
await s.convene.members.add({ group, user: bob.user })
const [A, B] = [ada, bob].map((u) => s.as(u.apiKey))

const newPoll = async (extra: Record<string, unknown> = {}) => {
  const res = await A.post("api/b2/polls", {
    json: { group_id: group.id, title: "Lunch", poll_type: "poll", options: ["soup", "salad", "bread"], closing_at: future(), ...extra }
  })
  t.equal(res.statusCode, 200)
  return (res.body as any).polls[0]
}

t.test("poll_option_names and stance_counts, in a list and in a show", async (t) => {
  const p = await newPoll()
  t.equal((await A.post("api/b2/stances", { json: { poll_id: p.id, option_scores: { salad: 1 } } })).statusCode, 200)
  t.equal((await B.post("api/b2/stances", { json: { poll_id: p.id, option_scores: { salad: 1 } } })).statusCode, 200)
  const shown = ((await A.get(`api/b2/polls/${p.id}`)).body as any).polls[0]
  matchExact(t, [shown.poll_option_names, shown.stance_counts], [["soup", "salad", "bread"], [0, 2, 0]])
  matchExact(t, [shown.voters_count, shown.decided_voters_count, shown.undecided_voters_count], [2, 2, 0])
  const listed = ((await A.get(`api/b2/polls?group_id=${group.id}`)).body as any).polls.find((x: any) => x.id === p.id)
  matchExact(t, [listed.poll_option_names, listed.stance_counts], [["soup", "salad", "bread"], [0, 2, 0]], "a list's rows carry the tallies")
})

t.test("hidden results: the names, and no counts", async (t) => {
  const p = await newPoll({ hide_results: "until_closed" })
  await A.post("api/b2/stances", { json: { poll_id: p.id, option_scores: { soup: 1 } } })
  const shown = ((await B.get(`api/b2/polls/${p.id}`)).body as any).polls[0]
  matchExact(t, [shown.poll_option_names, shown.stance_counts, shown.results_visible], [["soup", "salad", "bread"], null, false])
  await A.post(`api/b2/polls/${p.id}/close`)
  matchExact(t, ((await B.get(`api/b2/polls/${p.id}`)).body as any).polls[0].stance_counts, [1, 0, 0], "once closed, the counts")
})
