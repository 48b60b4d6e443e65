/**
 * Live pages (decisions §13), through the real server: the raw stream (`GET /live`) carries only what its person may
 * see, a reconnect with Last-Event-ID gets what it missed, a stream without a session is refused, a client that does
 * not read is cut off; in a real browser a thread page, a poll page, home and the header's count change without a
 * reload. On PostgreSQL, several servers: test/live-servers.test.ts.
 */
import { Live, loadAccess, People, Store } from "@convene/core"
import { makeLiveHub } from "@convene/http"
import { Effect } from "effect"
import { EventEmitter } from "node:events"
import t from "tap"
import { axe, codeSignIn, startBrowsing } from "./browsing.js"
import { future, poster, seedUser, until } from "./helpers.js"
import { openStream } from "./sse.js"

t.setTimeout(180_000)

const { s, smtp, browser } = await startBrowsing()
const signIn = codeSignIn(s, smtp)
const ada = await seedUser(s.convene, { name: "Ada", email: "ada@example.org" })
const bo = await seedUser(s.convene, { name: "Bo", email: "bo@example.org" })
const cy = await seedUser(s.convene, { name: "Cy", email: "cy@example.org" })
const A = s.as(ada.apiKey)
const post = poster(A)
const run = <A>(effect: Effect.Effect<A, never, Store>) => Effect.runPromise(Effect.provideService(effect, Store, s.convene.store))
const sessionOf = (userId: number) => run(s.convene.store.transaction(People.startSession(userId)))
const groupOf = async (id: number) => (await s.convene.groups.list()).find((v) => v.group.id === id)!.group

// Ada and Bo in a secret group; Cy in none of it; an open group whose public thread everybody may read
const secret = (await post("api/b2/groups", { name: "Inner circle" })).groups[0]
await s.convene.members.add({ group: await groupOf(secret.id), user: bo.user })
const open = (await post("api/b2/groups", { name: "Town square" })).groups[0]
await A.patch(`api/b2/groups/${open.id}`, { json: { group_privacy: "open" } })
const privateThread = (await post("api/b2/discussions", { group_id: secret.id, title: "Budget draft" })).discussions[0]
const publicThread = (await post("api/b2/discussions", { group_id: open.id, title: "Market day", private: false })).discussions[0]

t.test("a stream carries only what its person may see; a private thread's comment never reaches a non-member", async (t) => {
  const [bos, cys] = await Promise.all([openStream(s.url, await sessionOf(bo.user.id)), openStream(s.url, await sessionOf(cy.user.id))])
  t.teardown(() => (bos.close(), cys.close()))
  t.equal(bos.status, 200)
  await post("api/b2/comments", { discussion_id: privateThread.id, body: "The numbers are in." })
  const heard = await bos.until((e) => e.event === "thread" && e.data.topic_id === privateThread.topic_id)
  t.match(heard, { id: Number, data: { topic_id: privateThread.topic_id, group_id: secret.id } }, "the member hears of it, with an id")
  // a later event Cy may hear: once it is on Cy's stream, the private one would have come before it
  await post("api/b2/comments", { discussion_id: publicThread.id, body: "Stalls from nine." })
  await cys.until((e) => e.data?.topic_id === publicThread.topic_id)
  t.notOk(cys.raw().includes(`"topic_id":${privateThread.topic_id},`), "the raw stream holds nothing of the private thread")
  t.notOk(cys.events.some((e) => e.data?.group_id === secret.id), "nor anything of its group")
  // a reaction and a notification: the notification to its person alone
  await post("api/b2/reactions", { reactable_type: "Discussion", reactable_id: privateThread.id, reaction: "heart" })
  await bos.until((e) => e.event === "reaction" && e.data.topic_id === privateThread.topic_id)
  await post("api/b2/discussions", { group_id: secret.id, title: "Call for volunteers", recipient_user_ids: [bo.user.id] })
  const note = await bos.until((e) => e.event === "notification")
  t.ok(note.data.unseen >= 1, "the count not seen, for the header")
  await post("api/b2/comments", { discussion_id: publicThread.id, body: "Fence." })
  await cys.until((e) => e.data?.topic_id === publicThread.topic_id && e.id > note.id)
  t.notOk(cys.events.some((e) => e.event === "notification"), "Cy hears no one else's notification")
})

