/**
 * A group's life in the browser (decisions §12): who can join and how (Join group, Ask to join answered at
 * /g/{key}/requests, the shareable link and its reset, /explore), deleting a group (archived at once, purged 14 days
 * later, `convene groups restore`), and looking after threads (Edit thread with tags and "What's changed?", Show edits,
 * Move thread, a group's tags and `?tag=`), with Loomio's three other permission flags. Each through the real server,
 * a real browser and a real SMTP server; each refused form writes nothing.
 */
import t from "tap"
import { GroupDeletion } from "@convene/core"
import { axe, codeSignIn, startBrowsing, submitted } from "./browsing.js"
import { browserSession, future, runHere, seedUser } from "./helpers.js"
import { matchExact } from "./match.js"

t.setTimeout(180_000)

const { s, smtp, browser } = await startBrowsing()
const signIn = codeSignIn(s, smtp)
const ada = await seedUser(s.convene, { name: "Ada", email: "ada@example.org" })
const bo = await seedUser(s.convene, { name: "Bo", email: "bo@example.org" })
const cy = await seedUser(s.convene, { name: "Cy", email: "cy@example.org" })
const A = s.as(ada.apiKey)
const B = s.as(bo.apiKey)
/** Ada's signed-in browser state, for pages seen in another language */
let adaState: Awaited<ReturnType<import("playwright-core").BrowserContext["storageState"]>>
const groupNamed = async (name: string) => (await s.sql<{ id: number; key: string }>(`SELECT id, key FROM groups WHERE name = ? ORDER BY id DESC`, name))[0]!
const memberships = (groupId: number) =>
  s.sql<{ email: string; accepted: number }>(`SELECT u.email, m.accepted_at IS NOT NULL AS accepted FROM memberships m JOIN users u ON u.id = m.user_id
    WHERE m.group_id = ? AND m.revoked_at IS NULL ORDER BY u.email`, groupId)

