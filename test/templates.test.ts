/**
 * Poll templates (decisions §15): Loomio's 14 built-ins over the API in the caller's language, and on **Start a
 * poll**, where "Choose a template" fills the form from one; the poll records the template's key. A group's own
 * templates at `/g/{key}/templates` (its administrators: add, edit — a built-in edited becomes the group's copy —
 * hide, order), offered in the group's order by the chooser and the API; a poll records `poll_template_id`. axe,
 * keyboard, 360 px, en/de/fr, and refused or forged POSTs that write nothing.
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
// one signed-in browser per person (sign-in codes are rate limited per address)
let adaPage: import("playwright-core").Page | undefined
const asAda = async () => (adaPage ??= await signIn(await browser.newContext(), "ada@example.org"))
const csrfOf = async (page: import("playwright-core").Page) => (await page.context().cookies()).find((c) => c.name === "convene_csrf")!.value
let evePage: import("playwright-core").Page | undefined
const eveDe = async () => (evePage ??= await signIn(await browser.newContext({ locale: "de" }), "eve@example.org"))
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
  const page = await asAda()
  await page.goto(`${s.url}/g/${group.key}`)
  await page.getByRole("link", { name: "Start a poll" }).click()
  await page.waitForLoadState()
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

  // a proposal's template starts with its own options (Loomio's practice proposal has no Block)
  await page.goto(`${s.url}/g/${group.key}/polls/new?template=practice_proposal`)
  t.equal(await page.getByLabel("Options", { exact: true }).inputValue(), "agree\nabstain\ndisagree")
  await page.getByLabel("Title").fill("Practise on the rota")
  await submitted(page, page.getByRole("button", { name: "Start poll" }).click(), "The poll is open.")
  const [practice] = await s.sql<any>("SELECT id FROM polls WHERE title = ?", "Practise on the rota")
  matchExact(t, (await s.sql<any>("SELECT name FROM poll_options WHERE poll_id = ? ORDER BY priority", practice.id)).map((o) => o.name), ["agree", "abstain", "disagree"])

  const de = await eveDe()
  await s.convene.members.add({ group, user: eve.user })
  await de.goto(`${s.url}/g/${group.key}/polls/new`)
  t.equal(await de.getByRole("heading", { name: "Vorlage wählen" }).count(), 1, "in German")
  t.equal(await de.getByRole("link", { name: "Zustimmungsstufen" }).count(), 1)
})

/** The selects a template's form always sends. */
const SETTINGS = { voters: "group", stance_reason_required: "optional", notify_on_closing_soon: "nobody", hide_results: "off" }
const ownTemplates = () => s.sql<any>("SELECT id, source_key, poll_type, process_name, process_subtitle, poll_options, default_duration_in_days, settings, position, discarded_at FROM poll_templates WHERE group_id = ? ORDER BY id", group.id)
const groupRow = async () => (await s.sql<any>("SELECT hidden_poll_templates, poll_template_positions FROM groups WHERE id = ?", group.id))[0]
const json = (v: unknown) => (typeof v === "string" ? JSON.parse(v) : v)
/** The names in the templates table, each with its state. */
const rows = async (page: import("playwright-core").Page) =>
  page.locator("table tbody tr").evaluateAll((trs) => trs.map((tr) => `${tr.children[0]!.textContent} (${tr.children[2]!.textContent})`))

