/// <reference lib="dom" />
/**
 * A group decides in the browser (decisions §9), in Debian's chromium with mail read from a real SMTP server:
 * three people in separate browser contexts go from invitation to shared outcome; then every other poll type
 * is voted through its page. axe-core checks every page in every state; the refusals, the XSS corpus, the
 * keyboard-only loop, 360 px screens, German and French, and Pacific times are each checked here.
 */
import type { ParsedMail } from "mailparser"
import type { BrowserContext, Page } from "playwright-core"
import t, { type Test } from "tap"
import { axe, codeSignIn, startBrowsing, submitted } from "./browsing.js"
import { browserSession, seedUser, nextYear } from "./helpers.js"
import { matchExact } from "./match.js"

// a whole group's decision in a real browser, checked by axe at every step: longer than tap's 30 s default
t.setTimeout(240_000)

const { s, smtp, browser } = await startBrowsing()

/** Links in mail name BASE_URL; the browser reaches the same path on the test server. */
const local = (href: string) => `${s.url}${new URL(href).pathname}${new URL(href).search}`
const linkIn = (mail: ParsedMail, pattern: RegExp) => local(pattern.exec(mail.text ?? "")![1]!)


/** No page scrolls sideways at 360 px, and every column of a poll's results is on the screen (decisions §9, amended). */
const fitsSmallScreen = async (t: Test, page: Page, state: string) => {
  const size = page.viewportSize()
  await page.setViewportSize({ width: 360, height: 740 })
  const wide = await page.evaluate(() => document.documentElement.scrollWidth)
  t.ok(wide <= 360, `360 px: ${state} is ${wide} px wide`)
  const cells = await page.evaluate(() =>
    Array.from(document.querySelectorAll("table.results th, table.results td"), (c) => c.getBoundingClientRect()).map((r) => ({ right: r.right, width: r.width })))
  const cut = cells.filter((c) => c.right > 360 || c.width === 0)
  t.same(cut, [], `360 px: ${state}: all ${cells.length} cells of the results on the screen`)
  if (size !== null) await page.setViewportSize(size)
}

const signIn = codeSignIn(s, smtp)

const ada = await seedUser(s.convene, { name: "Ada", email: "ada@example.org" })
const { group } = await s.convene.groups.create({ name: "Garden Club", owner: ada.user })
const dialogs: Array<string> = []
const watch = (page: Page) => page.on("dialog", (d) => {
  dialogs.push(d.message())
  void d.dismiss()
})

