/**
 * Read state (decisions §13), through the real server and a real browser: what a person has read of each thread
 * (Loomio's reader: ranges of sequence ids, last_read_at, dismissed), "N new" on home and a group's page, a thread
 * read before opening at its first unread item, Mark as read and Mark all as read, the reader fields on discussion
 * records and `PATCH /discussions/{id}/mark_as_read`.
 */
import t from "tap"
import { Threads } from "@convene/core"
import { axe, codeSignIn, startBrowsing, submitted } from "./browsing.js"
import { poster, seedUser } from "./helpers.js"
import { matchExact } from "./match.js"

t.setTimeout(180_000)

const { s, smtp, browser } = await startBrowsing()
const signIn = codeSignIn(s, smtp)
const ada = await seedUser(s.convene, { name: "Ada", email: "ada@example.org" })
const bo = await seedUser(s.convene, { name: "Bo", email: "bo@example.org" })
const A = s.as(ada.apiKey)
const B = s.as(bo.apiKey)
const post = poster(A)
const group = (await post("api/b2/groups", { name: "Orchard" })).groups[0]
await s.convene.members.add({ group: (await s.convene.groups.list()).find((v) => v.group.id === group.id)!.group, user: bo.user })
const comment = (discussionId: number, body: string) => post("api/b2/comments", { discussion_id: discussionId, body })
const readerOf = async (userId: number, discussionId: number) =>
  (await s.sql<{ last_read_at: string | null; read_ranges: string | null; dismissed_at: string | null }>(
    `SELECT r.last_read_at, r.read_ranges, r.dismissed_at FROM topic_readers r JOIN discussions d ON d.topic_id = r.topic_id WHERE r.user_id = ? AND d.id = ?`, userId, discussionId))[0]

t.test("a thread's page marks what it shows read; home and the group show what is new; the thread opens at the first unread item", async (t) => {
  const d = (await post("api/b2/discussions", { group_id: group.id, title: "Pruning the pears" })).discussions[0]
  await comment(d.id, "First, the dead wood.")
  const page = await signIn(await browser.newContext(), "bo@example.org")
  await page.goto(`${s.url}/`)
  const entry = page.locator("#home-threads li", { hasText: "Pruning the pears" })
  t.equal(await entry.locator("strong").textContent(), "Pruning the pears", "never read: bold")
  t.equal((await entry.locator(".count").textContent())!.trim(), "New")
  t.notOk(await readerOf(bo.user.id, d.id), "no reader before Bo opens it")
  // Ada wrote her items: writing counts as reading
  t.match(await readerOf(ada.user.id, d.id), { read_ranges: "1" })

  await entry.getByRole("link", { name: "Pruning the pears" }).click()
  await page.waitForURL(`${s.url}/d/${d.key}`)
  t.equal(await page.locator("#unread").count(), 0, "a thread never read opens at the start, no marker")
  t.match(await readerOf(bo.user.id, d.id), { read_ranges: "1", last_read_at: /^\d{4}-/ }, "the page's items are read")
  // the record's reader fields, for the caller
  // away from the thread (an open thread page reads what arrives: test/live.test.ts)
  await page.goto(`${s.url}/`)
  const record = (await B.get(`api/b2/discussions/${d.id}`)).body as any
  matchExact(t, record.discussions[0], { read_ranges: [[1, 1]], last_read_at: /^\d{4}-/, dismissed_at: null, discussion_reader_volume: null, seen_by_count: 2 })
  matchExact(t, ((await A.get(`api/b2/discussions/${d.id}`)).body as any).discussions[0], { read_ranges: [[1, 1]] }, "each caller their own")

  // two comments from Ada: "2 new" on home and on the group's page, bold
  await comment(d.id, "Then the crossing branches.")
  await comment(d.id, "Never more than a third.")
  await page.goto(`${s.url}/`)
  t.equal((await entry.locator(".count").textContent())!.trim(), "2 new")
  t.equal(await entry.locator("strong").count(), 1)
  await axe(t, page, "home with something new")
  await page.goto(`${s.url}/g/${group.key}`)
  const inGroup = page.locator("main li", { hasText: "Pruning the pears" })
  t.equal((await inGroup.locator(".count").textContent())!.trim(), "2 new")
  t.equal(await inGroup.getByRole("link", { name: "Pruning the pears" }).getAttribute("href"), `/d/${d.key}#unread`, "the link goes to the first unread item")
  await inGroup.getByRole("link", { name: "Pruning the pears" }).click()
  await page.waitForURL(`${s.url}/d/${d.key}#unread`)
  t.equal((await page.locator("#unread").textContent())!.trim(), "New since your last visit")
  t.equal((await page.locator("li.item", { has: page.locator("#unread") }).locator(".body").first().textContent())!.trim(), "Then the crossing branches.", "marked at the first unread comment")
  await axe(t, page, "a thread opened at its first unread item")
  await page.goto(`${s.url}/`)
  t.equal(await entry.locator(".count").count(), 0, "read: nothing new")
  t.equal(await entry.locator("strong").count(), 0, "not bold")
  // writing marks one's own comment read: Bo's comment is not new to Bo
  await s.as(bo.apiKey).post("api/b2/comments", { json: { discussion_id: d.id, body: "Thanks!" } })
  await page.reload()
  t.equal(await entry.locator(".count").count(), 0, "one's own comment is not new")
  t.match(await readerOf(bo.user.id, d.id), { read_ranges: "1-4" })
})