t.test("a group's own templates: add, edit a built-in (the group's copy), hide, order; the chooser and the API follow", async (t) => {
  const page = await asAda()
  await page.goto(`${s.url}/g/${group.key}`)
  await page.getByRole("link", { name: "Poll templates" }).click()
  await page.waitForLoadState()
  t.equal(await page.locator("h1").textContent(), "Poll templates of Board")
  t.equal(await page.locator("table tbody tr").count(), 14, "the built-ins")
  await axe(t, page, "the templates page")

  // add one: a dot vote of the group's
  await page.getByRole("link", { name: "Add a template" }).click()
  await page.getByLabel("Name", { exact: true }).fill("Budget round")
  await page.getByLabel("What it is for").fill("Share out the year's budget")
  await page.getByLabel("Poll type").selectOption("dot_vote")
  await page.getByLabel("Options", { exact: true }).fill("Rent\nFood\nTravel")
  await page.getByLabel("Days open").fill("10")
  await page.getByLabel("Dots per person").fill("12")
  await axe(t, page, "a new template")
  await submitted(page, page.getByRole("button", { name: "Save template" }).click(), "The templates are saved.")
  const [budget] = await ownTemplates()
  matchExact(t, { ...budget, poll_options: json(budget.poll_options), settings: json(budget.settings) }, {
    id: Number, source_key: null, poll_type: "dot_vote", process_name: "Budget round", process_subtitle: "Share out the year's budget", poll_options: ["Rent", "Food", "Travel"],
    default_duration_in_days: 10, settings: { anonymous: false, hide_results: "off", allow_delegated_votes: true, stance_reason_required: "optional", shuffle_options: false,
      notify_on_closing_soon: "nobody", specified_voters_only: false, dots_per_person: 12 }, position: 14, discarded_at: null
  })
  t.equal((await rows(page)).at(-1), "Budget round (Shown)", "last in the list")

  // edit a built-in: the group's copy takes its place, the built-in is hidden
  await page.getByRole("link", { name: "Edit Consent process" }).click()
  await page.waitForLoadState()
  t.equal(await page.getByRole("note").filter({ hasText: "This is a built-in template" }).count(), 1)
  t.equal(await page.getByLabel("Options", { exact: true }).inputValue(), "Consent\nObjection", "filled from the built-in")
  await page.getByLabel("Name", { exact: true }).fill("Consent, our way")
  await page.getByLabel("Reason").selectOption("required")
  await submitted(page, page.getByRole("button", { name: "Save template" }).click(), "The templates are saved.")
  const copy = (await ownTemplates()).find((r) => r.source_key === "consent")
  matchExact(t, { name: copy.process_name, position: copy.position, reason: json(copy.settings).stance_reason_required, options: json(copy.poll_options) },
    { name: "Consent, our way", position: 11, reason: "required", options: ["Consent", "Objection"] })
  matchExact(t, json((await groupRow()).hidden_poll_templates), ["consent"])
  const list = await rows(page)
  t.equal(list.indexOf("Consent, our way (Shown)"), list.indexOf("Consent process (Hidden)") + 1, "in the built-in's place")
  t.match(await page.locator("table tbody tr", { hasText: "Consent, our way" }).textContent(), /edited from Consent process/)

  // edit the group's own: changed in place
  await page.getByRole("link", { name: "Edit Budget round" }).click()
  await page.getByLabel("Days open").fill("14")
  await submitted(page, page.getByRole("button", { name: "Save template" }).click(), "The templates are saved.")
  t.equal((await ownTemplates()).length, 2, "no copy of the group's own")
  t.equal((await ownTemplates())[0].default_duration_in_days, 14)

  // hide one, with the keyboard move one up
  await submitted(page, page.getByRole("button", { name: "Hide Sense check" }).click(), "The templates are saved.")
  t.ok((await rows(page)).includes("Sense check (Hidden)"))
  await page.getByRole("button", { name: "Move up: Budget round" }).focus()
  await submitted(page, page.keyboard.press("Enter"), "The templates are saved.")
  const moved = await rows(page)
  t.equal(moved.at(-2), "Budget round (Shown)", "one place up")
  t.equal(moved.at(-1), "Gradients of agreement (Shown)")
  t.equal(await page.getByRole("button", { name: "Move down: Budget round" }).count(), 1)
  t.equal(await page.getByRole("button", { name: "Move up: Practice proposal" }).count(), 0, "the first has no Move up")
  await axe(t, page, "the templates page after changes")

  // the chooser offers the group's list in its order, hidden ones left out
  await page.goto(`${s.url}/g/${group.key}/polls/new`)
  const offered = await page.locator("ul.templates a").allTextContents()
  t.notOk(offered.includes("Sense check"), "hidden: not offered")
  t.notOk(offered.includes("Consent process"), "the edited built-in: not offered")
  t.equal(offered.indexOf("Consent, our way"), 10, "the copy in the built-in's place")
  t.same(offered.slice(-3), ["Budget round", "Gradients of agreement", "Blank poll"])
  await page.getByRole("link", { name: "Budget round" }).click()
  t.equal(await page.getByLabel("Poll type").inputValue(), "dot_vote")
  t.equal(await page.getByLabel("Options", { exact: true }).inputValue(), "Rent\nFood\nTravel")
  t.equal(await page.getByLabel("Dots per person").inputValue(), "12")
  const closing = Date.parse(`${await page.getByLabel("Closing date").inputValue()}:00Z`)
  t.ok(Math.abs(closing - (Date.now() + 14 * 86_400_000)) < 86_400_000, "closes in its 14 days")
  await page.getByLabel("Title").fill("Budget 2027")
  await submitted(page, page.getByRole("button", { name: "Start poll" }).click(), "The poll is open.")
  const [poll] = await s.sql<any>("SELECT poll_type, dots_per_person, poll_template_key, poll_template_id FROM polls WHERE title = ?", "Budget 2027")
  matchExact(t, poll, { poll_type: "dot_vote", dots_per_person: 12, poll_template_key: null, poll_template_id: budget.id })

  // the API: the group's list, in its order, hidden ones left out
  const api = ((await A.get(`api/b2/poll_templates?group_id=${group.id}`)).body as any).poll_templates as Array<any>
  matchExact(t, api.map((p) => p.name), offered.slice(0, -1))
  matchExact(t, api.find((p) => p.name === "Budget round"), {
    id: budget.id, key: null, source_key: null, poll_type: "dot_vote", name: "Budget round", process_subtitle: "Share out the year's budget", details: "",
    options: ["Rent", "Food", "Travel"], default_duration_in_days: 14, position: 14, settings: Object
  })
  t.equal(api.find((p) => p.name === "Consent, our way").source_key, "consent")

  // show it again
  await page.goto(`${s.url}/g/${group.key}/templates`)
  await submitted(page, page.getByRole("button", { name: "Show Sense check" }).click(), "The templates are saved.")
  t.ok((await rows(page)).includes("Sense check (Shown)"))
})

