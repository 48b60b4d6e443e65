/**
 * Keeping up in the browser (decisions §13): searching from the header with the API's visibility, results grouped by
 * type with their highlight, filtered by group and type; reacting under comments, polls, votes and outcomes.
 */
import t from "tap"
import { axe, codeSignIn, startBrowsing, submitted } from "./browsing.js"
import { future, poster, seedUser } from "./helpers.js"
import { Comments, loadAccess, Store, Threads } from "@convene/core"
import { Effect } from "effect"

t.setTimeout(120_000)

const { s, smtp, browser } = await startBrowsing()
const signIn = codeSignIn(s, smtp)
const ada = await seedUser(s.convene, { name: "Ada", email: "ada@example.org" })
const bo = await seedUser(s.convene, { name: "Bo", email: "bo@example.org" })
const boUser = bo.user
const A = s.as(ada.apiKey)
const post = poster(A)

t.test("search: from the header, what the reader may see, grouped by type, filtered by group and type", async (t) => {
  const secret = (await post("api/b2/groups", { name: "Compost" })).groups[0]
  const open = (await post("api/b2/groups", { name: "Allotment" })).groups[0]
  await A.patch(`api/b2/groups/${open.id}`, { json: { group_privacy: "open" } })
  const hidden = (await post("api/b2/discussions", { group_id: secret.id, title: "Worm bins", description: "Which worms eat most?" })).discussions[0]
  await post("api/b2/comments", { discussion_id: hidden.id, body: "Red worms, I think." })
  const shown = (await post("api/b2/discussions", { group_id: open.id, title: "A worm farm for all", description: "Open to everyone.", private: false })).discussions[0]
  await post("api/b2/polls", { group_id: open.id, title: "Buy worms?", poll_type: "proposal", closing_at: future() })

  const page = await signIn(await browser.newContext(), "ada@example.org")
  await page.getByRole("link", { name: "Search", exact: true }).click()
  await page.waitForURL(`${s.url}/search`)
  await axe(t, page, "search")
  await page.getByLabel("Search", { exact: true }).fill("worms")
  await page.getByRole("button", { name: "Search" }).click()
  await page.waitForURL(/q=worms/)
  await axe(t, page, "search results")
  t.same(await page.locator("main section h2").allTextContents(), ["Discussions", "Comments", "Polls"], "grouped by type")
  t.match(await page.locator("main").innerHTML(), /<b>worms?<\/b>/i, "the matched words highlighted")
  t.ok(await page.getByRole("link", { name: "Worm bins" }).count() >= 1, "Ada sees her secret group's thread")
  // filters
  await page.getByLabel("Type").selectOption("Comment")
  await page.getByRole("button", { name: "Search" }).click()
  await page.waitForURL(/type=Comment/)
  t.same(await page.locator("main section h2").allTextContents(), ["Comments"])
  t.equal(await page.locator("main ol.results a").first().getAttribute("href"), `/d/${hidden.key}#comment-${(await s.sql<{ id: number }>(`SELECT id FROM comments WHERE discussion_id = ?`, hidden.id))[0]!.id}`)
  await page.goto(`${s.url}/search?q=worm&group=${open.key}`)
  t.notOk(await page.getByRole("link", { name: "Worm bins" }).count(), "only the group chosen")
  t.ok(await page.getByRole("link", { name: "A worm farm for all" }).count() >= 1)

  // Bo is in neither group: only what is public
  const bo = await signIn(await browser.newContext(), "bo@example.org")
  await bo.goto(`${s.url}/search?q=worms`)
  t.equal(await bo.getByRole("link", { name: "Worm bins" }).count(), 0, "never a secret group's thread")
  t.ok(await bo.getByRole("link", { name: "A worm farm for all" }).count() >= 1, "a public one")
  t.notOk((await bo.locator("main").textContent())!.includes("Red worms"), "nor its comment")
  // a visitor too
  const visitor = await (await browser.newContext()).newPage()
  await visitor.goto(`${s.url}/search?q=worm`)
  t.equal(await visitor.getByRole("link", { name: "Worm bins" }).count(), 0)
  t.ok(await visitor.getByRole("link", { name: "A worm farm for all" }).count() >= 1)
  await visitor.setViewportSize({ width: 360, height: 740 })
  t.ok(await visitor.evaluate(() => document.documentElement.scrollWidth) <= 360, "360 px")
  // a query of punctuation only, and a type that is none: a page, not an error
  t.equal((await visitor.goto(`${s.url}/search?q=${encodeURIComponent("%%% ***")}&type=Nope`))!.status(), 200)
  void shown
  const de = await (await browser.newContext({ locale: "de" })).newPage()
  await de.goto(`${s.url}/search?q=worm`)
  t.equal(await de.locator("h1").textContent(), "Suche")
  t.equal(await de.getByRole("link", { name: "Suche", exact: true }).count(), 1, "the header's link, in German")
})