t.test("a reconnect with Last-Event-ID receives what it missed; ?since= what happened since the page was made", async (t) => {
  const session = await sessionOf(bo.user.id)
  const first = await openStream(s.url, session)
  await post("api/b2/comments", { discussion_id: privateThread.id, body: "One." })
  const seen = await first.until((e) => e.data?.topic_id === privateThread.topic_id)
  first.close()
  const made = new Date().toISOString()
  await post("api/b2/comments", { discussion_id: privateThread.id, body: "Two, while away." })
  await post("api/b2/comments", { discussion_id: publicThread.id, body: "Three, while away." })
  const again = await openStream(s.url, session, { "last-event-id": String(seen.id) })
  t.teardown(again.close)
  await again.until((e) => e.data?.topic_id === publicThread.topic_id)
  const missed = again.events.filter((e) => e.id > seen.id && e.event === "thread")
  t.same(missed.map((e) => e.data.topic_id), [privateThread.topic_id, publicThread.topic_id], "both missed events, in order")
  t.ok(again.events.every((e) => e.id > seen.id), "nothing it had already")
  const since = await openStream(s.url, session, {}, `?since=${encodeURIComponent(made)}`)
  t.teardown(since.close)
  await since.until((e) => e.data?.topic_id === publicThread.topic_id)
  t.equal(since.events.filter((e) => e.event === "thread").length, 2, "what happened after the page was made")
  // and it keeps listening after the catching up
  await post("api/b2/comments", { discussion_id: privateThread.id, body: "Four, live." })
  await again.until((e) => e.id > missed.at(-1)!.id && e.data?.topic_id === privateThread.topic_id)
})

t.test("without a session: 401, no stream; a client that does not read is cut off and nothing else waits", async (t) => {
  const none = await openStream(s.url, undefined)
  t.equal(none.status, 401)
  none.close()
  const bad = await openStream(s.url, "not-a-session")
  t.equal(bad.status, 401)
  bad.close()
  // the hub itself, with a response that never drains: the stream is dropped at the first event over the limit
  const hub = makeLiveHub(s.convene.store, { maxBuffered: 1_000 })
  t.teardown(hub.close)
  const session = await sessionOf(bo.user.id)
  const req = Object.assign(new EventEmitter(), { headers: { cookie: `convene_session=${session}` } })
  let destroyed = false
  let written = 0
  const res = {
    headersSent: false,
    destroyed: false,
    writableLength: 0,
    writeHead() {
      this.headersSent = true
      return this
    },
    // a client that stopped reading: everything written stays queued
    write(text: string) {
      written += text.length
      this.writableLength += text.length
      return false
    },
    end() {},
    destroy() {
      destroyed = true
      this.destroyed = true
    }
  }
  hub.answer(req as never, res as never, {}, {})
  await until(() => hub.size() === 1)
  t.equal(hub.size(), 1, "the stream is open")
  const good = await openStream(s.url, session)
  t.teardown(good.close)
  for (let i = 0; i < 40; i++) await post("api/b2/comments", { discussion_id: privateThread.id, body: `Flood ${i}` })
  await until(() => destroyed)
  t.ok(destroyed, `the stalled client is disconnected (${written} bytes were waiting)`)
  t.equal(hub.size(), 0)
  await good.until((e) => e.data?.topic_id === privateThread.topic_id && good.events.length >= 40, 10_000)
  t.ok(good.events.length >= 40, "another client heard every event meanwhile")
})