t.test("ask to join: set in the settings, asked, approved; the new member finds the group on home", async (t) => {
  const page = await signIn(await browser.newContext(), "ada@example.org")
  await page.goto(`${s.url}/g/new`)
  await page.getByLabel("Group name").fill("Orchard")
  await page.getByRole("button", { name: "Start group" }).click()
  await page.waitForURL(/\/g\/[A-Za-z0-9]+$/)
  const orchard = await groupNamed("Orchard")
  await page.getByRole("link", { name: "Group settings" }).click()
  await axe(t, page, "settings with who can join")
  t.ok(await page.getByLabel("Invitation only").isChecked(), "a new group: invitation only")
  // open, and joined by asking
  await page.getByLabel("Open", { exact: true }).check()
  await page.getByLabel("Ask to join").check()
  await submitted(page, page.getByRole("button", { name: "Save settings" }).click(), "The group's settings are saved.")
  matchExact(t, await s.sql(`SELECT is_visible_to_public, membership_granted_upon FROM groups WHERE id = ?`, orchard.id), [{ is_visible_to_public: 1, membership_granted_upon: "approval" }])

  const bo = await signIn(await browser.newContext(), "bo@example.org")
  await bo.goto(`${s.url}/g/${orchard.key}`)
  t.equal(await bo.getByRole("button", { name: "Join group" }).count(), 0, "not joined at once")
  await bo.getByRole("link", { name: "Ask to join" }).click()
  await axe(t, bo, "ask to join")
  // blank: said beside the field, nothing written
  await bo.getByLabel("Why do you want to join?").fill("   ")
  await bo.getByRole("button", { name: "Ask to join" }).click()
  await bo.waitForLoadState()
  t.match(await bo.locator("#introduction-error").textContent(), /can't be blank/)
  await axe(t, bo, "ask to join, refused")
  matchExact(t, await s.sql(`SELECT count(*) AS n FROM membership_requests`), [{ n: 0 }])
  const before = smtp.received.length
  await bo.getByLabel("Why do you want to join?").fill("I grow <b>apples</b>.")
  await submitted(bo, bo.getByRole("button", { name: "Ask to join" }).click(), "Your request is sent.")
  t.match(await bo.locator("main").textContent(), /Membership requested/, "the page says it waits")
  t.equal(await bo.getByRole("link", { name: "Ask to join" }).count(), 0)
  const told = await smtp.mailTo("ada@example.org", before)
  t.match(told.subject, /Bo asked to join Orchard/)
  t.match(told.html, /I grow &lt;b&gt;apples&lt;\/b&gt;\./, "the introduction, as plain text")
  // a second request while one waits
  const again = await B.post(`api/b2/groups/${orchard.id}/membership_requests`, { json: { introduction: "Me again" } })
  matchExact(t, [again.statusCode, (again.body as any).errors], [422, { introduction: ["you have asked already: your request waits for an answer"] }])

  adaState = await page.context().storageState()
  await page.goto(`${s.url}/g/${orchard.key}`)
  await page.getByRole("link", { name: "Requests to join" }).click()
  await axe(t, page, "requests")
  t.match(await page.locator("main").innerHTML(), /I grow &lt;b&gt;apples&lt;\/b&gt;\./, "escaped")
  const approved = smtp.received.length
  await submitted(page, page.getByRole("button", { name: "Approve Bo" }).click(), "Bo is now a member.")
  t.match(await page.locator("main").textContent(), /Approved by Ada/)
  matchExact(t, await memberships(orchard.id), [{ email: "ada@example.org", accepted: 1 }, { email: "bo@example.org", accepted: 1 }])
  t.match((await smtp.mailTo("bo@example.org", approved)).subject, /Ada approved your request to join Orchard/)
  await bo.goto(`${s.url}/`)
  t.equal(await bo.getByRole("link", { name: "Orchard" }).count(), 1, "on Bo's home")

  // a forged answer: none by a member who may not invite, none without the token
  const [request] = await s.sql<{ id: number }>(`SELECT id FROM membership_requests`)
  const b = browserSession(s.url)
  await b.get("/sign-in")
  t.equal((await b.post(`/g/${orchard.key}/requests/${request!.id}/decline`, { reason: "x" }, { csrf: false })).status, 403, "a forged POST")
  const token = (await bo.context().cookies()).find((c) => c.name === "convene_csrf")!.value
  t.equal((await bo.request.post(`${s.url}/g/${orchard.key}/requests/${request!.id}/decline`, { form: { csrf: token, reason: "no" } })).status(), 403,
    "Bo may not answer requests")
  matchExact(t, await s.sql(`SELECT response FROM membership_requests`), [{ response: "approved" }], "nothing written")
})

t.test("decline with a reason: mailed, and the requester may ask again", async (t) => {
  const orchard = await groupNamed("Orchard")
  const C = s.as(cy.apiKey)
  const asked = await C.post(`api/b2/groups/${orchard.key}/membership_requests`, { json: { introduction: "Pears!" } })
  t.equal(asked.statusCode, 200)
  const id = (asked.body as any).membership_requests[0].id
  const listed = await B.get(`api/b2/groups/${orchard.id}/membership_requests`)
  t.equal(listed.statusCode, 403, "a member who may not invite sees no requests")
  const page = await signIn(await browser.newContext(), "ada@example.org")
  await page.goto(`${s.url}/g/${orchard.key}/requests`)
  const before = smtp.received.length
  await page.getByLabel("Reason (optional, sent to Cy)").fill("We only grow apples.")
  await submitted(page, page.getByRole("button", { name: "Decline Cy" }).click(), "Cy's request is declined.")
  const told = await smtp.mailTo("cy@example.org", before)
  t.match(told.subject, /Ada declined your request to join Orchard/)
  t.match(told.text, /We only grow apples\./)
  matchExact(t, await memberships(orchard.id).then((m) => m.map((x) => x.email)), ["ada@example.org", "bo@example.org"], "Cy not a member")
  const twice = await A.post(`api/b2/groups/${orchard.id}/membership_requests/${id}/approve`)
  t.equal(twice.statusCode, 422, "an answered request is not answered again")
  t.equal((await C.post(`api/b2/groups/${orchard.id}/membership_requests`, { json: { introduction: "Pears, please" } })).statusCode, 200, "asked again")
  const tooLong = await C.post(`api/b2/groups/${orchard.id}/membership_requests`, { json: { introduction: "x".repeat(251) } })
  t.equal(tooLong.statusCode, 422)
})

t.test("anyone can join: Join group, at once; a secret group has no such button and refuses the POST", async (t) => {
  const made = await A.post("api/b2/groups", { json: { name: "Commons" } })
  const commons = (made.body as any).groups[0]
  t.equal((await B.post(`api/b2/groups/${commons.id}/join`)).statusCode, 403, "a secret group is not joined (Bo cannot even see it)")
  const set = await A.patch(`api/b2/groups/${commons.id}`, { json: { group_privacy: "open", membership_granted_upon: "request" } })
  matchExact(t, [set.statusCode, (set.body as any).groups[0].membership_granted_upon], [200, "request"])
  const page = await signIn(await browser.newContext(), "cy@example.org")
  await page.goto(`${s.url}/g/${commons.key}`)
  await axe(t, page, "an open group anyone can join")
  await submitted(page, page.getByRole("button", { name: "Join group" }).click(), "You are now a member of the group.")
  matchExact(t, (await memberships(commons.id)).map((m) => m.email), ["ada@example.org", "cy@example.org"])
  t.equal(await page.getByRole("button", { name: "Join group" }).count(), 0, "a member sees no Join group")
  // closed: joined by asking whatever was chosen (Loomio's group_privacy=)
  await A.patch(`api/b2/groups/${commons.id}`, { json: { group_privacy: "closed", membership_granted_upon: "request" } })
  matchExact(t, await s.sql(`SELECT membership_granted_upon FROM groups WHERE id = ?`, commons.id), [{ membership_granted_upon: "approval" }])
  t.equal((await B.post(`api/b2/groups/${commons.id}/join`)).statusCode, 403, "a closed group: ask instead")
})

t.test("the shareable link: whoever signs in through it joins, whatever the privacy; Reset link ends the old one", async (t) => {
  const made = await A.post("api/b2/groups", { json: { name: "Hidden Bees" } })
  const hive = (made.body as any).groups[0]
  const page = await signIn(await browser.newContext(), "ada@example.org")
  await page.goto(`${s.url}/g/${hive.key}/invite`)
  await axe(t, page, "invite with the shareable link")
  const link = await page.getByLabel("Link to join the group").inputValue()
  t.match(link, new RegExp(`/join/${hive.key}\\.[A-Za-z0-9_-]{32}$`))
  t.equal(((await A.get(`api/b2/groups/${hive.id}/join_link`)).body as any).join_link.url, link, "the API's link is the page's")
  t.equal((await B.get(`api/b2/groups/${hive.id}/join_link`)).statusCode, 403, "not for those who may not invite")
  const path = new URL(link).pathname

  // signed out: sign in first, then back to the link
  const cyPage = await (await browser.newContext()).newPage()
  await cyPage.goto(`${s.url}${path}`)
  await cyPage.waitForURL(/\/sign-in\?next=/)
  await cyPage.getByLabel("E-mail").fill("cy@example.org")
  const before = smtp.received.length
  await cyPage.locator("form[action='/sign-in'] button").click()
  const code = /\b(\d{6})\b/.exec((await smtp.mailTo("cy@example.org", before)).subject ?? "")![1]!
  await cyPage.locator("#code").fill(code)
  await cyPage.locator("form[action='/sign-in/code'] button").click()
  await cyPage.waitForURL(`${s.url}${path}`)
  await axe(t, cyPage, "join by link")
  await submitted(cyPage, cyPage.getByRole("button", { name: "Join group" }).click(), "You are now a member of the group.")
  t.equal(cyPage.url(), `${s.url}/g/${hive.key}`)
  matchExact(t, (await memberships(hive.id)).map((m) => m.email), ["ada@example.org", "cy@example.org"], "a member of a secret group")

  await submitted(page, page.getByRole("button", { name: "Reset link" }).click(), "The link is reset")
  t.not(await page.getByLabel("Link to join the group").inputValue(), link)
  const boPage = await signIn(await browser.newContext(), "bo@example.org")
  t.equal((await boPage.goto(`${s.url}${path}`))!.status(), 404, "the old link no longer works")
  await axe(t, boPage, "a link that no longer works")
  const token = (await boPage.context().cookies()).find((c) => c.name === "convene_csrf")!.value
  t.equal((await boPage.request.post(`${s.url}${path}`, { form: { csrf: token } })).status(), 404)
  t.equal((await boPage.request.post(`${s.url}/g/${hive.key}/link/reset`, { form: { csrf: token } })).status(), 403, "Bo may not reset it (nor see the group)")
  matchExact(t, (await memberships(hive.id)).map((m) => m.email), ["ada@example.org", "cy@example.org"], "nothing written")
})

t.test("/explore: off by default; on, open top-level groups, searched, largest first", async (t) => {
  t.equal((await browserSession(s.url).get("/explore")).status, 404, "off by default")
  const { settingsFromEnv } = await import("@convene/http")
  const fromEnv = settingsFromEnv({ FEATURES_EXPLORE_PUBLIC_GROUPS: "1" }, { host: "127.0.0.1", port: 0 })
  const other = await startBrowsing({ explorePublicGroups: fromEnv.explorePublicGroups })
  const owner = await seedUser(other.s.convene, { name: "Owner", email: "owner@example.org" })
  const O = other.s.as(owner.apiKey)
  const open = async (name: string, description: string) => {
    const g = ((await O.post("api/b2/groups", { json: { name, description } })).body as any).groups[0]
    await O.patch(`api/b2/groups/${g.id}`, { json: { group_privacy: "open" } })
    return g
  }
  const small = await open("Small Choir", "We sing")
  const big = await open("Big Band", "Brass and song")
  await other.s.convene.members.add({ group: (await other.s.convene.groups.list()).find((v) => v.group.id === big.id)!.group, user: (await seedUser(other.s.convene, { name: "P" })).user })
  await O.post("api/b2/groups", { json: { name: "Secret Society" } })
  const page = await (await other.browser.newContext()).newPage()
  await page.goto(`${other.s.url}/explore`)
  await axe(t, page, "explore")
  t.same(await page.locator("main ul.groups li a").allTextContents(), ["Big Band", "Small Choir"], "open groups, largest first; no secret one")
  await page.getByLabel("Search groups").fill("SING")
  await page.getByRole("button", { name: "Search" }).click()
  await page.waitForURL(/q=SING/)
  t.same(await page.locator("main ul.groups li a").allTextContents(), ["Small Choir"], "by name or description, any case")
  await page.goto(`${other.s.url}/explore?q=${encodeURIComponent("%")}`)
  t.same(await page.locator("main ul.groups li a").allTextContents(), [], "a wildcard is a character")
  void small
})

t.test("delete group: the name typed; gone at once (pages, lists, API), the administrators told; restored by the CLI; purged after 14 days", async (t) => {
  const made = await A.post("api/b2/groups", { json: { name: "Old Shed" } })
  const shed = (made.body as any).groups[0]
  await s.convene.members.add({ group: (await s.convene.groups.list()).find((v) => v.group.id === shed.id)!.group, user: bo.user })
  const thread = ((await A.post("api/b2/discussions", { json: { group_id: shed.id, title: "Shed roof" } })).body as any).discussions[0]
  await A.post("api/b2/polls", { json: { group_id: shed.id, title: "Paint the shed?", poll_type: "proposal", closing_at: future() } })
  const bosThreads = async () => ((await B.get("api/b2/threads")).body as any).threads.map((x: any) => x.id)
  t.ok((await bosThreads()).includes(thread.topic_id), "Bo's threads list it")
  const page = await signIn(await browser.newContext(), "ada@example.org")
  await page.goto(`${s.url}/g/${shed.key}/settings`)
  await page.getByRole("link", { name: "Delete group" }).click()
  await axe(t, page, "delete group")
  await page.getByLabel(/Type the group's name to confirm/).fill("Old shed")
  await page.getByRole("button", { name: "Delete group" }).click()
  await page.waitForLoadState()
  t.match(await page.locator("#confirmation-error").textContent(), /not the group's name/)
  await axe(t, page, "delete group, refused")
  matchExact(t, await s.sql(`SELECT archived_at FROM groups WHERE id = ?`, shed.id), [{ archived_at: null }], "nothing written")
  // Bo, a member, may not
  const boPage = await signIn(await browser.newContext(), "bo@example.org")
  t.equal((await boPage.goto(`${s.url}/g/${shed.key}/delete`))!.status(), 404)
  const token = (await boPage.context().cookies()).find((c) => c.name === "convene_csrf")!.value
  t.equal((await boPage.request.post(`${s.url}/g/${shed.key}/delete`, { form: { csrf: token, confirmation: "Old Shed" } })).status(), 403)

  const before = smtp.received.length
  await page.getByLabel(/Type the group's name to confirm/).fill("Old Shed")
  await submitted(page, page.getByRole("button", { name: "Delete group" }).click(), "The group is deleted.")
  t.match((await smtp.mailTo("ada@example.org", before)).subject, /Ada deleted the group Old Shed/)
  t.equal((await page.goto(`${s.url}/g/${shed.key}`))!.status(), 404, "its page")
  t.equal((await page.goto(`${s.url}/d/${thread.key}`))!.status(), 404, "its thread's page")
  t.equal((await A.get(`api/b2/groups/${shed.id}`)).statusCode, 404, "the API")
  t.equal((await A.get(`api/b2/discussions/${thread.id}`)).statusCode, 404)
  t.equal((await B.get(`api/b2/discussions?group_id=${shed.id}`)).statusCode, 404)
  t.notOk(((await A.get("api/b2/groups")).body as any).groups.some((g: any) => g.id === shed.id), "not listed")
  t.notOk((await bosThreads()).includes(thread.topic_id), "nor its threads")
  await boPage.goto(`${s.url}/`)
  t.equal(await boPage.getByRole("link", { name: "Paint the shed?" }).count(), 0, "its poll waits for nobody's vote")
  t.equal(await boPage.getByRole("link", { name: "Old Shed" }).count(), 0, "not on home")

  const restored = await runHere(["groups", "restore", shed.key, "--db", s.filename, "--json"])
  t.equal(restored.code, 0, restored.stderr)
  t.equal((await A.get(`api/b2/groups/${shed.id}`)).statusCode, 200, "restored")
  t.equal((await B.get(`api/b2/discussions/${thread.id}`)).statusCode, 200, "with its thread, for its members")
  const notDeleted = await runHere(["groups", "restore", shed.key, "--db", s.filename])
  t.not(notDeleted.code, 0, "a group not deleted is not restored")

  // deleted again, and 15 days later purged by the scheduler, a batch at a time
  t.equal((await A.delete(`api/b2/groups/${shed.id}`)).statusCode, 200)
  await s.sql(`UPDATE groups SET archived_at = ? WHERE id = ?`, new Date(Date.now() - 15 * 24 * 3600_000).toISOString(), shed.id)
  // the server's reads share a snapshot per turn of the event loop (sqlite/db.ts), which its open pages' live stream may
  // have begun before this write from another connection: the next turn sees it
  await new Promise((resolve) => setImmediate(resolve))
  const purged = await s.convene.run(GroupDeletion.purgeDeletedGroups)
  t.equal(purged, 1)
  matchExact(t, await s.sql(`SELECT count(*) AS n FROM groups WHERE id = ?`, shed.id), [{ n: 0 }])
  matchExact(t, await s.sql(`SELECT count(*) AS n FROM topics WHERE id = ?`, thread.topic_id), [{ n: 0 }], "its threads with it")
})

t.test("thread administration: edited with tags and a note, its edits shown, moved to a subgroup; tags managed, threads filtered", async (t) => {
  const group = ((await A.post("api/b2/groups", { json: { name: "Allotment" } })).body as any).groups[0]
  const sub = ((await A.post("api/b2/groups", { json: { name: "Compost", parent_id: group.id } })).body as any).groups[0]
  await s.convene.members.add({ group: (await s.convene.groups.list()).find((v) => v.group.id === group.id)!.group, user: bo.user })
  const thread = ((await A.post("api/b2/discussions", { json: { group_id: group.id, title: "Water butts", description: "Two or three?" } })).body as any).discussions[0]
  const poll = ((await A.post("api/b2/polls", { json: { discussion_id: thread.id, title: "How many?", poll_type: "poll", options: ["2", "3"], closing_at: future() } })).body as any).polls[0]
  const other = ((await A.post("api/b2/discussions", { json: { group_id: group.id, title: "Sheds" } })).body as any).discussions[0]

  const page = await signIn(await browser.newContext(), "ada@example.org")
  await page.goto(`${s.url}/d/${thread.key}`)
  t.equal(await page.getByRole("link", { name: "Show edits" }).count(), 0, "nothing to show yet")
  await page.getByRole("link", { name: "Edit thread" }).click()
  await axe(t, page, "edit thread")
  await page.getByLabel("Title", { exact: true }).fill("")
  await page.getByLabel("Title", { exact: true }).fill("  ")
  await page.getByRole("button", { name: "Save thread" }).click()
  await page.waitForLoadState()
  t.match(await page.locator("#title-error").textContent(), /Please fill this in/)
  await axe(t, page, "edit thread, refused")
  await page.getByLabel("Title", { exact: true }).fill("Rain water")
  await page.getByLabel("Tags").fill("water, Garden, water")
  await page.getByLabel("What's changed? (optional)").fill("Renamed: it is about all rain water.")
  const before = smtp.received.length
  await submitted(page, page.getByRole("button", { name: "Save thread" }).click(), "The thread is saved.")
  t.equal(await page.locator("h1").textContent(), "Rain water")
  t.same(await page.locator("p.tags a.tag").allTextContents().then((x) => x.map((s) => s.trim())), ["water", "Garden"])
  matchExact(t, await s.sql(`SELECT name FROM tags WHERE group_id = ? ORDER BY id`, group.id), [{ name: "water" }, { name: "Garden" }], "the names made tags")
  const told = await smtp.mailTo("bo@example.org", before)
  t.match(told.subject, /Ada edited the discussion: Rain water/)
  t.match(told.text, /Renamed: it is about all rain water\./)

  await page.getByRole("link", { name: "Show edits" }).click()
  await axe(t, page, "show edits")
  t.match(await page.locator("main h2").first().textContent(), /^Edit by Ada · /)
  const rows = await page.locator("main table tbody tr").evaluateAll((trs) => trs.map((tr) => Array.from(tr.querySelectorAll("th, td"), (c) => c.textContent)))
  t.same(rows, [["Title", "Water butts", "Rain water"], ["Tags", "", "water, Garden"]])
  const versions = await A.get(`api/b2/discussions/${thread.id}/versions`)
  matchExact(t, (versions.body as any).versions.map((v: any) => [v.whodunnit, v.object_changes]), [[ada.user.id, { title: ["Water butts", "Rain water"], tags: [[], ["water", "Garden"]] }]])

  // tags: recoloured and renamed by the administrator; the thread carries the new name; ?tag= filters
  await page.goto(`${s.url}/g/${group.key}`)
  await page.getByRole("link", { name: "Tags", exact: true }).click()
  await axe(t, page, "tags")
  const water = page.locator("ul.tags li").filter({ has: page.getByRole("button", { name: "Save tag: water" }) })
  await water.locator("input[name=name]").fill("rain")
  await submitted(page, water.getByRole("button", { name: "Save tag: water" }).click(), "The tags are saved.")
  matchExact(t, ((await A.get(`api/b2/discussions/${thread.id}`)).body as any).topics[0].tags, ["rain", "Garden"], "renamed on the thread")
  await page.locator("#name").fill("garden")
  await page.getByRole("button", { name: "Add tag" }).click()
  await page.waitForLoadState()
  t.match(await page.locator("#name-error").textContent(), /has already been taken/, "a name is unique whatever its case")
  await axe(t, page, "tags, refused")
  await page.goto(`${s.url}/g/${group.key}?tag=rain`)
  t.match(await page.locator("main h2").first().textContent(), /Threads tagged rain/)
  const listed = await page.locator("main ul").allTextContents()
  t.ok(listed.some((x) => x.includes("Rain water")) && !listed.some((x) => x.includes("Sheds")), "only the tagged thread")
  void other
  const bPage = await signIn(await browser.newContext(), "bo@example.org")
  t.equal((await bPage.goto(`${s.url}/g/${group.key}/tags`))!.status(), 404, "a member does not manage tags")
  const token = (await bPage.context().cookies()).find((c) => c.name === "convene_csrf")!.value
  t.equal((await bPage.request.post(`${s.url}/g/${group.key}/tags`, { form: { csrf: token, name: "mine", color: "#000000" } })).status(), 403)
  matchExact(t, await s.sql(`SELECT count(*) AS n FROM tags WHERE name = 'mine'`), [{ n: 0 }], "nothing written")

  // moved to the subgroup: its poll follows, its privacy follows, an item records it
  await page.goto(`${s.url}/d/${thread.key}`)
  await page.getByRole("link", { name: "Move thread" }).click()
  await axe(t, page, "move thread")
  await page.getByLabel("Move to group").selectOption({ label: "Compost" })
  await submitted(page, page.getByRole("button", { name: "Move thread" }).click(), "The thread is moved.")
  t.match(await page.locator("main").textContent(), /Ada moved the thread here/)
  matchExact(t, await s.sql(`SELECT group_id FROM topics WHERE id = ?`, thread.topic_id), [{ group_id: sub.id }])
  matchExact(t, ((await A.get(`api/b2/polls/${poll.id}`)).body as any).polls[0].group_id, sub.id, "its poll follows")
  matchExact(t, await s.sql(`SELECT kind FROM topic_items WHERE topic_id = ? ORDER BY sequence_id DESC LIMIT 1`, thread.topic_id), [{ kind: "discussion_moved" }])
  matchExact(t, await s.sql(`SELECT name FROM tags WHERE group_id = ? ORDER BY id`, sub.id), [{ name: "rain" }, { name: "Garden" }], "its tags, in the target group")
  const edits = ((await A.get(`api/b2/discussions/${thread.id}/versions`)).body as any).versions
  matchExact(t, edits.at(-1).object_changes.group_id, [group.id, sub.id])
  // Bo cannot move it anywhere he may not start threads
  const moved = await B.post(`api/b2/discussions/${other.id}/move`, { json: { group_id: sub.id } })
  t.equal(moved.statusCode, 403, "Bo is not a member of the subgroup")
  matchExact(t, await s.sql(`SELECT group_id FROM topics WHERE id = ?`, other.topic_id), [{ group_id: group.id }], "nothing moved")
  await page.setViewportSize({ width: 360, height: 740 })
  for (const path of [`/d/${thread.key}/edit`, `/d/${thread.key}/edits`, `/d/${thread.key}/move`, `/g/${group.key}/tags`, `/g/${group.key}/requests`, `/g/${group.key}/delete`]) {
    await page.goto(`${s.url}${path}`)
    t.ok(await page.evaluate(() => document.documentElement.scrollWidth) <= 360, `360 px: ${path} does not scroll sideways`)
  }
})

t.test("Loomio's other flags: deleting one's comments, notifying everyone, inviting guests", async (t) => {
  const group = ((await A.post("api/b2/groups", { json: { name: "Strict" } })).body as any).groups[0]
  await s.convene.members.add({ group: (await s.convene.groups.list()).find((v) => v.group.id === group.id)!.group, user: bo.user })
  const d = ((await A.post("api/b2/discussions", { json: { group_id: group.id, title: "Rules" } })).body as any).discussions[0]
  const c = ((await B.post("api/b2/comments", { json: { discussion_id: d.id, body: "Mine" } })).body as any).comments[0]
  await A.patch(`api/b2/groups/${group.id}`, { json: { members_can_delete_comments: false, members_can_announce: false, members_can_add_guests: false } })
  t.equal((await B.delete(`api/b2/comments/${c.id}`)).statusCode, 403, "Bo may not delete his own comment")
  const loud = await B.post("api/b2/discussions", { json: { group_id: group.id, title: "Hear me", recipient_audience: "group" } })
  matchExact(t, [loud.statusCode, Object.keys((loud.body as any).errors)], [422, ["recipient_audience"]], "nor notify everyone")
  const guest = await B.post("api/b2/discussions", { json: { group_id: group.id, title: "Guests", recipient_emails: ["outsider@example.org"] } })
  matchExact(t, [guest.statusCode, Object.keys((guest.body as any).errors)], [422, ["recipient_emails"]], "nor invite guests")
  matchExact(t, await s.sql(`SELECT count(*) AS n FROM users WHERE email = 'outsider@example.org'`), [{ n: 0 }], "no account made")
  // the page starts Bo's thread without notifying the group
  const page = await signIn(await browser.newContext(), "bo@example.org")
  await page.goto(`${s.url}/g/${group.key}/discussions/new`)
  await page.getByLabel("Title").fill("Quietly")
  await page.getByRole("button", { name: "Start discussion" }).click()
  await page.waitForURL(/\/d\//)
  t.equal(await page.locator("h1").textContent(), "Quietly")
  t.equal((await A.delete(`api/b2/comments/${c.id}`)).statusCode, 200, "the administrator still may")
})

t.test("in German and French: the requests page and the settings' who can join", async (t) => {
  const orchard = await groupNamed("Orchard")
  for (const [locale, heading, label] of [["de", "Beitrittsanfragen für Orchard", "Wer beitreten kann"], ["fr", "Demandes d'adhésion à Orchard", "Qui peut rejoindre"]] as const) {
    const page = await (await browser.newContext({ locale, storageState: adaState })).newPage()
    await page.goto(`${s.url}/g/${orchard.key}/requests`)
    t.equal(await page.locator("h1").textContent(), heading)
    await page.goto(`${s.url}/g/${orchard.key}/settings`)
    t.equal(await page.locator("fieldset legend").nth(1).textContent(), label)
  }
})

t.test("edit poll: the type's settings; an anonymous poll stays anonymous", async (t) => {
  const group = ((await A.post("api/b2/groups", { json: { name: "Scores" } })).body as any).groups[0]
  const poll = ((await A.post("api/b2/polls", {
    json: { group_id: group.id, title: "Rate the jam", poll_type: "score", options: ["plum", "fig"], closing_at: future(), min_score: 0, max_score: 5, anonymous: true }
  })).body as any).polls[0]
  const page = await (await browser.newContext({ storageState: adaState })).newPage()
  await page.goto(`${s.url}/p/${poll.key}/edit`)
  await axe(t, page, "edit poll with its settings")
  t.ok(await page.getByLabel(/Anonymous/).isDisabled(), "anonymity cannot be turned off here")
  t.equal(await page.getByLabel("Highest score (score)").inputValue(), "5")
  await page.getByLabel("Highest score (score)").fill("9")
  await submitted(page, page.getByRole("button", { name: "Save poll" }).click(), "The poll is saved.")
  matchExact(t, await s.sql(`SELECT max_score, anonymous FROM polls WHERE id = ?`, poll.id), [{ max_score: 9, anonymous: 1 }])
  // a form sent without the anonymity: refused by the core, nothing changed
  const token = (await page.context().cookies()).find((c) => c.name === "convene_csrf")!.value
  const forged = await page.request.post(`${s.url}/p/${poll.key}/edit`, {
    form: { csrf: token, title: "Rate the jam", details: "", closing_at: future(72).slice(0, 16), options: "plum\nfig", change: "", hide_results: "off", max_score: "9" }
  })
  t.equal(forged.status(), 422)
  matchExact(t, await s.sql(`SELECT anonymous FROM polls WHERE id = ?`, poll.id), [{ anonymous: 1 }], "still anonymous")
  // over the API as well (its update took the numbers and dropped them before)
  const patched = await A.patch(`api/b2/polls/${poll.id}`, { json: { poll: { max_score: 7 } } })
  matchExact(t, [patched.statusCode, (patched.body as any).polls[0].max_score], [200, 7])
  const backwards = await A.patch(`api/b2/polls/${poll.id}`, { json: { poll: { min_score: 8 } } })
  matchExact(t, [backwards.statusCode, (backwards.body as any).errors], [422, { max_score: ["must be at least min_score"] }])
  matchExact(t, await s.sql(`SELECT min_score, max_score FROM polls WHERE id = ?`, poll.id), [{ min_score: 0, max_score: 7 }])
})

t.test("every new form: a forged POST (no token) and one the rules refuse write nothing; keyboard only", async (t) => {
  const orchard = await groupNamed("Orchard")
  const allot = await groupNamed("Allotment")
  const [thread] = await s.sql<{ key: string; topic_id: number }>(`SELECT d.key, d.topic_id FROM discussions d JOIN topics t ON t.id = d.topic_id WHERE t.group_id = ? LIMIT 1`, allot.id)
  const [tag] = await s.sql<{ id: number }>(`SELECT id FROM tags WHERE group_id = ? LIMIT 1`, allot.id)
  const [request] = await s.sql<{ id: number }>(`SELECT id FROM membership_requests WHERE group_id = ? AND response IS NULL LIMIT 1`, orchard.id)
  const snapshot = () => Promise.all([
    s.sql(`SELECT id, name, membership_granted_upon, archived_at, join_link_epoch FROM groups ORDER BY id`),
    s.sql(`SELECT id, response FROM membership_requests ORDER BY id`),
    s.sql(`SELECT id, group_id, tags FROM topics ORDER BY id`),
    s.sql(`SELECT id, name, color FROM tags ORDER BY id`),
    s.sql(`SELECT count(*) AS n FROM memberships WHERE revoked_at IS NULL`)
  ])
  const before = JSON.stringify(await snapshot())
  const forms: Array<[string, Record<string, string>]> = [
    [`/g/${orchard.key}/join`, {}],
    [`/g/${orchard.key}/ask`, { introduction: "Let me in" }],
    [`/g/${orchard.key}/requests/${request!.id}/approve`, {}],
    [`/g/${orchard.key}/requests/${request!.id}/decline`, { reason: "no" }],
    [`/g/${orchard.key}/link/reset`, {}],
    [`/g/${orchard.key}/delete`, { confirmation: "Orchard" }],
    [`/g/${allot.key}/tags`, { name: "forged", color: "#000000" }],
    [`/g/${allot.key}/tags/${tag!.id}`, { name: "forged", color: "#000000" }],
    [`/g/${allot.key}/tags/${tag!.id}/delete`, {}],
    [`/d/${thread!.key}/edit`, { title: "Forged", description: "", tags: "", change: "" }],
    [`/d/${thread!.key}/move`, { group: orchard.key }]
  ]
  // Cy: signed in, in neither group as an administrator
  const cyPage = await signIn(await browser.newContext(), "cy@example.org")
  const token = (await cyPage.context().cookies()).find((c) => c.name === "convene_csrf")!.value
  for (const [path, fields] of forms) {
    t.equal((await cyPage.request.post(`${s.url}${path}`, { form: fields })).status(), 403, `no token: ${path}`)
    // 422: Cy may ask, but her request already waits
    t.ok([403, 404, 422].includes((await cyPage.request.post(`${s.url}${path}`, { form: { csrf: token, ...fields } })).status()), `refused by the rules: ${path}`)
  }
  t.equal(JSON.stringify(await snapshot()), before, "nothing written")

  // keyboard only: Dee finds the group, asks to join with the keyboard
  await seedUser(s.convene, { name: "Dee", email: "dee@example.org" })
  const dee = await signIn(await browser.newContext(), "dee@example.org")
  await dee.goto(`${s.url}/g/${orchard.key}`)
  await dee.getByRole("link", { name: "Ask to join" }).focus()
  await dee.keyboard.press("Enter")
  await dee.waitForURL(/\/ask$/)
  await dee.getByLabel("Why do you want to join?").focus()
  await dee.keyboard.type("I keep bees.")
  await dee.keyboard.press("Tab")
  await submitted(dee, dee.keyboard.press("Enter"), "Your request is sent.")
  matchExact(t, await s.sql(`SELECT introduction FROM membership_requests WHERE requestor_id = (SELECT id FROM users WHERE email = 'dee@example.org')`), [{ introduction: "I keep bees." }])
  await dee.setViewportSize({ width: 360, height: 740 })
  await dee.goto(`${s.url}/g/${orchard.key}/ask`)
  t.ok(await dee.evaluate(() => document.documentElement.scrollWidth) <= 360, "360 px: ask to join")
})
