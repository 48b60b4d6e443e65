/**
 * Delegated voting in the browser (decisions §15, §9): an administrator turns it on in the group's settings, a member
 * names a delegate at `/g/{key}/delegation` with the keyboard, sees the vote cast for them on the poll page, revokes;
 * the administrators see every grant and revoke on the members page. axe on each page, 360 px, en/de/fr, and
 * forged or refused POSTs write nothing.
 */
import t from "tap"
import { axe, codeSignIn, startBrowsing, submitted } from "./browsing.js"
import { future, seedUser } from "./helpers.js"
import { matchExact } from "./match.js"

t.setTimeout(180_000)

const { s, smtp, browser } = await startBrowsing()
const signIn = codeSignIn(s, smtp)
const ada = await seedUser(s.convene, { name: "Ada", email: "ada@example.org" })
const bo = await seedUser(s.convene, { name: "Bo", email: "bo@example.org" })
const cy = await seedUser(s.convene, { name: "Cy", email: "cy@example.org" })
const eve = await seedUser(s.convene, { name: "Eve", email: "eve@example.org" })
const { group } = await s.convene.groups.create({ name: "Co-op", owner: ada.user })
await s.convene.members.add({ group, user: bo.user })
await s.convene.members.add({ group, user: cy.user })
const delegations = () => s.sql<any>("SELECT delegator_id, delegate_id, revoked_at IS NOT NULL AS revoked FROM delegations ORDER BY id")
const csrfOf = async (page: import("playwright-core").Page) => (await page.context().cookies()).find((c) => c.name === "convene_csrf")!.value

t.test("an administrator turns delegation on in the group's settings", async (t) => {
  const page = await signIn(await browser.newContext(), "ada@example.org")
  await page.goto(`${s.url}/g/${group.key}/settings`)
  await axe(t, page, "settings with delegation")
  // a limit of 0, past the browser's own check (min="1"): refused, said beside the field, nothing saved
  const refused = await page.request.post(`${s.url}/g/${group.key}/settings`, {
    form: { csrf: await csrfOf(page), name: "Co-op", group_privacy: "secret", membership_granted_upon: "invitation", members_can_delegate: "1", delegation_limit: "0" }
  })
  t.equal(refused.status(), 422)
  t.match(await refused.text(), /id="delegation_limit-error"[^>]*>[^<]*whole number from 1 to 100/)
  matchExact(t, await s.sql("SELECT members_can_delegate FROM groups WHERE id = ?", group.id), [{ members_can_delegate: 0 }])
  await page.getByLabel("Members can delegate their vote").check()
  await page.getByLabel("Most delegations one member holds").fill("3")
  await submitted(page, page.getByRole("button", { name: "Save settings" }).click(), "The group's settings are saved.")
  matchExact(t, await s.sql("SELECT members_can_delegate, delegation_limit FROM groups WHERE id = ?", group.id), [{ members_can_delegate: 1, delegation_limit: 3 }])
})

