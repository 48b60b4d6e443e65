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

t.test("stance_data, cast_stances_pct; mentioned_usernames on every text; an outcome's group_id", async (t) => {
  await s.convene.users.create({ email: "cy@example.org", name: "Cy", username: "cy" })
  const d = ((await A.post("api/b2/discussions", { json: { group_id: group.id, title: "T", description: "Over to @cy and @Ada." } })).body as any).discussions[0]
  matchExact(t, d.mentioned_usernames, ["cy", "ada"], "a discussion's")
  const c = ((await A.post("api/b2/comments", { json: { discussion_id: d.id, body: "Thanks @cy" } })).body as any).comments[0]
  matchExact(t, c.mentioned_usernames, ["cy"], "a comment's")
  const html = ((await A.post("api/b2/comments", { json: { discussion_id: d.id, body: "<p>@cy</p>", body_format: "html" } })).body as any).comments[0]
  matchExact(t, html.mentioned_usernames, [], "none in html, as Loomio")
  const gone = ((await A.delete(`api/b2/comments/${c.id}`)).body as any).comments[0]
  matchExact(t, gone.mentioned_usernames, [], "none in a deleted comment")

  const p = await newPoll({ details: "Asking @bob" })
  matchExact(t, [p.mentioned_usernames, p.stance_data, p.cast_stances_pct], [["bob"], { soup: 0, salad: 0, bread: 0 }, 0])
  const voted = ((await B.post("api/b2/stances", { json: { poll_id: p.id, option_scores: { bread: 1 }, reason: "ask @ada" } })).body as any)
  matchExact(t, voted.stances.find((x: any) => x.participant_id === bob.user.id).mentioned_usernames, ["ada"], "a reason's")
  const shown = ((await A.get(`api/b2/polls/${p.id}`)).body as any).polls[0]
  matchExact(t, [shown.stance_data, shown.cast_stances_pct], [{ soup: 0, salad: 0, bread: 1 }, 50], "one of two ballots cast")

  await A.post(`api/b2/polls/${p.id}/close`)
  const o = ((await A.post("api/b2/outcomes", { json: { poll_id: p.id, statement: "Bread, says @bob" } })).body as any).outcomes[0]
  matchExact(t, [o.group_id, o.mentioned_usernames], [group.id, ["bob"]])
})