t.test("reactions under comments: React with Loomio's emoji, counts and names, one's own removed; a non-member cannot", async (t) => {
  const group = (await post("api/b2/groups", { name: "Bees" })).groups[0]
  await s.convene.members.add({ group: (await s.convene.groups.list()).find((v) => v.group.id === group.id)!.group, user: boUser })
  const d = (await post("api/b2/discussions", { group_id: group.id, title: "Swarm season" })).discussions[0]
  const c = (await post("api/b2/comments", { discussion_id: d.id, body: "The first swarm is out." })).comments[0]
  const page = await signIn(await browser.newContext(), "bo@example.org")
  await page.goto(`${s.url}/d/${d.key}`)
  await axe(t, page, "a comment to react to")
  await page.getByRole("link", { name: "React to Ada's comment" }).click()
  await axe(t, page, "the emoji to react with")
  await page.getByRole("button", { name: "React with 🎉" }).click()
  await page.waitForURL(new RegExp(`/d/${d.key}#comment-${c.id}$`))
  await axe(t, page, "a reaction")
  t.equal(await page.getByRole("button", { name: "🎉 1: remove yours (Bo)" }).count(), 1, "Bo's own, removable")
  await A.post("api/b2/reactions", { json: { reactable_type: "Comment", reactable_id: c.id, reaction: "🎉" } })
  await page.reload()
  t.equal(await page.getByRole("button", { name: "🎉 2: remove yours (Bo, Ada)" }).count(), 1, "counted, with names")
  // the same emoji twice by one person counts once
  await page.getByRole("link", { name: "React to Ada's comment" }).click()
  await page.getByRole("button", { name: "React with 🎉" }).click()
  await page.waitForURL(/#comment-/)
  t.equal(await page.getByRole("button", { name: /🎉 2: remove yours/ }).count(), 1)
  await page.getByRole("button", { name: /🎉 \d+: remove yours/ }).click()
  await page.waitForLoadState()
  t.equal(await page.getByRole("button", { name: /🎉 \d+: remove yours/ }).count(), 0, "removed")
  t.match(await page.locator(".reactions").first().textContent(), /🎉\s*1/, "Ada's stays")
  t.equal(countOf(await s.sql(`SELECT count(*) AS n FROM reactions WHERE reactable_id = ?`, c.id)), 1)

  // Cy is not in the group: no React, and a forged one writes nothing
  const cy = await seedUser(s.convene, { name: "Cy", email: "cy@example.org" })
  void cy
  const cyPage = await signIn(await browser.newContext(), "cy@example.org")
  t.equal((await cyPage.goto(`${s.url}/d/${d.key}`))!.status(), 404)
  t.equal((await cyPage.goto(`${s.url}/reactions/new?type=Comment&id=${c.id}&back=/d/${d.key}`))!.status(), 404, "no emoji to react with")
  const token = (await cyPage.context().cookies()).find((x) => x.name === "convene_csrf")!.value
  const forged = await cyPage.request.post(`${s.url}/reactions`, { form: { csrf: token, reactable_type: "Comment", reactable_id: String(c.id), reaction: "👎", back: `/d/${d.key}` } })
  t.equal(forged.status(), 404)
  const [ada] = await s.sql<{ id: number }>(`SELECT id FROM reactions WHERE reactable_id = ?`, c.id)
  t.equal((await cyPage.request.post(`${s.url}/reactions/${ada!.id}/delete`, { form: { csrf: token, back: "/" } })).status(), 403, "nor removes another's")
  t.equal((await cyPage.request.post(`${s.url}/reactions`, { form: { reactable_type: "Comment", reactable_id: String(c.id), reaction: "👎", back: "/" } })).status(), 403, "no token")
  t.equal(countOf(await s.sql(`SELECT count(*) AS n FROM reactions WHERE reactable_id = ?`, c.id)), 1, "nothing written")
})

/** The count a `SELECT count(*) AS n` answered. */
function countOf(rows: ReadonlyArray<unknown>) {
  return (rows[0] as { n: number }).n
}

t.test("reactions under a poll and its outcome, on the poll page", async (t) => {
  const group = (await post("api/b2/groups", { name: "Hives" })).groups[0]
  await s.convene.members.add({ group: (await s.convene.groups.list()).find((v) => v.group.id === group.id)!.group, user: boUser })
  const poll = (await post("api/b2/polls", { group_id: group.id, title: "New hive?", poll_type: "proposal", closing_at: future() })).polls[0]
  await A.post(`api/b2/polls/${poll.id}/close`)
  await post("api/b2/outcomes", { poll_id: poll.id, statement: "Yes, in spring." })
  const page = await signIn(await browser.newContext(), "bo@example.org")
  await page.goto(`${s.url}/p/${poll.key}`)
  await axe(t, page, "a poll and outcome to react to")
  await page.getByRole("link", { name: "React to the poll" }).click()
  await page.getByRole("button", { name: "React with 👍" }).click()
  await page.waitForURL(`${s.url}/p/${poll.key}`)
  await page.getByRole("link", { name: "React to the outcome" }).click()
  await page.getByRole("button", { name: "React with ❤️" }).click()
  await page.waitForURL(`${s.url}/p/${poll.key}`)
  t.equal(await page.getByRole("button", { name: "👍 1: remove yours (Bo)" }).count(), 1, "on the poll")
  t.equal(await page.locator("section.outcome").getByRole("button", { name: "❤️ 1: remove yours (Bo)" }).count(), 1, "on the outcome")
  const rows = await s.sql<{ reactable_type: string; reaction: string }>(`SELECT reactable_type, reaction FROM reactions WHERE user_id = ? ORDER BY id`, boUser.id)
  t.same(rows.slice(-2).map((r) => [r.reactable_type, r.reaction]), [["Poll", "👍"], ["Outcome", "❤️"]])
  await axe(t, page, "reactions on a poll and its outcome")
})

t.test("reactions under votes: each vote the reader may see, with its reason; an anonymous poll's name nobody; hidden results hide the votes", async (t) => {
  const group = (await post("api/b2/groups", { name: "Ballots" })).groups[0]
  await s.convene.members.add({ group: (await s.convene.groups.list()).find((v) => v.group.id === group.id)!.group, user: boUser })
  const poll = (await post("api/b2/polls", { group_id: group.id, title: "Paint the shed?", poll_type: "proposal", closing_at: future(), hide_results: "until_vote" })).polls[0]
  await post("api/b2/stances", { poll_id: poll.id, option_scores: { agree: 1 }, reason: "Green, please." })
  const page = await signIn(await browser.newContext(), "bo@example.org")
  await page.goto(`${s.url}/p/${poll.key}`)
  t.equal(await page.locator("#poll-votes li").count(), 0, "results hidden until Bo votes: no votes shown")
  t.equal((await s.as(bo.apiKey).post("api/b2/stances", { json: { poll_id: poll.id, option_scores: { disagree: 1 } } })).statusCode, 200)
  await page.reload()
  t.same((await page.locator("#poll-votes li .meta").allTextContents()).map((x) => x.split(" · ").slice(0, 2).join(" · ")), ["Bo · Disagree", "Ada · Agree"], "newest first, named")
  t.match(await page.locator("#poll-votes li", { hasText: "Ada" }).locator(".body").textContent(), /Green, please\./)
  await page.getByRole("link", { name: "React to Ada's vote" }).click()
  await page.getByRole("button", { name: "React with 🎉" }).click()
  await page.waitForURL(`${s.url}/p/${poll.key}`)
  t.equal(await page.locator("#poll-votes li", { hasText: "Ada" }).getByRole("button", { name: "🎉 1: remove yours (Bo)" }).count(), 1)
  await axe(t, page, "votes with reactions")
  // an anonymous poll: the votes are shown, their people are not
  const secret = (await post("api/b2/polls", { group_id: group.id, title: "Anonymous shed?", poll_type: "proposal", closing_at: future(), anonymous: true })).polls[0]
  await post("api/b2/stances", { poll_id: secret.id, option_scores: { agree: 1 } })
  await page.goto(`${s.url}/p/${secret.key}`)
  t.same((await page.locator("#poll-votes li .meta").allTextContents()).map((x) => x.split(" · ")[0]), ["Someone"])
  t.notOk((await page.locator("#poll-votes").textContent())!.includes("Ada"), "nobody named")
  // a poll with many votes lists the newest 20, and all of them a link away
  const busy = (await post("api/b2/polls", { group_id: group.id, title: "Busy shed?", poll_type: "proposal", closing_at: future() })).polls[0]
  const grp = (await s.convene.groups.list()).find((v) => v.group.id === group.id)!.group
  for (let i = 0; i < 24; i++) {
    const voter = await seedUser(s.convene, { name: `Voter ${i}`, email: `voter${i}@example.org` })
    await s.convene.members.add({ group: grp, user: voter.user })
    await s.as(voter.apiKey).post("api/b2/stances", { json: { poll_id: busy.id, option_scores: { agree: 1 } } })
  }
  await post("api/b2/stances", { poll_id: busy.id, option_scores: { abstain: 1 } })
  await page.goto(`${s.url}/p/${busy.key}`)
  t.equal(await page.locator("#poll-votes li").count(), 20, "the newest 20")
  t.match(await page.locator("#poll-votes li .meta").first().textContent(), /^Ada · Abstain/, "newest first")
  await page.getByRole("link", { name: "Show all 25 votes" }).click()
  await page.waitForURL(/votes=all/)
  t.equal(await page.locator("#poll-votes li").count(), 25, "all of them")
  await axe(t, page, "all the votes")
})

t.test("a long thread in pages of at most THREAD_PAGE items: Earlier and Later reach every comment, replies stay with theirs, ?from= opens anywhere", async (t) => {
  const group = (await post("api/b2/groups", { name: "Long talk" })).groups[0]
  const d = (await post("api/b2/discussions", { group_id: group.id, title: "Everything about soil" })).discussions[0]
  // 250 comments; every tenth has two replies (300 items in all), and the 95th has 20 (a page boundary inside them);
  // written by the core in one transaction (the API's comments are tested elsewhere; 300 requests were seconds)
  const ids: Array<number> = []
  await s.convene.run(Effect.flatMap(Store, (store) => store.transaction(Effect.gen(function*() {
    const access = yield* loadAccess(ada.user)
    for (let i = 1; i <= 250; i++) {
      const c = yield* Comments.createComment(access, d.id, { body: `Comment ${i}` })
      ids.push(c.comment.id)
      const replies = i === 95 ? 20 : i % 10 === 0 ? 2 : 0
      for (let r = 1; r <= replies; r++) yield* Comments.createComment(access, d.id, { body: `Reply ${r} to ${i}`, parent_id: c.comment.id })
    }
  }))))
  const page = await signIn(await browser.newContext(), "ada@example.org")
  const seen: Array<string> = []
  const pages: Array<number> = []
  await page.goto(`${s.url}/d/${d.key}`)
  t.equal(await page.getByRole("link", { name: "Earlier" }).count(), 0, "the first page has nothing earlier")
  await axe(t, page, "a page of a long thread")
  for (let n = 0; n < 30; n++) {
    const bodies = (await page.locator("ol.items .body").allTextContents()).map((x) => x.trim())
    pages.push(await page.locator("ol.items article").count())
    seen.push(...bodies)
    if (await page.getByRole("link", { name: "Later" }).count() === 0) break
    await page.getByRole("link", { name: "Later" }).click()
    await page.waitForLoadState()
  }
  t.ok(pages.every((n) => n <= Threads.THREAD_PAGE), `pages of at most ${Threads.THREAD_PAGE} items: ${pages.join(", ")}`)
  t.ok(pages.length >= 3)
  const expected = ids.flatMap((_, k) => {
    const i = k + 1
    const replies = i === 95 ? 20 : i % 10 === 0 ? 2 : 0
    return [`Comment ${i}`, ...Array.from({ length: replies }, (_, r) => `Reply ${r + 1} to ${i}`)]
  })
  t.same(seen, expected, "every comment once, in order, replies under theirs")
  // back with Earlier, to the start
  let back = 0
  while (await page.getByRole("link", { name: "Earlier" }).count() > 0 && back < 30) {
    await page.getByRole("link", { name: "Earlier" }).click()
    await page.waitForLoadState()
    back++
  }
  t.equal((await page.locator("ol.items .body").first().textContent())!.trim(), "Comment 1", "Earlier reaches the start")
  // ?from= a reply opens the page of its comment
  const [reply] = await s.sql<{ sequence_id: number }>(`SELECT i.sequence_id FROM topic_items i JOIN comments c ON c.id = i.itemable_id AND i.itemable_type = 'Comment'
    WHERE c.body = 'Reply 2 to 200'`)
  await page.goto(`${s.url}/d/${d.key}?from=${reply!.sequence_id}`)
  t.equal((await page.locator("ol.items .body").first().textContent())!.trim(), "Comment 200", "the page starts at the reply's comment")
  // a comment posted on a long thread: back on the page that holds it
  await page.getByLabel("Comment", { exact: true }).last().fill("The very last word.")
  await page.getByRole("button", { name: "Post comment" }).last().click()
  await page.waitForURL(/\?from=\d+#comment-\d+$/)
  t.ok((await page.locator("ol.items .body").allTextContents()).some((x) => x.includes("The very last word.")), "the new comment is on the page")
  await page.setViewportSize({ width: 360, height: 740 })
  t.ok(await page.evaluate(() => document.documentElement.scrollWidth) <= 360, "360 px")
  // nonsense in ?from= is the first page; in ?reply=, no reply form (a comment not on the page has none either)
  t.equal((await page.goto(`${s.url}/d/${d.key}?from=abc`))!.status(), 200)
  for (const reply of ["abc", "-1", "99999999", String(ids[0]! + 0.5)]) {
    t.equal((await page.goto(`${s.url}/d/${d.key}?reply=${reply}`))!.status(), 200)
    t.equal(await page.locator("form.reply-form").count(), 0, `?reply=${reply}: no reply form`)
  }
  t.equal((await page.goto(`${s.url}/d/${d.key}?reply=${ids[0]}`))!.status(), 200)
  t.equal(await page.locator(`#comment-${ids[0]} form.reply-form`).count(), 1, "a comment on the page: its reply form under it")
})

// the 5,000-item thread of decisions §13 is the benchmark's (bench/pages.js); here 1,500 items, 50 pages
t.test("a 1,500-item thread pages through with Later and back with Earlier: every item reachable once, no page over THREAD_PAGE", async (t) => {
  const group = (await post("api/b2/groups", { name: "Archive" })).groups[0]
  const d = (await post("api/b2/discussions", { group_id: group.id, title: "Fifteen hundred items" })).discussions[0]
  // written by the core in one transaction (1,500 API calls would be most of the file's time)
  await s.convene.run(Effect.flatMap(Store, (store) => store.transaction(Effect.gen(function*() {
    const access = yield* loadAccess(ada.user)
    for (let i = 1; i <= 1500; i++) yield* Comments.createComment(access, d.id, { body: `Item ${i}` })
  }))))
  const page = await signIn(await browser.newContext(), "ada@example.org")
  const fetchPage = async (path: string) => {
    const res = await page.request.get(`${s.url}${path}`)
    t.equal(res.status(), 200)
    const html = await res.text()
    const items = [...html.matchAll(/<div class="body"><p>Item (\d+)<\/p>/g)].map((m) => Number(m[1]))
    const later = /<a href="([^"]+)" rel="next">/.exec(html)?.[1]?.replace(/&amp;/g, "&")
    const earlier = /<a href="([^"]+)" rel="prev">/.exec(html)?.[1]?.replace(/&amp;/g, "&")
    return { items, later, earlier }
  }
  const seen: Array<number> = []
  let sizes: Array<number> = []
  let at: string | undefined = `/d/${d.key}`
  let last = ""
  for (let n = 0; at !== undefined && n < 300; n++) {
    const p = await fetchPage(at)
    seen.push(...p.items)
    sizes.push(p.items.length)
    last = at
    at = p.later
  }
  t.same(seen, Array.from({ length: 1500 }, (_, i) => i + 1), "every item once, in order, through Later")
  t.ok(sizes.every((n) => n <= Threads.THREAD_PAGE), `no page over ${Threads.THREAD_PAGE} items (${sizes.length} pages)`)
  const back: Array<number> = []
  sizes = []
  at = last
  for (let n = 0; at !== undefined && n < 300; n++) {
    const p = await fetchPage(at)
    back.unshift(...p.items)
    at = p.earlier
  }
  t.same(back, seen, "and every item again, back through Earlier")
})