t.test("a member names a delegate with the keyboard, sees the vote cast for them, and revokes", async (t) => {
  const page = await signIn(await browser.newContext(), "bo@example.org")
  await page.goto(`${s.url}/g/${group.key}`)
  await page.getByRole("link", { name: "Delegate your vote" }).click()
  await page.waitForURL(`${s.url}/g/${group.key}/delegation`)
  t.equal(await page.locator("h1").textContent(), "Delegate your vote in Co-op")
  await axe(t, page, "delegation, none named")
  const options = await page.locator("#delegate_id option").allTextContents()
  matchExact(t, options, ["Choose a member", "Ada", "Cy"], "the other members, not oneself")
  // the keyboard alone: to the select, choose, to the button, Enter
  await page.locator("#delegate_id").focus()
  await page.keyboard.press("ArrowDown")
  await page.keyboard.press("ArrowDown")
  t.equal(await page.locator("#delegate_id").inputValue(), String(cy.user.id), "Cy chosen with the arrow keys")
  await page.keyboard.press("Tab")
  t.equal(await page.evaluate(() => document.activeElement?.textContent), "Delegate my vote", "the button is next")
  await submitted(page, page.keyboard.press("Enter"), "Your delegate is saved.")
  t.match(await page.locator("main").textContent(), /Your delegate is Cy, since/)
  await axe(t, page, "delegation, Cy named")
  matchExact(t, await delegations(), [{ delegator_id: bo.user.id, delegate_id: cy.user.id, revoked: 0 }])

  // Cy votes: Bo's poll page says whose vote stands for him, and the count of delegated votes
  const poll = (await s.as(ada.apiKey).post("api/b2/polls", { json: { group_id: group.id, title: "New roof?", poll_type: "proposal", closing_at: future(48) } }).then((r) => r.body as any)).polls[0]
  t.equal((await s.as(cy.apiKey).post("api/b2/stances", { json: { poll_id: poll.id, option_scores: { agree: 1 } } })).statusCode, 200)
  await page.goto(`${s.url}/p/${poll.key}`)
  t.match(await page.locator("#poll-summary").textContent(), /2 of 3 voters voted\. 1 vote was cast by a delegate\./)
  t.equal(await page.getByRole("note").filter({ hasText: "Cy, your delegate, voted for you." }).count(), 1)
  await axe(t, page, "poll, a vote cast for the reader")

  // 360 px wide: the delegation page does not scroll sideways
  await page.setViewportSize({ width: 360, height: 740 })
  await page.goto(`${s.url}/g/${group.key}/delegation`)
  t.ok(await page.evaluate(() => document.documentElement.scrollWidth) <= 360, "360 px")

  await submitted(page, page.getByRole("button", { name: "Revoke my delegation" }).click(), "Your delegation is revoked")
  t.match(await page.locator("main").textContent(), /You have not named a delegate\./)
  matchExact(t, await delegations(), [{ delegator_id: bo.user.id, delegate_id: cy.user.id, revoked: 1 }])
  const [withdrawn] = await s.sql<any>("SELECT cast_at FROM stances WHERE poll_id = ? AND participant_id = ? AND latest = TRUE", poll.id, bo.user.id)
  t.equal(withdrawn.cast_at, null, "the vote cast through it is withdrawn")
})

t.test("the administrators see every grant and revoke on the members page", async (t) => {
  const page = await signIn(await browser.newContext(), "ada@example.org")
  await page.goto(`${s.url}/g/${group.key}/members`)
  await axe(t, page, "members with delegations")
  const rows = await page.locator("#delegations + table tbody tr").allTextContents()
  t.equal(rows.length, 1)
  t.match(rows[0], /^BoCy.*revoked by Bo$/)
  const member = await signIn(await browser.newContext(), "cy@example.org")
  await member.goto(`${s.url}/g/${group.key}/members`)
  t.equal(await member.locator("#delegations").count(), 0, "not to members")
})

t.test("in German and French", async (t) => {
  for (const [locale, title, button] of [["de", "Deine Stimme in Co-op übertragen", "Meine Stimme übertragen"], ["fr", "Déléguer votre vote dans Co-op", "Déléguer mon vote"]] as const) {
    const page = await signIn(await browser.newContext({ locale }), "cy@example.org")
    await page.goto(`${s.url}/g/${group.key}/delegation`)
    t.equal(await page.locator("h1").textContent(), title, locale)
    t.equal(await page.getByRole("button", { name: button }).count(), 1, locale)
    await axe(t, page, `delegation in ${locale}`)
  }
})

t.test("refused: a forged POST, oneself, a non-member: a clear page, nothing written", async (t) => {
  const before = await delegations()
  const page = await signIn(await browser.newContext(), "bo@example.org")
  const url = `${s.url}/g/${group.key}/delegation`
  t.equal((await page.request.post(url, { form: { delegate_id: String(cy.user.id) } })).status(), 403, "no CSRF token")
  const self = await page.request.post(url, { form: { csrf: await csrfOf(page), delegate_id: String(bo.user.id) } })
  t.equal(self.status(), 422)
  t.match(await self.text(), /can(&#39;|')t be yourself/, "said beside the field")
  const outsider = await signIn(await browser.newContext(), "eve@example.org")
  t.equal((await outsider.goto(url))!.status(), 404, "a non-member does not see a secret group's page")
  t.equal((await outsider.request.post(url, { form: { csrf: await csrfOf(outsider), delegate_id: String(cy.user.id) } })).status(), 403, "refused")
  t.same(await delegations(), before, "nothing written")
})
