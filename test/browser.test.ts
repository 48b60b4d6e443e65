/**
 * The pages in a real browser (Debian's chromium driven by playwright-core), with mail read from a real
 * SMTP server: the invitation link from the received mail is opened and accepted, a key is generated on
 * the API access page and used on /api/b2/groups; a person signs in by code; votes on a poll page; and
 * unsubscribes from a mail's link.
 */
import type { ParsedMail } from "mailparser"
import t from "tap"
import { matchExact } from "./match.js"
import { axeViolations, startBrowsing, submitted } from "./browsing.js"
import { seedUser } from "./helpers.js"

const { s, smtp, browser } = await startBrowsing()

const mailTo = smtp.mailTo
/** Links in mail name BASE_URL; the browser reaches the same path on the test server. */
const local = (mail: ParsedMail, pattern: RegExp) => `${s.url}${new URL(pattern.exec(mail.text ?? "")![1]!).pathname}`

const ada = await seedUser(s.convene, { name: "Ada", email: "ada@example.org" })
const { group } = await s.convene.groups.create({ name: "Garden Club", owner: ada.user })
const A = s.as(ada.apiKey)

t.test("an invitation from the mail, accepted; a key generated and used on the API", async (t) => {
  const before = smtp.received.length
  await A.post("api/b2/memberships", { json: { group_id: group.id, emails: ["gus@example.org"] } })
  const link = local(await mailTo("gus@example.org", before), /Accept invitation: (\S+)/)
  const page = await browser.newPage()
  await page.goto(link)
  t.equal(await page.locator("h1").textContent(), "You are invited")
  await page.getByLabel("Your name").fill("Gus")
  await page.getByRole("button", { name: "Accept invitation" }).click()
  await page.waitForURL(new RegExp(`/g/${group.key}$`))
  t.equal(await page.locator("h1").textContent(), "Garden Club", "the invited group's page")
  await page.goto(`${s.url}/profile/api_access`)
  t.match(await page.locator("main").textContent(), /Signed in as Gus/)
  t.match(await page.locator("table").textContent(), new RegExp(`${group.id}\\s*${group.key}\\s*Garden Club`))
  await page.getByRole("button", { name: "Generate a new API key" }).click()
  await page.waitForLoadState()
  const key = (await page.locator("#api-key").textContent())!.trim()
  const res = await fetch(`${s.url}/api/b2/groups`, { headers: { authorization: `Bearer ${key}` } })
  t.equal(res.status, 200)
  t.same(((await res.json()) as any).groups.map((g: any) => g.name), ["Garden Club"])
  await page.getByRole("button", { name: "Sign out" }).click()
  await page.waitForURL(/\/sign-in$/)
  await page.close()
})

t.test("sign in by code; vote on a poll page; unsubscribe from a mail link", async (t) => {
  const hal = await seedUser(s.convene, { name: "Hal", email: "hal@example.org" })
  await s.convene.members.add({ group, user: hal.user })
  const context = await browser.newContext()
  const page = await context.newPage()
  await page.goto(`${s.url}/sign-in`)
  await page.getByLabel("E-mail address").fill("hal@example.org")
  let before = smtp.received.length
  await page.getByRole("button", { name: "Send me a code" }).click()
  const code = /\b(\d{6})\b/.exec((await mailTo("hal@example.org", before)).subject ?? "")![1]!
  await page.getByLabel("Code").fill(code)
  await page.getByRole("button", { name: "Sign in", exact: true }).click()
  await page.waitForURL(`${s.url}/`)
  t.match(await page.locator("main").textContent(), /Your groups\s*Garden Club/, "signing in lands on home")

  const poll = ((await A.post("api/b2/polls", { json: { group_id: group.id, title: "Lunch on Friday?", poll_type: "proposal", closing_at: new Date(Date.now() + 86_400_000).toISOString() } })).body as any).polls[0]
  await page.goto(`${s.url}/p/${poll.key}`)
  await page.getByLabel("Agree", { exact: true }).check()
  await page.getByLabel("Reason (optional)").fill("Fridays suit me")
  await submitted(page, page.getByRole("button", { name: "Vote" }).click(), "Your vote is recorded.")
  t.match(await page.locator("[role=status]").textContent(), /Your vote is recorded/)
  t.match(await page.locator("table").textContent(), /Agree\s*1\s*100\s*%/, "results show after voting")
  await page.getByLabel("Disagree", { exact: true }).check()
  await submitted(page, page.getByRole("button", { name: "Change vote" }).click(), "Your vote is recorded.")
  const mine = ((await s.as(hal.apiKey).get(`api/b2/polls/${poll.id}`)).body as any).stances[0]
  t.same(mine.option_scores, { disagree: 1 }, "the vote changed")

  before = smtp.received.length
  await A.post("api/b2/discussions", { json: { group_id: group.id, title: "Seeds", recipient_user_ids: [hal.user.id] } })
  const unsubscribe = local(await mailTo("hal@example.org", before), /Stop these e-mails from this group: (\S+)/)
  const fresh = await browser.newPage()
  await fresh.goto(unsubscribe)
  await fresh.getByRole("button", { name: "Unsubscribe" }).click()
  await fresh.waitForLoadState()
  t.match(await fresh.locator("main").textContent(), /You no longer receive notification e-mails from Garden Club/)
  await context.close()
  await fresh.close()
})

t.test("the accessibility check finds what is wrong: a field without a label, an image without text, a page without a language, text too faint", async (t) => {
  const page = await (await browser.newContext()).newPage()
  await page.setContent(`<!doctype html><html><head><title>Bad</title></head><body><main><input id="a"><img src="data:,"><p style="color:#ccc;background:#fff">faint</p></main></body></html>`)
  matchExact(t, (await axeViolations(page)).map((v) => v.split(":")[0]), ["color-contrast", "html-has-lang", "image-alt", "label"])
})