t.test("notifications in the app: what the mail volume sends, counted in the header, listed, seen once shown, all marked read", async (t) => {
  const group = (await post("api/b2/groups", { name: "Notes" })).groups[0]
  await s.convene.members.add({ group: (await s.convene.groups.list()).find((v) => v.group.id === group.id)!.group, user: boUser })
  const page = await signIn(await browser.newContext(), "bo@example.org")
  // what came before this test is seen by this first showing
  await page.goto(`${s.url}/notifications`)
  const d = (await post("api/b2/discussions", { group_id: group.id, title: "Planting <b>day</b>", recipient_audience: "group" })).discussions[0]
  await post("api/b2/polls", { group_id: group.id, title: "Which Saturday?", poll_type: "poll", options: ["3rd", "10th"], closing_at: future(), recipient_audience: "group", notify_recipients: true })
  await page.goto(`${s.url}/`)
  t.equal((await page.getByRole("link", { name: /^Notifications/ }).textContent())!.replace(/\s+/g, " ").trim(), "Notifications 2 not seen yet", "the header counts two")
  await page.getByRole("link", { name: /^Notifications/ }).click()
  await axe(t, page, "notifications")
  const items = (await page.locator("ul.notifications li.unseen a").allTextContents()).map((x) => x.trim())
  t.same(items, ["Ada invited you to vote: Which Saturday?", "Ada started a discussion: Planting <b>day</b>"], "the new ones first, newest first, as text")
  t.equal(await page.locator("ul.notifications li.unseen").count(), 2, "both new on this showing")
  t.equal(await page.getByRole("link", { name: /^Notifications/ }).locator(".count").count(), 0, "and seen from now on")
  t.equal(await page.getByRole("link", { name: "Ada started a discussion: Planting <b>day</b>" }).getAttribute("href"), `/d/${d.key}`)
  await page.reload()
  t.equal(await page.locator("ul.notifications li.unseen").count(), 0)
  // a muted group sends nothing, in the app either
  await s.as(bo.apiKey).patch(`api/b2/groups/${group.id}/set_volume`, { json: { volume: "mute" } })
  await post("api/b2/discussions", { group_id: group.id, title: "Quiet one", recipient_audience: "group" })
  await page.reload()
  t.notOk((await page.locator("ul.notifications").textContent())!.includes("Quiet one"), "muted: not kept")
  await s.as(bo.apiKey).patch(`api/b2/groups/${group.id}/set_volume`, { json: { volume: "normal" } })
  await post("api/b2/discussions", { group_id: group.id, title: "Loud again", recipient_audience: "group" })
  await page.goto(`${s.url}/`)
  t.match(await page.getByRole("link", { name: /^Notifications/ }).textContent(), /1/)
  await page.goto(`${s.url}/notifications`)
  await page.goto(`${s.url}/notifications`)
  await submitted(page, page.getByRole("button", { name: "Mark all as read" }).click(), "Every notification is marked as read.")
  t.equal((await s.sql<{ n: number }>(`SELECT count(*) AS n FROM notifications WHERE user_id = ? AND seen_at IS NULL`, boUser.id))[0]!.n, 0)
  // a forged Mark all as read: refused
  const token = "forged"
  t.equal((await page.request.post(`${s.url}/notifications/seen`, { form: { csrf: token } })).status(), 403)
  const de = await (await browser.newContext({ locale: "de", storageState: await page.context().storageState() })).newPage()
  await de.goto(`${s.url}/notifications`)
  t.equal(await de.locator("h1").textContent(), "Benachrichtigungen")
  await de.setViewportSize({ width: 360, height: 740 })
  t.ok(await de.evaluate(() => document.documentElement.scrollWidth) <= 360, "360 px")
})