t.test("three people decide, from invitation to shared outcome", async (t) => {
  const adaContext = await browser.newContext()
  const adaPage = await signIn(adaContext, "ada@example.org")
  watch(adaPage)
  await axe(t, adaPage, "home, signed in")
  await fitsSmallScreen(t, adaPage, "home")

  // Ada invites two people from the group page
  await adaPage.getByRole("link", { name: "Garden Club" }).click()
  await axe(t, adaPage, "group page, admin")
  await adaPage.getByRole("link", { name: "Invite people" }).click()
  await axe(t, adaPage, "invite form")
  await adaPage.getByLabel("E-mail addresses").fill("bea@example.org, not-an-address")
  await adaPage.getByRole("button", { name: "Send invitations" }).click()
  await adaPage.waitForLoadState()
  t.match(await adaPage.locator("#emails-error").textContent(), /not-an-address is not an e-mail address/, "a 422 shows the message beside its field")
  t.equal(await adaPage.getByLabel("E-mail addresses").inputValue(), "bea@example.org, not-an-address", "and keeps the input")
  await axe(t, adaPage, "invite form, refused")
  const before = smtp.received.length
  await adaPage.getByLabel("E-mail addresses").fill("bea@example.org\ncy@example.org")
  await adaPage.getByLabel("Message").fill("Join our garden decisions")
  await adaPage.getByRole("button", { name: "Send invitations" }).click()
  await adaPage.waitForLoadState()
  t.match(await adaPage.locator("[role=status]").textContent(), /2 invitations sent/)

  // both accept from the mail they received
  const people: Record<string, Page> = {}
  for (const [email, name] of [["bea@example.org", "Bea"], ["cy@example.org", "Cy"]] as const) {
    const mail = await smtp.mailTo(email, before)
    t.match(mail.text, /Join our garden decisions/, `${name}'s invitation carries Ada's message`)
    const page = await (await browser.newContext()).newPage()
    watch(page)
    await page.goto(linkIn(mail, /(http:\/\/convene\.test\/invitations\/\S+)/))
    await axe(t, page, "invitation")
    await page.getByLabel("Your name").fill(name)
    await page.getByRole("button", { name: "Accept invitation" }).click()
    await page.waitForURL(new RegExp(`/g/${group.key}$`))
    people[name] = page
  }
  const bea = people.Bea!
  const cy = people.Cy!

  // Bea starts a discussion; the group hears of it
  await bea.goto(`${s.url}/g/${group.key}`)
  await bea.getByRole("link", { name: "Start a discussion" }).click()
  await bea.getByRole("button", { name: "Start discussion" }).click()
  t.equal(await bea.locator("#title:invalid").count(), 1, "the browser asks for a title first")
  await axe(t, bea, "new discussion form")
  let mailsBefore = smtp.received.length
  await bea.getByLabel("Title").fill("Spring planting")
  await bea.getByLabel("Details").fill("What do we plant **first**?")
  await bea.getByRole("button", { name: "Start discussion" }).click()
  await bea.waitForURL(/\/d\/[A-Za-z0-9]+$/)
  const threadUrl = bea.url()
  t.equal(await bea.locator("h1").textContent(), "Spring planting")
  t.equal(await bea.locator(".body strong").first().textContent(), "first", "details are markdown")

  // Cy opens it from the notification mail and comments
  const notice = await smtp.mailTo("cy@example.org", mailsBefore)
  await cy.goto(linkIn(notice, /(http:\/\/convene\.test\/d\/\S+)/))
  t.equal(cy.url().split("?")[0]!.split("#")[0], threadUrl, "the mail's link opens the thread")
  await cy.getByLabel("Comment", { exact: true }).fill("Tomatoes, surely")
  await submitted(cy, cy.getByRole("button", { name: "Post comment" }).last().click(), "Your comment is posted.")
  t.match(await cy.locator("[role=status]").textContent(), /Your comment is posted/)
  await axe(t, cy, "thread page with a comment")

  // Ada replies under Cy's comment
  await adaPage.goto(threadUrl)
  // Reply is a link to the same page with one form under that comment, its field focused (no script needed)
  await adaPage.getByRole("link", { name: "Reply to Cy" }).click()
  const replyForm = adaPage.getByRole("form", { name: "Reply to Cy" })
  t.equal(await adaPage.locator("form textarea").count(), 2, "one reply form, beside the thread's own")
  t.match(await adaPage.evaluate(() => document.activeElement?.id), /^reply-\d+$/, "the reply's field has the focus")
  await axe(t, adaPage, "thread page with a reply form open")
  await adaPage.keyboard.type("Beans first, then tomatoes")
  t.equal(await replyForm.getByLabel("Comment").inputValue(), "Beans first, then tomatoes")
  await submitted(adaPage, replyForm.getByRole("button", { name: "Post comment" }).click(), "Your comment is posted.")
  t.equal(await adaPage.locator(".replies li").count(), 1, "the reply sits under the comment it answers")
  t.match(await adaPage.locator(".replies").textContent(), /Beans first/)

  // controls follow the rules: Cy may edit and delete only his own comment; Bea, not an admin, sees no Close discussion
  await cy.reload()
  t.equal(await cy.getByRole("button", { name: /^Delete the comment of/ }).count(), 1, "Cy can delete one comment: his own")
  t.equal(await bea.getByRole("button", { name: "Close discussion" }).count(), 1, "the author may close her discussion")
  await cy.getByRole("link", { name: "Edit the comment of Cy" }).click()
  await cy.getByLabel("Comment").fill("Tomatoes, surely (cherry ones)")
  await cy.getByRole("button", { name: "Save comment" }).click()
  await cy.waitForURL(/\/d\/[A-Za-z0-9]+#comment-\d+$/)
  t.match(await cy.locator("main").textContent(), /edited[\s\S]*cherry ones/)
  // Delete from the thread page: every comment's button submits the page's one form (one CSRF field, not one a comment)
  await cy.getByLabel("Comment", { exact: true }).last().fill("A second thought")
  await submitted(cy, cy.getByRole("button", { name: "Post comment" }).last().click(), "Your comment is posted.")
  const deletes = cy.getByRole("button", { name: "Delete the comment of Cy" })
  t.equal(await deletes.count(), 2)
  await submitted(cy, deletes.last().click(), "The comment is deleted.")
  t.notMatch(await cy.locator("main").textContent(), /A second thought/, "the comment's text is gone")
  t.match(await cy.locator("main").textContent(), /This comment was deleted\.[\s\S]*$/)
  t.equal(await cy.getByRole("button", { name: "Delete the comment of Cy" }).count(), 1, "his first comment is still there")

  // Bea starts a proposal in the thread
  await bea.goto(threadUrl)
  await bea.getByRole("link", { name: "Start a poll" }).click()
  await axe(t, bea, "new poll form")
  await bea.getByLabel("Title").fill("Plant beans first?")
  await submitted(bea, bea.getByRole("button", { name: "Start poll" }).click(), "The poll is open.")
  const pollUrl = bea.url().split("?")[0]!
  await axe(t, bea, "proposal, open, not voted")
  await fitsSmallScreen(t, bea, "poll page")

  // home lists it for each voter until they vote
  await cy.goto(`${s.url}/`)
  t.match(await cy.locator("main").textContent(), /Waiting for your vote\s*Plant beans first\? · closes/, "waiting for Cy's vote")

  // everyone votes; Cy changes his vote
  for (const [page, choice] of [[adaPage, "Agree"], [bea, "Agree"], [cy, "Disagree"]] as const) {
    await page.goto(pollUrl)
    await page.getByLabel(choice, { exact: true }).check()
    await page.getByLabel("Reason (optional)").fill(`${choice} from me`)
    await submitted(page, page.getByRole("button", { name: "Vote", exact: true }).click(), "Your vote is recorded.")
  }
  await cy.getByLabel("Abstain", { exact: true }).check()
  await submitted(cy, cy.getByRole("button", { name: "Change vote" }).click(), "Your vote is recorded.")
  await axe(t, cy, "proposal, voted")
  await cy.goto(`${s.url}/`)
  t.match(await cy.locator("main").textContent(), /Waiting for your vote\s*No poll is waiting for your vote\./, "and no longer once he has")
  await cy.goto(pollUrl)
  const rows = await cy.locator("table.results tbody tr").allTextContents()
  t.match(rows.join("|"), /Agree\s*2\s*66\.7\s*%[^|]*Ada, Bea\|Abstain\s*1\s*33\.3\s*%[^|]*Cy\|Disagree\s*0\s*0\s*%/, "counts, shares and voters; the changed vote counts once")
  t.equal(await cy.locator("meter").count(), 4, "a bar per option")
  t.equal(await cy.getByRole("button", { name: "Close poll" }).count(), 0, "Cy may not close Bea's poll")

  // Ada (an admin) closes it and shares the outcome; the mail's link opens the poll
  await adaPage.goto(pollUrl)
  await submitted(adaPage, adaPage.getByRole("button", { name: "Close poll" }).click(), "The poll is closed.")
  await adaPage.getByRole("button", { name: "Share outcome" }).click()
  t.equal(await adaPage.locator("#statement:invalid").count(), 1, "an outcome needs words")
  mailsBefore = smtp.received.length
  await adaPage.getByLabel("Outcome").fill("We plant **beans** first.")
  await submitted(adaPage, adaPage.getByRole("button", { name: "Share outcome" }).click(), "The outcome is shared.")
  t.match(await adaPage.locator(".outcome").textContent(), /We plant beans first\./)
  await axe(t, adaPage, "proposal, closed with an outcome")
  const outcomeMail = await smtp.mailTo("bea@example.org", mailsBefore)
  await bea.goto(linkIn(outcomeMail, /(http:\/\/convene\.test\/p\/\S+)/))
  t.match(await bea.locator(".outcome").textContent(), /We plant beans first/, "the outcome mail opens the poll with its outcome")

  // the thread tells the whole story in order
  await bea.goto(threadUrl)
  const story = (await bea.locator("ol.items").textContent())!.replace(/\s+/g, " ")
  t.match(story, /Cy[\s\S]*cherry ones[\s\S]*Beans first[\s\S]*started a poll[\s\S]*Plant beans first\?[\s\S]*closed[\s\S]*shared an outcome[\s\S]*We plant beans first/)
  await axe(t, bea, "thread with poll and outcome")
  t.same(dialogs, [], "no dialog ever opened")
  await adaContext.close()
})

t.test("the six other poll types, each voted through its page", async (t) => {
  const adaPage = await signIn(await browser.newContext(), "ada@example.org")
  const hal = await seedUser(s.convene, { name: "Hal", email: "hal@example.org" })
  await s.convene.members.add({ group, user: hal.user })
  const halPage = await signIn(await browser.newContext({ timezoneId: "America/Los_Angeles" }), "hal@example.org")
  // Hal lives in Los Angeles and says so in his profile
  await halPage.goto(`${s.url}/profile`)
  await axe(t, halPage, "profile")
  await halPage.getByLabel("Time zone").fill("Mars/Olympus")
  await halPage.getByRole("button", { name: "Save" }).click()
  await halPage.waitForLoadState()
  t.match(await halPage.locator("#time_zone-error").textContent(), /Not a time zone/)
  await axe(t, halPage, "profile, refused")
  await halPage.getByLabel("Time zone").fill("America/Los_Angeles")
  await submitted(halPage, halPage.getByRole("button", { name: "Save" }).click(), "Your profile is saved.")

  const start = async (type: string, options: string, settings: Record<string, string> = {}) => {
    await adaPage.goto(`${s.url}/g/${group.key}`)
    await adaPage.getByRole("link", { name: "Start a poll" }).click()
    await adaPage.getByLabel("Poll type").selectOption({ label: type })
    await adaPage.getByLabel("Title").fill(`A ${type}`)
    await adaPage.getByLabel("Options", { exact: true }).fill(options)
    for (const [label, value] of Object.entries(settings)) await adaPage.getByLabel(label).fill(value)
    await submitted(adaPage, adaPage.getByRole("button", { name: "Start poll" }).click(), "The poll is open.")
    return adaPage.url().split("?")[0]!
  }
  const ballotOf = async (url: string) => {
    const key = url.split("/p/")[1]!
    const body = (await s.as(hal.apiKey).get(`api/b2/polls/${key}`)).body as any
    return body.stances.find((st: any) => st.participant_id === hal.user.id)?.option_scores
  }
  const vote = async (url: string, fill: (page: Page) => Promise<void>, state: string) => {
    await halPage.goto(url)
    await axe(t, halPage, `${state}, not voted`)
    await fill(halPage)
    await submitted(halPage, halPage.getByRole("button", { name: "Vote", exact: true }).click(), "Your vote is recorded.")
    await axe(t, halPage, `${state}, voted`)
    await fitsSmallScreen(t, halPage, state)
  }

  const poll = await start("Poll", "Tea\nCoffee\nJuice", { "Maximum choices (poll: more than 1 allows several)": "2" })
  await vote(poll, async (p) => {
    await p.getByLabel("Tea", { exact: true }).check()
    await p.getByLabel("Juice", { exact: true }).check()
  }, "poll, several choices")
  t.same(await ballotOf(poll), { Tea: 1, Juice: 1 })

  const count = await start("Count", "")
  await vote(count, (p) => p.getByLabel("Accept", { exact: true }).check(), "count")
  t.same(await ballotOf(count), { accept: 1 })

  const score = await start("Score", "Rose\nTulip")
  await vote(score, async (p) => {
    await p.getByLabel("Rose", { exact: true }).fill("5")
    await p.getByLabel("Tulip", { exact: true }).fill("2")
  }, "score")
  t.same(await ballotOf(score), { Rose: 5, Tulip: 2 })
  t.match(await halPage.locator("table.results").textContent(), /Rose\s*5\s*5/, "score: total and average")

  const ranked = await start("Ranked choice", "Oak\nElm\nAsh")
  await halPage.goto(ranked)
  t.same(await halPage.locator("select[name^='rank:']").evaluateAll((ss) => ss.map((s) => (s as HTMLSelectElement).value)), ["1", "2", "3"],
    "a fresh ranked ballot starts with distinct ranks")
  await halPage.getByLabel("Oak", { exact: true }).selectOption("2")
  await halPage.getByRole("button", { name: "Vote", exact: true }).click()
  await halPage.waitForLoadState()
  t.match(await halPage.locator("#ballot-error").textContent(), /different rank/, "ranks must differ")
  t.equal(await halPage.getByLabel("Oak", { exact: true }).inputValue(), "2", "the refused ballot is kept")
  await axe(t, halPage, "ranked choice, refused")
  await vote(ranked, async (p) => {
    await p.getByLabel("Ash", { exact: true }).selectOption("1")
    await p.getByLabel("Oak", { exact: true }).selectOption("2")
    await p.getByLabel("Elm", { exact: true }).selectOption("3")
  }, "ranked choice")
  t.same(await ballotOf(ranked), { Ash: 3, Oak: 2, Elm: 1 })

  // Ada (UTC) proposes 17:00 UTC; Hal sees it as 9:00 Pacific
  const meeting = await start("Meeting", "2019-01-15 17:00\n2019-01-16")
  await halPage.goto(meeting)
  t.match(await halPage.locator("fieldset.slot legend").first().textContent(), /9:00\s*AM PST/, "times in the reader's zone, named")
  t.match(await halPage.locator("footer").textContent(), /America\/Los_Angeles/)
  await vote(meeting, async (p) => {
    await p.locator("fieldset.slot").nth(0).getByLabel("Yes").check()
    await p.locator("fieldset.slot").nth(1).getByLabel("Maybe").check()
  }, "meeting")
  t.same(await ballotOf(meeting), { "2019-01-15T17:00:00.000Z": 2, "2019-01-16": 1 })

  const dots = await start("Dot vote", "North bed\nSouth bed", { "Dots per person (dot vote)": "5" })
  await halPage.goto(dots)
  t.match(await halPage.locator("#dots-hint").textContent(), /You have 5 dots to share; 5 are left/)
  await halPage.getByLabel("North bed", { exact: true }).fill("4")
  await halPage.getByLabel("South bed", { exact: true }).fill("3")
  await halPage.getByRole("button", { name: "Vote", exact: true }).click()
  await halPage.waitForLoadState()
  t.match(await halPage.locator("#ballot-error").textContent(), /At most 5 dots/)
  await vote(dots, async (p) => {
    await p.getByLabel("North bed", { exact: true }).fill("3")
    await p.getByLabel("South bed", { exact: true }).fill("2")
  }, "dot vote")
  t.same(await ballotOf(dots), { "North bed": 3, "South bed": 2 })
  t.match(await halPage.locator("#dots-hint").textContent(), /0 are left/)

  // Ada closes the dot vote, then reopens it with a new closing date in her zone; Hal may vote again
  await adaPage.goto(dots)
  await submitted(adaPage, adaPage.getByRole("button", { name: "Close poll" }).click(), "The poll is closed.")
  t.equal(await adaPage.getByRole("button", { name: "Vote", exact: true }).count(), 0, "a closed poll takes no vote")
  await adaPage.getByLabel("Closing date").fill(`${nextYear()}-06-01T12:00`)
  await submitted(adaPage, adaPage.getByRole("button", { name: "Reopen poll" }).click(), "The poll is open again.")
  t.match(await adaPage.locator("main .meta").first().textContent(), new RegExp(`Open · closes .*${nextYear()}`), "open again until the new date")
  await axe(t, adaPage, "dot vote, reopened")
  await halPage.goto(dots)
  t.equal(await halPage.getByRole("button", { name: "Change vote" }).count(), 1, "and Hal may change his vote again")
})

t.test("a refused control is not shown, and a forged POST with a valid token writes nothing", async (t) => {
  const gus = await seedUser(s.convene, { name: "Gus", email: "gus@example.org" })
  await s.convene.members.add({ group, user: gus.user })
  const d = ((await s.as(ada.apiKey).post("api/b2/discussions", { json: { group_id: group.id, title: "Fences" } })).body as any).discussions[0]
  const c = ((await s.as(ada.apiKey).post("api/b2/comments", { json: { discussion_id: d.id, body: "Ada's word" } })).body as any).comments[0]
  const p = ((await s.as(ada.apiKey).post("api/b2/polls", { json: { group_id: group.id, title: "Paint?", poll_type: "proposal", closing_at: new Date(Date.now() + 86_400_000).toISOString() } })).body as any).polls[0]
  const adaMembership = (await s.sql<{ id: number }>(`SELECT id FROM memberships WHERE user_id = ${ada.user.id} AND group_id = ${group.id}`))[0]!.id

  const page = await signIn(await browser.newContext(), "gus@example.org")
  await page.goto(`${s.url}/g/${group.key}/members`)
  await axe(t, page, "members page, member")
  t.equal(await page.getByRole("button", { name: /Make .* an admin|Remove/ }).count(), 0, "a member sees no admin action")
  await page.goto(`${s.url}/d/${d.key}`)
  t.equal(await page.getByRole("button", { name: /^Delete the comment of Ada/ }).count(), 0, "nor another's comment's Delete")
  await page.goto(`${s.url}/p/${p.key}`)
  t.equal(await page.getByRole("button", { name: "Close poll" }).count(), 0, "nor Close poll")

  // the same requests, forged with Gus's valid token
  const cookies = await page.context().cookies()
  const session = browserSession(s.url)
  for (const k of cookies) session.cookies.set(k.name, k.value)
  const snapshot = async () => JSON.stringify(await s.sql(`SELECT
    (SELECT count(*) FROM memberships WHERE admin = TRUE) AS admins, (SELECT count(*) FROM memberships WHERE revoked_at IS NOT NULL) AS revoked,
    (SELECT count(*) FROM comments WHERE discarded_at IS NOT NULL) AS deleted, (SELECT max(updated_at) FROM comments) AS edited,
    (SELECT count(*) FROM polls WHERE closed_at IS NOT NULL) AS closed, (SELECT count(*) FROM topics WHERE closed_at IS NOT NULL) AS closed_threads,
    (SELECT count(*) FROM outcomes) AS outcomes`))
  const before = await snapshot()
  for (const [path, fields] of [
    [`/g/${group.key}/members/${adaMembership}/remove`, {}],
    [`/g/${group.key}/members/${adaMembership}/admin`, {}],
    [`/d/${d.key}/comments/${c.id}/delete`, {}],
    [`/d/${d.key}/comments/${c.id}/edit`, { body: "Gus was here" }],
    [`/p/${p.key}/close`, {}]
  ] as const) {
    const res = await session.post(path, fields)
    t.equal(res.status, 403, `${path}: 403`)
    t.match(res.html, /<html lang="en"[\s\S]*You are not allowed to do that here/, `${path}: a page in the layout`)
  }
  t.equal(await snapshot(), before, "nothing written")
  const invite = await session.post(`/g/${group.key}/invite`, { emails: "x@example.org" })
  t.equal(invite.status, 403, "inviting needs an admin where members may not add members")
  t.equal((await s.sql(`SELECT count(*) AS n FROM users WHERE email = 'x@example.org'`))[0]!.n, 0)

  // an admin's own controls work: Make admin, then Remove (Ivy: Ada's codes this hour are spent by the other tests)
  const ivy = await seedUser(s.convene, { name: "Ivy", email: "ivy@example.org" })
  await s.convene.members.add({ group, user: ivy.user, admin: true })
  const admin = await signIn(await browser.newContext(), "ivy@example.org")
  await admin.goto(`${s.url}/g/${group.key}/members`)
  await axe(t, admin, "members page, admin")
  await submitted(admin, admin.getByRole("button", { name: "Make admin: Gus" }).click(), "Gus is now an administrator.")
  t.match(await admin.locator("[role=status]").textContent(), /Gus is now an administrator/)
  matchExact(t, await s.sql(`SELECT admin FROM memberships WHERE user_id = ${gus.user.id} AND group_id = ${group.id}`), [{ admin: 1 }])
  await submitted(admin, admin.getByRole("button", { name: "Remove Gus" }).click(), "Gus is no longer a member.")
  t.match(await admin.locator("[role=status]").textContent(), /Gus is no longer a member/)
  matchExact(t, await s.sql(`SELECT revoked_at FROM memberships WHERE user_id = ${gus.user.id} AND group_id = ${group.id}`), [{ revoked_at: String }])
  await page.goto(`${s.url}/g/${group.key}`)
  t.equal(await page.getByRole("link", { name: "Start a discussion" }).count(), 0, "removed, Gus starts nothing there")
})

t.test("a group whose settings refuse members: no control to start, close, share or reopen, and forged POSTs write nothing", async (t) => {
  const strict = (await s.convene.groups.create({
    name: "Strict Club", owner: ada.user,
    settings: { members_can_start_discussions: false, members_can_raise_motions: false, members_can_edit_discussions: false, members_can_add_members: false }
  })).group
  const max = await seedUser(s.convene, { name: "Max", email: "max@example.org" })
  await s.convene.members.add({ group: strict, user: max.user })
  const A = s.as(ada.apiKey)
  const d = ((await A.post("api/b2/discussions", { json: { group_id: strict.id, title: "Rules" } })).body as any).discussions[0]
  const closing = new Date(Date.now() + 86_400_000).toISOString()
  const p = ((await A.post("api/b2/polls", { json: { discussion_id: d.id, title: "Strict poll", poll_type: "proposal", closing_at: closing } })).body as any).polls[0]
  await A.post(`api/b2/polls/${p.id}/close`)

  const page = await signIn(await browser.newContext(), "max@example.org")
  await page.goto(`${s.url}/g/${strict.key}`)
  for (const name of ["Start a discussion", "Start a poll", "Invite people"]) t.equal(await page.getByRole("link", { name }).count(), 0, `group page: no ${name}`)
  await page.goto(`${s.url}/d/${d.key}`)
  t.equal(await page.getByRole("button", { name: "Close discussion" }).count(), 0, "thread: no Close discussion")
  t.equal(await page.getByRole("link", { name: "Start a poll" }).count(), 0, "thread: no Start a poll")
  t.equal(await page.getByLabel("Comment", { exact: true }).count(), 1, "but a member still comments")
  await page.goto(`${s.url}/p/${p.key}`)
  t.equal(await page.getByRole("button", { name: "Share outcome" }).count(), 0, "closed poll: no Share outcome")
  t.equal(await page.getByRole("button", { name: "Reopen poll" }).count(), 0, "nor Reopen poll")
  await axe(t, page, "poll page, closed, a member without rights")
  for (const path of [`/g/${strict.key}/discussions/new`, `/g/${strict.key}/polls/new`, `/d/${d.key}/polls/new`, `/g/${strict.key}/invite`]) {
    const res = await page.goto(`${s.url}${path}`)
    t.equal(res!.status(), 404, `GET ${path}: nothing here for Max`)
  }

  const session = browserSession(s.url)
  for (const k of await page.context().cookies()) session.cookies.set(k.name, k.value)
  const snapshot = async () => JSON.stringify(await s.sql(`SELECT (SELECT count(*) FROM discussions) AS discussions, (SELECT count(*) FROM polls) AS polls,
    (SELECT count(*) FROM outcomes) AS outcomes, (SELECT count(*) FROM topics WHERE closed_at IS NOT NULL) AS closed_threads,
    (SELECT count(*) FROM polls WHERE closed_at IS NULL) AS open_polls, (SELECT count(*) FROM memberships) AS memberships`))
  const before = await snapshot()
  for (const [path, fields] of [
    [`/g/${strict.key}/discussions/new`, { title: "Mine" }],
    [`/g/${strict.key}/polls/new`, { poll_type: "proposal", title: "Mine", closing_at: `${nextYear()}-01-01T10:00` }],
    [`/d/${d.key}/polls/new`, { poll_type: "proposal", title: "Mine", closing_at: `${nextYear()}-01-01T10:00` }],
    [`/d/${d.key}/close`, {}],
    [`/p/${p.key}/outcome`, { statement: "Mine" }],
    [`/p/${p.key}/reopen`, { closing_at: `${nextYear()}-01-01T10:00` }],
    [`/g/${strict.key}/invite`, { emails: "y@example.org" }]
  ] as const) {
    t.equal((await session.post(path, fields)).status, 403, `POST ${path}: 403`)
  }
  t.equal(await snapshot(), before, "nothing written")
})

t.test("user content never runs: the XSS corpus on every page", async (t) => {
  const xss = "<img src=x onerror=alert(1)><script>alert(2)</script>"
  const mal = await seedUser(s.convene, { name: `Mal ${xss}`, email: "mal@example.org" })
  const g = (await s.convene.groups.create({ name: `Evil ${xss}`, owner: mal.user })).group
  const M = s.as(mal.apiKey)
  const d = ((await M.post("api/b2/discussions", { json: { group_id: g.id, title: `Title ${xss}`, description: `[click](javascript:alert(3)) ${xss}` } })).body as any).discussions[0]
  await M.post("api/b2/comments", { json: { discussion_id: d.id, body: `<a href="javascript:alert(4)">x</a><svg onload=alert(5)>`, body_format: "html" } })
  await M.post("api/b2/comments", { json: { discussion_id: d.id, body: `Markdown ${xss} [y](javascript:alert(6))` } })
  const p = ((await M.post("api/b2/polls", { json: { discussion_id: d.id, title: `Poll ${xss}`, poll_type: "poll", options: [`Opt ${xss}`, "b"], details: xss, closing_at: new Date(Date.now() + 86_400_000).toISOString() } })).body as any).polls[0]
  await M.post("api/b2/stances", { json: { poll_id: p.id, option_scores: { [`Opt ${xss}`]: 1 }, reason: `Reason ${xss}` } })
  await M.post(`api/b2/polls/${p.id}/close`)
  await M.post("api/b2/outcomes", { json: { poll_id: p.id, statement: `Outcome ${xss} [z](javascript:alert(7))` } })

  const page = await signIn(await browser.newContext(), "mal@example.org")
  const seen: Array<string> = []
  page.on("dialog", (dialog) => {
    seen.push(dialog.message())
    void dialog.dismiss()
  })
  for (const path of ["/", `/g/${g.key}`, `/g/${g.key}/members`, `/d/${d.key}`, `/p/${p.key}`, "/profile", "/profile/api_access"]) {
    await page.goto(`${s.url}${path}`)
    t.equal(await page.locator("main script, main img[onerror], main svg, main [onload]").count(), 0, `${path}: no live markup`)
    t.equal(await page.locator("a[href^='javascript']").count(), 0, `${path}: no javascript: link`)
    if (path !== "/profile") t.match(await page.locator("main").textContent(), /<script>alert\(2\)<\/script>/, `${path}: the text reads as written`)
  }
  t.same(seen, [], "no dialog")
})

t.test("German and French pages; the keyboard alone completes the loop", async (t) => {
  for (const [locale, texts] of [["de-DE", ["Deine Gruppen", "Diskussion beginnen", "Abstimmung beginnen"]], ["fr-FR", ["Vos groupes", "Lancer une discussion", "Lancer un vote"]]] as const) {
    const page = await signIn(await browser.newContext({ locale }), "ada@example.org")
    t.equal(await page.locator("html").getAttribute("lang"), locale.slice(0, 2), `${locale}: <html lang>`)
    t.match(await page.locator("main").textContent(), texts[0])
    await axe(t, page, `home, ${locale}`)
    await page.goto(`${s.url}/g/${group.key}`)
    t.equal(await page.getByRole("link", { name: texts[1] }).count(), 1, `${locale}: ${texts[1]}`)
    t.equal(await page.getByRole("link", { name: texts[2] }).count(), 1, `${locale}: ${texts[2]}`)
    await axe(t, page, `group page, ${locale}`)
  }
  // the profile's language wins over the browser's
  const page = await signIn(await browser.newContext({ locale: "de-DE" }), "hal@example.org")
  await page.goto(`${s.url}/profile`)
  await page.getByLabel("Sprache").selectOption("fr")
  await submitted(page, page.getByRole("button", { name: "Speichern" }).click(), "Votre profil est enregistré.")
  t.equal(await page.locator("html").getAttribute("lang"), "fr")
  t.match(await page.locator("[role=status]").textContent(), /Votre profil est enregistré/)
  // and mail speaks it too: a notification, its button and its footer; a sign-in code
  const halId = (await s.sql<{ id: number }>(`SELECT id FROM users WHERE email = 'hal@example.org'`))[0]!.id
  const before = smtp.received.length
  await s.as(ada.apiKey).post("api/b2/discussions", { json: { group_id: group.id, title: "Compost", recipient_user_ids: [halId] } })
  const notification = await smtp.mailTo("hal@example.org", before)
  t.equal(notification.subject, "Ada a lancé une discussion : Compost", "a French notification")
  t.match(notification.text, /Ada a lancé une discussion : Compost dans Garden Club\.[\s\S]*Ouvrir dans convene: http[\s\S]*Ne plus recevoir les e-mails de ce groupe: http/)
  const asked = smtp.received.length
  const signInForm = browserSession(s.url)
  await signInForm.get("/sign-in")
  await signInForm.post("/sign-in", { email: "hal@example.org" })
  t.match((await smtp.mailTo("hal@example.org", asked)).subject, /^Votre code de connexion convene : \d{6}$/, "a French sign-in code")

  // keyboard only: comment, start a poll, vote, share an outcome
  const kb = await signIn(await browser.newContext(), "ada@example.org")
  const d = ((await s.as(ada.apiKey).post("api/b2/discussions", { json: { group_id: group.id, title: "Keyboard thread" } })).body as any).discussions[0]
  await kb.goto(`${s.url}/d/${d.key}`)
  /** Tabs until the focused element has this accessible name (as a screen reader would reach it). */
  const tabTo = async (name: RegExp) => {
    for (let i = 0; i < 80; i++) {
      await kb.keyboard.press("Tab")
      const label = await kb.evaluate(() => {
        const el = document.activeElement as HTMLElement | null
        if (el === null) return ""
        const byLabel = el.id ? document.querySelector(`label[for="${el.id}"]`)?.textContent : undefined
        return (el.getAttribute("aria-label") ?? byLabel ?? el.textContent ?? "").trim()
      })
      if (name.test(label)) {
        const outline = await kb.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle)
        t.not(outline, "none", `${name}: focus is visible`)
        return
      }
    }
    throw new Error(`never reached ${name} with Tab`)
  }
  await tabTo(/^Comment$/)
  await kb.keyboard.type("Typed with keys alone")
  await tabTo(/^Post comment$/)
  await submitted(kb, kb.keyboard.press("Enter"), "Your comment is posted.")
  await tabTo(/^Start a poll$/)
  await kb.keyboard.press("Enter")
  await kb.waitForURL(/polls\/new$/)
  await tabTo(/^Title$/)
  await kb.keyboard.type("Keys only?")
  await tabTo(/^Start poll$/)
  await submitted(kb, kb.keyboard.press("Enter"), "The poll is open.")
  await tabTo(/^Agree$/)
  await kb.keyboard.press("Space")
  await tabTo(/^Vote$/)
  await submitted(kb, kb.keyboard.press("Enter"), "Your vote is recorded.")
  await tabTo(/^Close poll$/)
  await submitted(kb, kb.keyboard.press("Enter"), "The poll is closed.")
  await tabTo(/^Outcome$/)
  await kb.keyboard.type("Decided by keyboard")
  await tabTo(/^Share outcome$/)
  await submitted(kb, kb.keyboard.press("Enter"), "The outcome is shared.")
  t.match(await kb.locator(".outcome").textContent(), /Decided by keyboard/)
})

t.test("signed out: home, 404 and 403 are pages, never JSON", async (t) => {
  const page = await (await browser.newContext()).newPage()
  await page.goto(`${s.url}/`)
  t.equal(await page.getByRole("link", { name: "Sign in" }).count(), 2, "a Sign in link (header and body)")
  await axe(t, page, "home, signed out")
  await fitsSmallScreen(t, page, "home, signed out")
  const missing = await page.goto(`${s.url}/no/such/page`)
  t.equal(missing!.status(), 404)
  t.match(missing!.headers()["content-type"], /text\/html/)
  await axe(t, page, "404")
  const hidden = await page.goto(`${s.url}/g/${group.key}`)
  t.equal(hidden!.status(), 403)
  t.equal(await page.locator("h1").textContent(), "Sign in to see this")
  await axe(t, page, "403, signed out")
  await page.goto(`${s.url}/sign-in`)
  await axe(t, page, "sign-in")
})