t.test("a poll's template must be the group's own, shown, and one of key or id", async (t) => {
  const [budget] = await ownTemplates()
  const other = await s.convene.groups.create({ name: "Other", owner: ada.user })
  const poll = (json: object) => A.post("api/b2/polls", { json: { title: "X", poll_type: "poll", options: ["a"], closing_at: future(48), ...json } })
  const elsewhere = await poll({ group_id: other.group.id, poll_template_id: budget.id })
  matchExact(t, [elsewhere.statusCode, (elsewhere.body as any).errors], [422, { poll_template_id: ["is not one of the group's templates"] }])
  const both = await poll({ group_id: group.id, poll_template_id: budget.id, poll_template_key: "poll" })
  matchExact(t, [both.statusCode, (both.body as any).errors], [422, { poll_template_id: ["give poll_template_key or poll_template_id, not both"] }])
  const ok = await poll({ group_id: group.id, poll_template_id: budget.id })
  t.equal((ok.body as any).polls[0].poll_template_id, budget.id)
})

t.test("refused and bad input: a clear page, nothing written; a member who is not an administrator may not", async (t) => {
  const before = [await ownTemplates(), await groupRow()]
  const page = await asAda()
  const url = `${s.url}/g/${group.key}/templates`
  t.equal((await page.request.post(url, { form: { ...SETTINGS, process_name: "Forged", poll_type: "poll", default_duration_in_days: "3" } })).status(), 403, "no CSRF token")
  const bad = await page.request.post(url, { form: { csrf: await csrfOf(page), ...SETTINGS, process_name: "Long", poll_type: "poll", default_duration_in_days: "0" } })
  t.equal(bad.status(), 422)
  t.match(await bad.text(), /must be a whole number from 1 to 365/, "said beside the field")
  await page.goto(`${url}/new`)
  await page.getByLabel("Name", { exact: true }).fill("Proposal of ours")
  await page.getByLabel("Poll type").selectOption("proposal")
  await page.getByLabel("Options", { exact: true }).fill("yes\nno")
  await page.getByRole("button", { name: "Save template" }).click()
  t.equal(await page.getByLabel("Options", { exact: true }).getAttribute("aria-invalid"), "true", "the field is marked")
  t.equal(await page.getByLabel("Name", { exact: true }).inputValue(), "Proposal of ours", "what was typed is kept")
  t.equal((await page.request.post(`${url}/no-such-key/hide`, { form: { csrf: await csrfOf(page) } })).status(), 404)
  t.equal((await page.request.post(`${url}/999999/up`, { form: { csrf: await csrfOf(page) } })).status(), 404)
  t.equal((await page.goto(`${url}/424242/edit`))!.status(), 404)

  const eve = await eveDe()
  t.equal((await eve.goto(url))!.status(), 404, "a member who is not an administrator: not found (as every page refused to a reader)")
  await eve.goto(`${s.url}/g/${group.key}`)
  t.equal(await eve.getByRole("link", { name: "Abstimmungsvorlagen" }).count(), 0, "no link for her")
  for (const action of ["", "/consent", "/proposal/hide", "/proposal/down"]) {
    const r = await eve.request.post(`${url}${action}`, { form: { csrf: await csrfOf(eve), ...SETTINGS, process_name: "Mine", poll_type: "poll", default_duration_in_days: "3" } })
    t.equal(r.status(), 403, `refused: POST ${action || "/"}`)
  }
  matchExact(t, [await ownTemplates(), await groupRow()], before, "nothing written")
})

t.test("the templates pages at 360 px, in German and French", async (t) => {
  const page = await asAda()
  await page.setViewportSize({ width: 360, height: 740 })
  for (const path of ["templates", "templates/new", "templates/consent/edit"]) {
    await page.goto(`${s.url}/g/${group.key}/${path}`)
    t.ok(await page.evaluate(() => document.documentElement.scrollWidth) <= 360, `${path} at 360 px`)
  }
  await page.setViewportSize({ width: 1280, height: 800 })
  for (const [locale, title, add] of [["de", "Abstimmungsvorlagen von Board", "Vorlage hinzufügen"], ["fr", "Modèles de vote de Board", "Ajouter un modèle"]] as const) {
    await s.sql("UPDATE users SET locale = ? WHERE id = ?", locale, ada.user.id)
    await page.goto(`${s.url}/g/${group.key}/templates`)
    t.equal(await page.locator("h1").textContent(), title, locale)
    t.equal(await page.getByRole("link", { name: add }).count(), 1, locale)
    await axe(t, page, `templates in ${locale}`)
  }
  await s.sql("UPDATE users SET locale = NULL WHERE id = ?", ada.user.id)
})