t.test("writing is reading, however many writes come at once: twenty comments posted together are all read by their author", async (t) => {
  const d = ((await B.post("api/b2/discussions", { json: { group_id: group.id, title: "Twenty at once" } })).body as any).discussions[0]
  const posted = await Promise.all(Array.from({ length: 20 }, (_, i) => B.post("api/b2/comments", { json: { discussion_id: d.id, body: `At once ${i}` } })))
  t.ok(posted.every((r) => r.statusCode === 200))
  t.match(await readerOf(bo.user.id, d.id), { read_ranges: "1-20" }, "one range: none of them new to Bo")
  t.same(((await B.get(`api/b2/discussions/${d.id}`)).body as any).discussions[0].read_ranges, [[1, 20]])
})

t.test("a long thread read before opens a few items before its first unread one", async (t) => {
  const d = (await post("api/b2/discussions", { group_id: group.id, title: "Every apple variety" })).discussions[0]
  // a page and a half: the second visit reaches the end
  const n = Threads.THREAD_PAGE + Threads.THREAD_PAGE / 2
  for (let i = 1; i <= n; i++) await comment(d.id, `Variety ${i}`)
  const page = await signIn(await browser.newContext(), "bo@example.org")
  await page.goto(`${s.url}/d/${d.key}`)
  t.equal((await page.locator("ol.items .body").first().textContent())!.trim(), "Variety 1", "never read: the start")
  t.match(await readerOf(bo.user.id, d.id), { read_ranges: `1-${Threads.THREAD_PAGE}` }, "the first page read, not the rest")
  await page.goto(`${s.url}/d/${d.key}`)
  const bodies = (await page.locator("ol.items .body").allTextContents()).map((x) => x.trim())
  const p = Threads.THREAD_PAGE
  t.same(bodies.slice(0, 3), [`Variety ${p - 1}`, `Variety ${p}`, `Variety ${p + 1}`], "two items of context before the first unread")
  t.equal((await page.locator("li.item", { has: page.locator("#unread") }).locator(".body").textContent())!.trim(), `Variety ${p + 1}`)
  t.ok(await page.getByRole("link", { name: "Earlier" }).count() === 1, "the start is a link away")
  t.match(await readerOf(bo.user.id, d.id), { read_ranges: `1-${n}` })
  await page.goto(`${s.url}/d/${d.key}`)
  t.equal((await page.locator("ol.items .body").first().textContent())!.trim(), "Variety 1", "nothing unread: the start again")
  t.equal(await page.locator("#unread").count(), 0)
})