t.test("in the browser: a thread page, a poll page, home and the header's count change without a reload", async (t) => {
  const page = await signIn(await browser.newContext(), "bo@example.org")
  // the thread's latest page (the flood above made it longer than a page): where a new comment lands
  const [latest] = await s.sql<{ n: number }>(`SELECT MAX(sequence_id) AS n FROM topic_items WHERE topic_id = ?`, privateThread.topic_id)
  await page.goto(`${s.url}/d/${privateThread.key}?from=${latest!.n}`)
  await page.evaluate(() => ((window as any).stillHere = true))
  // Bo is typing a reply when Ada's comment arrives: what he typed stays
  await page.getByLabel("Comment", { exact: true }).last().fill("Half a thought")
  const before = Date.now()
  await post("api/b2/comments", { discussion_id: privateThread.id, body: "Arrives without a reload." })
  await page.getByText("Arrives without a reload.").waitFor({ timeout: 5_000 })
  const ms = Date.now() - before
  t.ok(ms < 1_000, `the comment appears within a second (${ms} ms)`)
  t.equal(await page.evaluate(() => (window as any).stillHere), true, "the same page: no reload")
  t.equal(await page.getByLabel("Comment", { exact: true }).last().inputValue(), "Half a thought", "what Bo typed is kept")
  t.equal(await page.locator("#live-status").textContent(), "Updated with new activity.", "a screen reader hears it")
  await axe(t, page, "a thread page updated live")
  // a reply, and a reaction
  const c = (await post("api/b2/comments", { discussion_id: privateThread.id, body: "The first of two." })).comments[0]
  await post("api/b2/comments", { discussion_id: privateThread.id, parent_id: c.id, body: "A reply under it." })
  await page.getByText("A reply under it.").waitFor({ timeout: 5_000 })
  await post("api/b2/reactions", { reactable_type: "Comment", reactable_id: c.id, reaction: "thumbsup" })
  await page.locator(`#comment-${c.id} .reaction`).first().waitFor({ timeout: 5_000 })

  // a poll page: a vote moves its results
  const poll = (await post("api/b2/polls", { group_id: secret.id, title: "Which day?", poll_type: "poll", options: ["Monday", "Friday"], closing_at: future() })).polls[0]
  await page.goto(`${s.url}/p/${poll.key}`)
  await post("api/b2/stances", { poll_id: poll.id, option_scores: { Friday: 1 } })
  await page.locator("#poll-summary", { hasText: "1" }).waitFor({ timeout: 5_000 })
  t.match(await page.locator("#poll-results").textContent(), /Friday/)
  await post(`api/b2/polls/${poll.id}/close`, {})
  await page.locator("#poll-state", { hasText: /Closed/i }).waitFor({ timeout: 5_000 })

  // home: a new thread appears; the header counts the notification
  await page.goto(`${s.url}/`)
  await page.evaluate(() => ((window as any).stillHere = true))
  await post("api/b2/discussions", { group_id: secret.id, title: "Arrived on home", recipient_user_ids: [bo.user.id] })
  await page.locator("#home-threads", { hasText: "Arrived on home" }).waitFor({ timeout: 5_000 })
  await page.locator("#notifications-link .count").waitFor({ timeout: 5_000 })
  t.equal(await page.evaluate(() => (window as any).stillHere), true)
  await axe(t, page, "home updated live")

  // without JavaScript, the pages are the same pages
  const plain = await (await browser.newContext({ javaScriptEnabled: false, storageState: await page.context().storageState() })).newPage()
  await plain.goto(`${s.url}/d/${privateThread.key}?from=${latest!.n}`)
  t.ok(await plain.getByText("Arrives without a reload.").count() >= 1)
})

t.test("the rule that decides who hears what is the thread rule: a member removed hears nothing more", async (t) => {
  const session = await sessionOf(bo.user.id)
  const stream = await openStream(s.url, session)
  t.teardown(stream.close)
  // Ada keeps only herself in the group: Bo is removed while his stream is open
  t.equal((await A.post("api/b2/memberships", { json: { group_id: secret.id, emails: ["ada@example.org"], remove_absent: true } })).statusCode, 200)
  t.same(await s.sql(`SELECT id FROM memberships WHERE group_id = ? AND user_id = ? AND revoked_at IS NULL`, secret.id, bo.user.id), [], "Bo is out")
  await post("api/b2/comments", { discussion_id: privateThread.id, body: "After Bo left." })
  await post("api/b2/comments", { discussion_id: publicThread.id, body: "A fence for Bo." })
  const fence = await stream.until((e) => e.data?.topic_id === publicThread.topic_id && e.event === "thread")
  const after = stream.events.filter((e) => e.data?.topic_id === privateThread.topic_id)
  t.same(after, [], "nothing of the group Bo left")
  // the core's audience agrees with the rule for a single record
  const [event] = await run(s.convene.store.live.after(fence.id - 10, 20)).then((list) => list.filter((e) => e.topic_id === privateThread.topic_id).slice(-1))
  const hears = await run(Live.audienceOf([event!]))
  t.equal(hears(await run(loadAccess(ada.user)), event!), true, "Ada, a member, hears it")
  t.equal(hears(await run(loadAccess(bo.user)), event!), false, "Bo, gone, does not")
})


t.test("the live script's asking again leaves a form's notice for the page the person is sent to", async (t) => {
  const page = await signIn(await browser.newContext(), "ada@example.org")
  // the notice a comment's form leaves for the thread (kit.ts seeOtherDone): its path, its name
  const notice = Buffer.from(`/d/${privateThread.key}\ncommented\n`).toString("base64url")
  await page.context().addCookies([{ name: "convene_notice", value: notice, url: s.url }])
  const live = await page.request.get(`${s.url}/d/${privateThread.key}?from=1`, { headers: { "x-convene-live": "1" } })
  t.equal(live.status(), 200)
  t.notMatch(await live.text(), /Your comment is posted/, "the live request does not show it")
  t.notOk(live.headersArray().some((h) => h.name.toLowerCase() === "set-cookie" && h.value.startsWith("convene_notice=")), "nor spend it")
  await page.goto(`${s.url}/d/${privateThread.key}`)
  t.equal(await page.getByRole("status").filter({ hasText: "Your comment is posted." }).count(), 1, "the page itself says it")
})
