/**
 * Who votes (decisions §15): "Who can vote" on the poll form; an invited-only poll refused to a member not invited
 * (API and page); **Invite voters** gives ballots to members and, by address, to guests, who vote through the link
 * their mail carries; refused input writes nothing.
 */
import t from "tap"
import { axe, codeSignIn, startBrowsing, submitted } from "./browsing.js"
import { seedUser } from "./helpers.js"
import { matchExact } from "./match.js"

t.setTimeout(120_000)

const { s, smtp, browser } = await startBrowsing()
const signIn = codeSignIn(s, smtp)
const local = (href: string) => `${s.url}${new URL(href).pathname}${new URL(href).search}`
const ada = await seedUser(s.convene, { name: "Ada", email: "ada@example.org" })
const bo = await seedUser(s.convene, { name: "Bo", email: "bo@example.org" })
const cy = await seedUser(s.convene, { name: "Cy", email: "cy@example.org" })
const { group } = await s.convene.groups.create({ name: "Board", owner: ada.user })
for (const u of [bo, cy]) await s.convene.members.add({ group, user: u.user })
const holders = async (pollId: number) =>
  (await s.sql<any>("SELECT u.email FROM stances s JOIN users u ON u.id = s.participant_id WHERE s.poll_id = ? AND s.latest = TRUE AND s.revoked_at IS NULL ORDER BY u.email", pollId)).map((r) => r.email)

t.test("an invited-only poll from the form; members and a guest invited; the guest votes through their link", async (t) => {
  const page = await signIn(await browser.newContext(), "ada@example.org")
  await page.goto(`${s.url}/g/${group.key}/polls/new`)
  await page.getByLabel("Title").fill("Pick the auditor")
  await page.getByLabel("Who can vote").selectOption({ label: "Invited people only" })
  await submitted(page, page.getByRole("button", { name: "Start poll" }).click(), "The poll is open.")
  const [poll] = await s.sql<any>("SELECT id, key, CASE WHEN specified_voters_only THEN 1 ELSE 0 END AS invited FROM polls WHERE title = ?", "Pick the auditor")
  t.equal(poll.invited, 1, "invited people only")
  matchExact(t, await holders(poll.id), [], "no ballots until people are invited")

  // Cy, a member not invited: refused by the API and by the page
  const refused = await s.as(cy.apiKey).post("api/b2/stances", { json: { poll_id: poll.id, option_scores: { agree: 1 } } })
  t.equal(refused.statusCode, 403)
  const cyPage = await signIn(await browser.newContext(), "cy@example.org")
  await cyPage.goto(`${s.url}/p/${poll.key}`)
  t.match(await cyPage.locator("main").textContent(), /You are not among this poll's voters./)
  t.equal(await cyPage.getByRole("button", { name: "Vote", exact: true }).count(), 0)
  const token = (await cyPage.context().cookies()).find((c) => c.name === "convene_csrf")!.value
  t.equal((await cyPage.request.post(`${s.url}/p/${poll.key}/vote`, { form: { csrf: token, choice: "agree" } })).status(), 403, "a forged vote")
  t.equal((await cyPage.goto(`${s.url}/p/${poll.key}/voters`))!.status(), 404, "nor may Cy invite")

  // Ada invites Bo and a guest by address
  await page.getByRole("link", { name: "Invite voters" }).click()
  await page.waitForURL(`${s.url}/p/${poll.key}/voters`)
  await axe(t, page, "invite voters")
  await page.getByLabel("E-mail addresses").fill("not-an-address")
  await page.getByRole("button", { name: "Send invitations" }).click()
  await page.waitForLoadState()
  t.match(await page.locator("#emails-error").textContent(), /not-an-address is not an e-mail address/, "a bad address, said beside the field")
  matchExact(t, await holders(poll.id), [], "nothing written")
  await page.getByLabel("Bo").check()
  await page.getByLabel("E-mail addresses").fill("gus@example.org")
  const before = smtp.received.length
  await submitted(page, page.getByRole("button", { name: "Send invitations" }).click(), "2 people were invited to vote.")
  matchExact(t, await holders(poll.id), ["bo@example.org", "gus@example.org"], "Bo and the guest hold ballots")

  const mail = await smtp.mailTo("gus@example.org", before)
  const link = /(http:\/\/convene\.test\/invitations\/\S+)/.exec(mail.text ?? "")![1]!
  const gus = await (await browser.newContext()).newPage()
  await gus.goto(local(link))
  await gus.getByLabel("Your name").fill("Gus")
  await gus.getByRole("button", { name: "Accept invitation" }).click()
  await gus.waitForURL(`${s.url}/p/${poll.key}`)
  await gus.getByLabel("Agree", { exact: true }).check()
  await submitted(gus, gus.getByRole("button", { name: "Vote", exact: true }).click(), "Your vote is recorded.")
  const [cast] = await s.sql<any>(`SELECT count(*) AS n FROM stances s JOIN users u ON u.id = s.participant_id WHERE s.poll_id = ? AND u.email = 'gus@example.org' AND s.cast_at IS NOT NULL`, poll.id)
  t.equal(Number(cast.n), 1, "the guest's vote is cast")
})

t.test("through the API: invite voters, and refusals write nothing", async (t) => {
  const poll = (await s.as(ada.apiKey).post("api/b2/polls", { json: { group_id: group.id, title: "API invited", poll_type: "proposal", closing_at: new Date(Date.now() + 86_400_000).toISOString(), specified_voters_only: true } }).then((r) => r.body as any)).polls[0]
  t.equal((await s.as(cy.apiKey).post("api/b2/stances", { json: { poll_id: poll.id, option_scores: { agree: 1 } } })).statusCode, 403, "Cy, not invited")
  t.equal((await s.as(bo.apiKey).patch(`api/b2/polls/${poll.id}`, { json: { recipient_user_ids: [cy.user.id] } })).statusCode, 403, "Bo may not invite")
  t.equal((await s.as(ada.apiKey).patch(`api/b2/polls/${poll.id}`, { json: { recipient_user_ids: [cy.user.id], notify_recipients: true } })).statusCode, 200)
  t.equal((await s.as(cy.apiKey).post("api/b2/stances", { json: { poll_id: poll.id, option_scores: { agree: 1 } } })).statusCode, 200, "invited, Cy votes")
})