t.test("Mark as read per thread and Mark all as read on home; refused when forged; nothing new again until something happens", async (t) => {
  const one = (await post("api/b2/discussions", { group_id: group.id, title: "Cider press" })).discussions[0]
  const two = (await post("api/b2/discussions", { group_id: group.id, title: "Bird netting" })).discussions[0]
  const page = await signIn(await browser.newContext(), "bo@example.org")
  await page.goto(`${s.url}/`)
  await submitted(page, page.getByRole("button", { name: "Mark as read: Cider press" }).click(), "Marked as read.")
  t.equal(await page.locator("#home-threads li", { hasText: "Cider press" }).locator(".count").count(), 0)
  t.equal(await page.locator("#home-threads li", { hasText: "Bird netting" }).locator(".count").count(), 1, "the other still new")
  t.match(await readerOf(bo.user.id, one.id), { read_ranges: "", last_read_at: /^\d/, dismissed_at: /^\d/ })
  // with the keyboard: Mark all as read
  await page.getByRole("button", { name: "Mark all as read" }).focus()
  await submitted(page, page.keyboard.press("Enter"), "Every thread is marked as read.")
  t.equal(await page.locator("#home-threads .count").count(), 0, "nothing new on home")
  t.equal(await page.getByRole("button", { name: "Mark all as read" }).count(), 0, "and no button while nothing is new")
  t.match(await readerOf(bo.user.id, two.id), { dismissed_at: /^\d/ })
  // new activity brings a thread back
  await comment(two.id, "The blackbirds found a gap.")
  await page.reload()
  t.equal((await page.locator("#home-threads li", { hasText: "Bird netting" }).locator(".count").textContent())!.trim(), "1 new")
  // forged: 403 and nothing written
  const before = await s.sql(`SELECT * FROM topic_readers WHERE user_id = ? ORDER BY id`, bo.user.id)
  t.equal((await page.request.post(`${s.url}/read-all`, { form: { csrf: "forged" } })).status(), 403)
  t.equal((await page.request.post(`${s.url}/d/${two.key}/read`, { form: { csrf: "forged", back: "/" } })).status(), 403)
  t.same(await s.sql(`SELECT * FROM topic_readers WHERE user_id = ? ORDER BY id`, bo.user.id), before, "nothing written")
  // a thread Bo cannot see: 404, nothing written
  const secret = (await post("api/b2/groups", { name: "Ada's own" })).groups[0]
  const hidden = (await post("api/b2/discussions", { group_id: secret.id, title: "Private plans" })).discussions[0]
  await page.goto(`${s.url}/`)
  const csrf = await page.locator("input[name=csrf]").first().getAttribute("value")
  t.equal((await page.request.get(`${s.url}/d/${hidden.key}`)).status(), 404)
  t.equal((await page.request.post(`${s.url}/d/${hidden.key}/read`, { form: { csrf: csrf!, back: "/" } })).status(), 403, "refused (a form the rules refuse: 403)")
  t.notOk(await readerOf(bo.user.id, hidden.id))
  // in German and French, at 360 px
  const de = await (await browser.newContext({ locale: "de", storageState: await page.context().storageState() })).newPage()
  await comment(one.id, "Neue Äpfel.")
  await de.goto(`${s.url}/`)
  t.equal((await de.locator("#home-threads li", { hasText: "Cider press" }).locator(".count").textContent())!.trim(), "1 neu")
  t.equal(await de.getByRole("button", { name: "Als gelesen markieren: Cider press" }).count(), 1)
  await de.setViewportSize({ width: 360, height: 740 })
  t.ok(await de.evaluate(() => document.documentElement.scrollWidth) <= 360, "360 px")
  const fr = await (await browser.newContext({ locale: "fr", storageState: await page.context().storageState() })).newPage()
  await fr.goto(`${s.url}/`)
  t.equal(await fr.getByRole("button", { name: "Tout marquer comme lu" }).count(), 1)
})

t.test("PATCH /discussions/{id}/mark_as_read takes Loomio's ranges; bad ranges 422, a thread the caller cannot read refused, nothing changed", async (t) => {
  const d = (await post("api/b2/discussions", { group_id: group.id, title: "Grafting" })).discussions[0]
  for (let i = 1; i <= 6; i++) await comment(d.id, `Step ${i}`)
  const marked = await B.patch(`api/b2/discussions/${d.id}/mark_as_read`, { json: { ranges: "1-2,5-5" } })
  t.equal(marked.statusCode, 200)
  matchExact(t, (marked.body as any).discussions[0], { read_ranges: [[1, 2], [5, 5]], last_read_at: /^\d{4}-/ })
  const again = await B.patch(`api/b2/discussions/${d.id}/mark_as_read`, { json: { discussion: { ranges: "3-4" } } })
  t.same((again.body as any).discussions[0].read_ranges, [[1, 5]], "merged with what was read")
  t.same((await B.patch(`api/b2/discussions/${d.key}/mark_as_read`, { form: { ranges: "6" } })).statusCode, 200, "by key, as a form")
  t.match(await readerOf(bo.user.id, d.id), { read_ranges: "1-6" })
  for (const bad of ["abc", "1-", "5-3x", "-1"]) {
    const r = await B.patch(`api/b2/discussions/${d.id}/mark_as_read`, { json: { ranges: bad } })
    t.equal(r.statusCode, 422, `"${bad}": 422`)
    matchExact(t, r.body, { errors: { ranges: [/ranges/] } })
  }
  t.equal((await B.patch(`api/b2/discussions/${d.id}/mark_as_read`, { json: {} })).statusCode, 400, "no ranges: 400")
  t.match(await readerOf(bo.user.id, d.id), { read_ranges: "1-6" }, "unchanged")
  const secret = (await post("api/b2/groups", { name: "Closed orchard" })).groups[0]
  const hidden = (await post("api/b2/discussions", { group_id: secret.id, title: "Not yours" })).discussions[0]
  const shown = (await B.get(`api/b2/discussions/${hidden.id}`)).statusCode
  t.ok(shown === 403 || shown === 404)
  t.equal((await B.patch(`api/b2/discussions/${hidden.id}/mark_as_read`, { json: { ranges: "1" } })).statusCode, shown, "refused as reading it is")
  t.notOk(await readerOf(bo.user.id, hidden.id))
  t.equal((await s.api.patch(`api/b2/discussions/${d.id}/mark_as_read`, { json: { ranges: "1" } })).statusCode, (await s.api.get(`api/b2/discussions/${d.id}`)).statusCode, "no key: refused as any call without one")
  // lists carry the fields too
  const list = (await B.get(`api/b2/discussions?group_id=${group.id}`)).body as any
  t.ok(list.discussions.every((x: any) => Array.isArray(x.read_ranges) && "last_read_at" in x && "seen_by_count" in x))
})
