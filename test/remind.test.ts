/**
 * **Remind** (decisions §15): a poll's administrators mail those holding a ballot they have not cast, once a day at
 * most, through the API and the poll page; the mail reaches a real SMTP server; nobody else may.
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
const cy = await seedUser(s.convene, { name: "Cy", email: "cy@example.org" })
const di = await seedUser(s.convene, { name: "Di", email: "di@example.org" })
const { group } = await s.convene.groups.create({ name: "Board", owner: ada.user })
for (const u of [bo, cy, di]) await s.convene.members.add({ group, user: u.user })
const A = s.as(ada.apiKey)
const B = s.as(bo.apiKey)
const poll = (await A.post("api/b2/polls", { json: { group_id: group.id, title: "Approve the accounts?", poll_type: "proposal", closing_at: future(72) } }).then((r) => r.body as any)).polls[0]
await B.post("api/b2/stances", { json: { poll_id: poll.id, option_scores: { agree: 1 } } })
const reminders = async () => (await s.sql<any>("SELECT u.name FROM mail_outbox m JOIN users u ON u.id = m.recipient_user_id WHERE m.kind = 'poll_reminder' ORDER BY u.name")).map((r) => r.name)
const aDayPasses = () => s.sql("UPDATE polls SET reminded_at = ? WHERE id = ?", new Date(Date.now() - 25 * 3600_000).toISOString(), poll.id)

t.test("through the API: only those who have not voted, once a day", async (t) => {
  t.equal((await B.post(`api/b2/polls/${poll.id}/remind`)).statusCode, 403, "a voter who is not the poll's administrator")
  const r = await A.post(`api/b2/polls/${poll.id}/remind`)
  matchExact(t, [r.statusCode, r.body], [200, { reminded: 2 }])
  matchExact(t, await reminders(), ["Cy", "Di"], "not Bo, who voted, nor Ada, who reminds")
  const mail = await smtp.mailTo("cy@example.org", 0, (m) => /reminds you to vote/.test(m.subject ?? ""))
  t.equal(mail.subject, "Ada reminds you to vote: Approve the accounts?", "delivered by SMTP")
  t.match(mail.text, new RegExp(`/p/${poll.key}`), "with the poll's link")

  const again = await A.post(`api/b2/polls/${poll.id}/remind`)
  t.equal(again.statusCode, 429)
  t.ok(Number(again.headers["retry-after"]) > 23 * 3600, "try again in about a day")
  matchExact(t, await reminders(), ["Cy", "Di"], "nothing more sent")

  await s.as(cy.apiKey).post("api/b2/stances", { json: { poll_id: poll.id, option_scores: { disagree: 1 } } })
  await aDayPasses()
  matchExact(t, (await A.post(`api/b2/polls/${poll.id}/remind`)).body, { reminded: 1 }, "a day later: Di alone")
  matchExact(t, await reminders(), ["Cy", "Di", "Di"])
  t.equal((await A.post("api/b2/polls/999999/remind")).statusCode, 404)
})

t.test("on the poll page: the button for its administrators, the notice after", async (t) => {
  await aDayPasses()
  const page = await signIn(await browser.newContext(), "ada@example.org")
  await page.goto(`${s.url}/p/${poll.key}`)
  await submitted(page, page.getByRole("button", { name: "Remind those who have not voted" }).click(), "1 person was reminded by e-mail.")
  await axe(t, page, "poll, reminded")
  await submitted(page, page.getByRole("button", { name: "Remind those who have not voted" }).click(), /reminded less than a day ago/)
  matchExact(t, await reminders(), ["Cy", "Di", "Di", "Di"])
  const voter = await signIn(await browser.newContext(), "bo@example.org")
  await voter.goto(`${s.url}/p/${poll.key}`)
  t.equal(await voter.getByRole("button", { name: "Remind those who have not voted" }).count(), 0, "not for a voter")
  const token = (await voter.context().cookies()).find((c) => c.name === "convene_csrf")!.value
  t.equal((await voter.request.post(`${s.url}/p/${poll.key}/remind`, { form: { csrf: token } })).status(), 403, "a forged POST")
  matchExact(t, await reminders(), ["Cy", "Di", "Di", "Di"], "nothing sent")
})
