/**
 * Poll templates (decisions §15): Loomio's 14 built-ins over the API in the caller's language, and on **Start a
 * poll**, where "Choose a template" fills the form from one; the poll records the template's key.
 */
import t from "tap"
import { axe, codeSignIn, startBrowsing, submitted } from "./browsing.js"
import { future, seedUser } from "./helpers.js"
import { matchExact } from "./match.js"

t.setTimeout(120_000)

const { s, smtp, browser } = await startBrowsing()
const signIn = codeSignIn(s, smtp)
const ada = await seedUser(s.convene, { name: "Ada", email: "ada@example.org" })
const eve = await seedUser(s.convene, { name: "Eve", email: "eve@example.org" })
const { group } = await s.convene.groups.create({ name: "Board", owner: ada.user })
const A = s.as(ada.apiKey)
const KEYS = ["practice_proposal", "question", "count", "check", "proposal", "meeting", "poll", "dot_vote", "score", "ranked_choice", "advice", "consent", "consensus",
  "gradients_of_agreement"]

t.test("GET /api/b2/poll_templates: the 14 built-ins, in the caller's language", async (t) => {
  const r = await A.get(`api/b2/poll_templates?group_id=${group.id}`)
  t.equal(r.statusCode, 200)
  const list = (r.body as any).poll_templates as Array<any>
  matchExact(t, list.map((p) => p.key), KEYS, "Loomio's, in Loomio's order")
  matchExact(t, list.find((p) => p.key === "consent"), {
    key: "consent", poll_type: "poll", name: "Consent process", process_subtitle: /safe to try/, details: String, options: ["Consent", "Objection"],
    default_duration_in_days: 7, settings: { maximum_stance_choices: 1 }
  })
  matchExact(t, list.find((p) => p.key === "gradients_of_agreement").options.length, 8)
  t.match(list.find((p) => p.key === "question"), { settings: { stance_reason_required: "required" } })
  t.match(list.find((p) => p.key === "dot_vote"), { settings: { dots_per_person: 8 } })
  await s.sql("UPDATE users SET locale = 'de' WHERE id = ?", ada.user.id)
  const de = ((await A.get("api/b2/poll_templates")).body as any).poll_templates as Array<any>
  matchExact(t, de.find((p) => p.key === "consent"), { name: "Konsent", options: ["Zustimmung", "Einwand"] }, "in German for a German reader")
  await s.sql("UPDATE users SET locale = NULL WHERE id = ?", ada.user.id)
  t.equal((await s.as(eve.apiKey).get(`api/b2/poll_templates?group_id=${group.id}`)).statusCode, 403, "not for a group the caller may not see")
})

t.test("a poll records the template it started from; an unknown key is refused", async (t) => {
  const made = await A.post("api/b2/polls", { json: { group_id: group.id, title: "Safe to try?", poll_type: "poll", options: ["Consent", "Objection"], closing_at: future(48), poll_template_key: "consent" } })
  t.equal(made.statusCode, 200)
  t.equal((made.body as any).polls[0].poll_template_key, "consent")
  const bad = await A.post("api/b2/polls", { json: { group_id: group.id, title: "X", poll_type: "poll", options: ["a"], closing_at: future(48), poll_template_key: "no-such" } })
  matchExact(t, [bad.statusCode, (bad.body as any).errors], [422, { poll_template_key: ["is not a template's key"] }])
})

t.test("Start a poll: choose a template, the form is filled from it, the consent poll opens", async (t) => {
  const page = await signIn(await browser.newContext(), "ada@example.org")
  await page.goto(`${s.url}/g/${group.key}`)
  await page.getByRole("link", { name: "Start a poll" }).click()
  t.equal(await page.getByRole("heading", { name: "Choose a template" }).count(), 1, "offered first")
  t.equal(await page.locator("ul.templates a").count(), 15, "the 14 templates and a blank poll")
  await axe(t, page, "choose a template")
  await page.getByRole("link", { name: "Consent process" }).click()
  await page.waitForURL(/\?template=consent$/)
  t.equal(await page.getByRole("note").filter({ hasText: "From the template: Consent process" }).count(), 1)
  t.equal(await page.getByLabel("Poll type").inputValue(), "poll")
  t.equal(await page.getByLabel("Options", { exact: true }).inputValue(), "Consent\nObjection")
  t.match(await page.getByLabel("Details").inputValue(), /safe to try/)
  const closing = Date.parse(`${await page.getByLabel("Closing date").inputValue()}:00Z`)
  t.ok(Math.abs(closing - (Date.now() + 7 * 86_400_000)) < 86_400_000, "closes in a week (its default duration)")
  await page.getByLabel("Title").fill("Try the new rota?")
  await submitted(page, page.getByRole("button", { name: "Start poll" }).click(), "The poll is open.")
  const [poll] = await s.sql<any>("SELECT id, poll_type, poll_template_key FROM polls WHERE title = ?", "Try the new rota?")
  matchExact(t, poll, { id: Number, poll_type: "poll", poll_template_key: "consent" })
  matchExact(t, (await s.sql<any>("SELECT name FROM poll_options WHERE poll_id = ? ORDER BY priority", poll.id)).map((o) => o.name), ["Consent", "Objection"])
  await axe(t, page, "a poll from a template")

  const de = await signIn(await browser.newContext({ locale: "de" }), "eve@example.org")
  await s.convene.members.add({ group, user: eve.user })
  await de.goto(`${s.url}/g/${group.key}/polls/new`)
  t.equal(await de.getByRole("heading", { name: "Vorlage wählen" }).count(), 1, "in German")
  t.equal(await de.getByRole("link", { name: "Zustimmungsstufen" }).count(), 1)
})
