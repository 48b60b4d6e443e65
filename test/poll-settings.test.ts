/**
 * A poll's settings on the form (decisions §15): "Reason" (disabled, optional, required) enforced by the server for
 * every caller, "Shuffle options" and "Closing-soon notice" set from the new-poll page; the vote form follows the
 * Reason setting (no field, or a required one), and a vote without the reason asked for is refused beside the field.
 */
import t from "tap"
import { axe, codeSignIn, startBrowsing, submitted } from "./browsing.js"
import { future, seedUser } from "./helpers.js"
import { matchExact } from "./match.js"

t.setTimeout(120_000)

const { s, smtp, browser } = await startBrowsing()
const signIn = codeSignIn(s, smtp)
const ada = await seedUser(s.convene, { name: "Ada", email: "ada@example.org" })
const bo = await seedUser(s.convene, { name: "Bo", email: "bo@example.org" })
const { group } = await s.convene.groups.create({ name: "Board", owner: ada.user })
await s.convene.members.add({ group, user: bo.user })
const A = s.as(ada.apiKey)
const B = s.as(bo.apiKey)
const poll = async (extra: object) => {
  const r = await A.post("api/b2/polls", { json: { group_id: group.id, title: "Adopt the budget?", poll_type: "proposal", closing_at: future(48), ...extra } })
  if (r.statusCode !== 200) throw new Error(JSON.stringify(r.body))
  return (r.body as any).polls[0]
}
const ballots = async (id: number) => (await s.sql<{ n: number }>("SELECT count(*) AS n FROM stances WHERE poll_id = ? AND cast_at IS NOT NULL", id))[0]!.n

t.test("Reason, enforced by the server for every caller", async (t) => {
  const required = await poll({ stance_reason_required: "required" })
  t.equal(required.stance_reason_required, "required")
  for (const reason of [undefined, "", "   "]) {
    const r = await B.post("api/b2/stances", { json: { poll_id: required.id, option_scores: { agree: 1 }, ...(reason === undefined ? {} : { reason }) } })
    matchExact(t, [r.statusCode, (r.body as any).errors], [422, { reason: [/can't be blank: this poll asks for a reason/] }], `reason ${JSON.stringify(reason)}`)
  }
  t.equal(await ballots(required.id), 0, "nothing cast")
  t.equal((await B.post("api/b2/stances", { json: { poll_id: required.id, option_scores: { agree: 1 }, reason: "It balances" } })).statusCode, 200)

  const disabled = await poll({ stance_reason_required: "disabled" })
  const refused = await B.post("api/b2/stances", { json: { poll_id: disabled.id, option_scores: { agree: 1 }, reason: "Because" } })
  matchExact(t, [refused.statusCode, (refused.body as any).errors], [422, { reason: [/is not taken/] }])
  t.equal((await B.post("api/b2/stances", { json: { poll_id: disabled.id, option_scores: { agree: 1 } } })).statusCode, 200)

  const optional = await poll({})
  t.equal(optional.stance_reason_required, "optional", "optional by default")
  const bad = await A.post("api/b2/polls", { json: { group_id: group.id, title: "X", poll_type: "proposal", closing_at: future(48), stance_reason_required: "sometimes" } })
  t.equal(bad.statusCode, 422)
  const changed = await A.patch(`api/b2/polls/${optional.id}`, { json: { stance_reason_required: "required" } })
  t.equal((changed.body as any).polls[0].stance_reason_required, "required", "changed on edit")
})

t.test("the new-poll page sets Reason, Shuffle options and the closing-soon notice; the vote form follows", async (t) => {
  const page = await signIn(await browser.newContext(), "ada@example.org")
  await page.goto(`${s.url}/g/${group.key}/polls/new`)
  await page.getByLabel("Title").fill("Which day?")
  await page.getByLabel("Poll type").selectOption({ label: "Poll" })
  await page.getByLabel("Options", { exact: true }).fill("Monday\nTuesday\nWednesday")
  await page.getByLabel("Reason", { exact: true }).selectOption({ label: "A reason is required" })
  await page.getByLabel(/Shuffle options/).check()
  await page.getByLabel("Closing-soon notice, a day before").selectOption({ label: "Those who have not voted" })
  await axe(t, page, "new poll with its settings")
  await submitted(page, page.getByRole("button", { name: "Start poll" }).click(), "The poll is open.")
  const [row] = await s.sql<any>("SELECT key, stance_reason_required, CASE WHEN shuffle_options THEN 1 ELSE 0 END AS shuffled, notify_on_closing_soon FROM polls WHERE title = ?", "Which day?")
  matchExact(t, row, { key: String, stance_reason_required: "required", shuffled: 1, notify_on_closing_soon: "undecided_voters" })

  const voter = await signIn(await browser.newContext(), "bo@example.org")
  await voter.goto(`${s.url}/p/${row.key}`)
  const reason = voter.getByLabel("Reason (required)")
  t.equal(await reason.getAttribute("required"), "", "the browser asks for it")
  // a vote without it (past the browser's own check): refused, said beside the field, nothing cast
  const token = (await voter.context().cookies()).find((c) => c.name === "convene_csrf")!.value
  const forged = await voter.request.post(`${s.url}/p/${row.key}/vote`, { form: { csrf: token, choice: "Monday" } })
  t.equal(forged.status(), 422)
  t.match(await forged.text(), /id="reason-error"[^>]*>[^<]*asks for a reason with each vote/)
  t.equal(await ballots((await s.sql<any>("SELECT id FROM polls WHERE key = ?", row.key))[0].id), 0)
  await voter.getByRole("radio", { name: "Monday" }).check()
  await reason.fill("Mondays suit me")
  await submitted(voter, voter.getByRole("button", { name: "Vote", exact: true }).click(), "Your vote is recorded.")
  await axe(t, voter, "poll with a required reason, voted")

  await page.goto(`${s.url}/p/${row.key}/edit`)
  t.equal(await page.getByLabel("Reason", { exact: true }).inputValue(), "required", "the edit form shows the setting")
  await page.getByLabel("Reason", { exact: true }).selectOption({ label: "No reasons" })
  await submitted(page, page.getByRole("button", { name: "Save poll" }).click(), "The poll is saved.")
  await voter.goto(`${s.url}/p/${row.key}`)
  t.equal(await voter.locator("#reason").count(), 0, "no reason field where the poll takes none")
})
