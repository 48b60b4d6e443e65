/**
 * Running a group in the browser (decisions §12): a person starts a group from home (secret, they its administrator,
 * a handle made from its name), then a subgroup (its handle begins with the parent's); the forms keep what was typed
 * and say what is wrong beside the field; a forged POST and a person the rules do not allow write nothing;
 * FEATURES_DISABLE_CREATE_GROUP leaves starting groups to the server's administrators.
 */
import t from "tap"
import { axe, codeSignIn, startBrowsing } from "./browsing.js"
import { browserSession, future, seedUser } from "./helpers.js"
import { matchExact } from "./match.js"

t.setTimeout(120_000)

const { s, smtp, browser } = await startBrowsing()
const signIn = codeSignIn(s, smtp)
const adaSeed = await seedUser(s.convene, { name: "Ada", email: "ada@example.org" })
const adaKey = adaSeed.apiKey
const boUser = (await seedUser(s.convene, { name: "Bo", email: "bo@example.org" })).user
const groupsNamed = (name: string) =>
  s.sql<Record<string, unknown>>(`SELECT id, key, handle, parent_id, is_visible_to_public, is_visible_to_parent_members, discussion_privacy_options, description
    FROM groups WHERE name = ? ORDER BY id`, name)

t.test("a person starts a group from home, then a subgroup", async (t) => {
  const page = await signIn(await browser.newContext(), "ada@example.org")
  await page.getByRole("link", { name: "Start a group" }).click()
  await page.waitForURL(`${s.url}/g/new`)
  await axe(t, page, "start a group")
  t.equal(await page.locator("h1").textContent(), "Start a group")

  // a name of spaces only (the browser itself stops an empty one): the form again, what was typed kept, the message beside the field
  await page.getByLabel("Group name").fill("   ")
  await page.getByLabel("Description").fill("Where the **garden** is decided.")
  await page.getByRole("button", { name: "Start group" }).click()
  await page.waitForLoadState()
  t.match(await page.locator("#name-error").textContent(), /Please fill this in/)
  t.equal(await page.getByLabel("Description").inputValue(), "Where the **garden** is decided.", "the description kept")
  await axe(t, page, "start a group, refused")

  await page.getByLabel("Group name").fill("Garden Club")
  await page.getByRole("button", { name: "Start group" }).click()
  await page.waitForURL(/\/g\/[A-Za-z0-9]+$/)
  t.equal(await page.locator("h1").textContent(), "Garden Club")
  t.match(await page.locator("main").innerHTML(), /<strong>garden<\/strong>/, "the description as markdown")
  const [garden] = await groupsNamed("Garden Club")
  matchExact(t, garden, {
    id: Number, key: page.url().split("/g/")[1], handle: "garden-club", parent_id: null,
    is_visible_to_public: 0, is_visible_to_parent_members: 0, discussion_privacy_options: "private_only", description: "Where the **garden** is decided."
  }, "secret, with a handle made from its name")
  matchExact(t, await s.sql(`SELECT u.email, m.admin, m.accepted_at IS NOT NULL AS accepted FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.group_id = ?`, garden!.id),
    [{ email: "ada@example.org", admin: 1, accepted: 1 }], "Ada its administrator")
  await page.goto(`${s.url}/`)
  t.equal(await page.getByRole("link", { name: "Garden Club" }).count(), 1, "home lists it")

  // a subgroup: a handle that does not begin with the parent's is refused; left empty, it is made
  await page.goto(`${s.url}/g/${garden!.key}`)
  await page.getByRole("link", { name: "Start a subgroup" }).click()
  await axe(t, page, "start a subgroup")
  t.match(await page.locator("#handle-hint").textContent(), /begins with garden-club-/)
  await page.getByLabel("Group name").fill("Tools")
  await page.getByLabel("Handle").fill("tools")
  await page.getByRole("button", { name: "Start subgroup" }).click()
  await page.waitForLoadState()
  t.match(await page.locator("#handle-error").textContent(), /must begin with garden-club-/)
  await page.getByLabel("Handle").fill("")
  await page.getByRole("button", { name: "Start subgroup" }).click()
  await page.waitForURL(/\/g\/[A-Za-z0-9]+$/)
  t.match(await page.locator("main").textContent(), /A subgroup of\s*Garden Club/)
  matchExact(t, (await groupsNamed("Tools")).map((g) => [g.handle, g.parent_id, g.is_visible_to_parent_members]), [["garden-club-tools", garden!.id, 1]])
  t.equal(await page.getByRole("link", { name: "Start a subgroup" }).count(), 0, "no subgroup of a subgroup (one level deep)")

  // the same name again: the handle numbered past the one taken
  await page.goto(`${s.url}/g/new`)
  await page.getByLabel("Group name").fill("Garden Club")
  await page.getByLabel("Handle").fill("garden-club")
  await page.getByRole("button", { name: "Start group" }).click()
  await page.waitForLoadState()
  t.match(await page.locator("#handle-error").textContent(), /has already been taken/)
  await page.getByLabel("Handle").fill("")
  await page.getByRole("button", { name: "Start group" }).click()
  await page.waitForURL(/\/g\/[A-Za-z0-9]+$/)
  matchExact(t, (await groupsNamed("Garden Club")).map((g) => g.handle), ["garden-club", "garden-club-1"])

  await page.setViewportSize({ width: 360, height: 740 })
  await page.goto(`${s.url}/g/new`)
  t.ok(await page.evaluate(() => document.documentElement.scrollWidth) <= 360, "360 px: the form does not scroll sideways")
})

t.test("refused: a forged POST, a subgroup by a non-administrator, a visitor", async (t) => {
  const [garden] = await groupsNamed("Garden Club")
  const count = async () => (await s.sql<{ n: number }>("SELECT count(*) AS n FROM groups"))[0]!.n
  const before = await count()
  const bo = browserSession(s.url)
  await bo.get("/sign-in")
  const code = async () => {
    const sent = smtp.received.length
    await bo.post("/sign-in", { email: "bo@example.org" })
    return /\b(\d{6})\b/.exec((await smtp.mailTo("bo@example.org", sent)).subject ?? "")![1]!
  }
  await bo.post("/sign-in/code", { email: "bo@example.org", code: await code() })
  t.equal((await bo.post("/g/new", { name: "No token" }, { csrf: false })).status, 403, "no CSRF token")
  t.equal((await bo.post(`/g/${garden!.key}/subgroups/new`, { name: "Bo's" })).status, 403, "not a member of the secret group")
  await s.convene.members.add({ group: (await s.convene.groups.list()).find((g) => g.group.id === garden!.id)!.group, user: boUser })
  t.equal((await bo.post(`/g/${garden!.key}/subgroups/new`, { name: "Bo's" })).status, 403, "a member, not an administrator")
  t.equal((await bo.get(`/g/${garden!.key}/subgroups/new`)).status, 404)
  const visitor = browserSession(s.url)
  const prompt = await visitor.get("/g/new")
  t.equal(prompt.status, 303, "a visitor is sent to sign in")
  t.equal(prompt.headers.get("location"), "/sign-in?next=%2Fg%2Fnew", "and brought back after")
  t.equal(await count(), before, "nothing written")
})

t.test("FEATURES_DISABLE_CREATE_GROUP: only the server's administrators start groups", async (t) => {
  const only = await startBrowsingAdminsOnly()
  const bo = await only.signIn(await only.browser.newContext(), "bo@example.org")
  t.equal(await bo.getByRole("link", { name: "Start a group" }).count(), 0, "no Start a group for Bo")
  const refused = await bo.request.post(`${only.s.url}/g/new`, { form: { name: "Bo's", csrf: (await bo.context().cookies()).find((c) => c.name === "convene_csrf")!.value } })
  t.equal(refused.status(), 403)
  const admin = await only.signIn(await only.browser.newContext(), "root@example.org")
  await admin.getByRole("link", { name: "Start a group" }).click()
  await admin.getByLabel("Group name").fill("Staff")
  await admin.getByRole("button", { name: "Start group" }).click()
  await admin.waitForURL(/\/g\/[A-Za-z0-9]+$/)
  matchExact(t, (await only.s.sql("SELECT name FROM groups ORDER BY id")), [{ name: "Staff" }], "the administrator's group, not Bo's")
})

t.test("the API: POST /api/b2/groups starts a group or a subgroup (an extension), with the same rules", async (t) => {
  const cy = await seedUser(s.convene, { name: "Cy", email: "cy@example.org" })
  const C = s.as(cy.apiKey)
  const made = await C.post("api/b2/groups", { json: { group: { name: "Orchard", description: "Apples" } } })
  t.equal(made.statusCode, 200)
  const body = made.body as any
  t.match(body.groups[0], { name: "Orchard", handle: "orchard", parent_id: null, description: "Apples", is_visible_to_public: false })
  t.match(body.memberships[0], { group_id: body.groups[0].id, user_id: cy.user.id, admin: true })
  const sub = await C.post("api/b2/groups", { json: { name: "Pears", parent_id: body.groups[0].id } })
  t.equal(sub.statusCode, 200)
  t.match((sub.body as any).groups[0], { handle: "orchard-pears", parent_id: body.groups[0].id })
  const before = (await s.sql<{ n: number }>("SELECT count(*) AS n FROM groups"))[0]!.n
  const blank = await C.post("api/b2/groups", { json: { name: " " } })
  matchExact(t, [blank.statusCode, Object.keys((blank.body as any).errors)], [422, ["name"]])
  const badHandle = await C.post("api/b2/groups", { json: { name: "X", handle: "Not A Handle" } })
  matchExact(t, [badHandle.statusCode, (badHandle.body as any).errors], [422, { handle: ["must be 2-63 lowercase letters, digits or '-'"] }])
  t.match(await C.post("api/b2/groups", { json: { name: "X", parent_id: (sub.body as any).groups[0].id } }), { statusCode: 403 }, "no subgroup of a subgroup")
  t.match(await s.as((await seedUser(s.convene, { name: "Di" })).apiKey).post("api/b2/groups", { json: { name: "X", parent_id: body.groups[0].id } }), { statusCode: 403 },
    "a subgroup only by the parent's administrators")
  t.match(await C.post("api/b2/groups", { json: { handle: "x" } }), { statusCode: 400, body: { error: /name/ } })
  t.equal((await s.sql<{ n: number }>("SELECT count(*) AS n FROM groups"))[0]!.n, before, "nothing written")
})

t.test("group settings: name, privacy with its threads, permissions; only administrators", async (t) => {
  const [garden] = await groupsNamed("Garden Club")
  const [tools] = await groupsNamed("Tools")
  const thread = ((await s.as(adaKey).post("api/b2/discussions", { json: { group_id: garden!.id, title: "Compost" } })).body as any).discussions[0]
  const page = await signIn(await browser.newContext(), "ada@example.org")
  await page.goto(`${s.url}/g/${garden!.key}`)
  await page.getByRole("link", { name: "Group settings" }).click()
  await axe(t, page, "group settings")
  t.ok(await page.getByLabel("Secret").isChecked(), "the group's privacy as stored")
  t.notOk(await page.getByLabel("Members can create subgroups").isChecked())

  // open: listed, its threads public; members may start subgroups
  await page.getByLabel("Group name").fill("Garden Club (open)")
  await page.getByLabel("Open", { exact: true }).check()
  await page.getByLabel("Members can create subgroups").check()
  await page.getByLabel("Members can start polls").uncheck()
  await page.getByRole("button", { name: "Save settings" }).click()
  await page.getByRole("status").filter({ hasText: "The group's settings are saved." }).waitFor()
  t.equal(await page.locator("h1").textContent(), "Garden Club (open)")
  matchExact(t, (await s.sql(`SELECT name, is_visible_to_public, discussion_privacy_options, members_can_create_subgroups, members_can_raise_motions FROM groups WHERE id = ?`, garden!.id)),
    [{ name: "Garden Club (open)", is_visible_to_public: 1, discussion_privacy_options: "public_only", members_can_create_subgroups: 1, members_can_raise_motions: 0 }])
  matchExact(t, await s.sql(`SELECT private FROM topics WHERE id = ?`, thread.topic_id), [{ private: 0 }], "its thread public")

  // a blank name: refused beside the field, what was chosen kept, nothing written
  await page.goto(`${s.url}/g/${garden!.key}/settings`)
  await page.getByLabel("Group name").fill("   ")
  await page.getByLabel("Secret").check()
  await page.getByRole("button", { name: "Save settings" }).click()
  await page.waitForLoadState()
  t.match(await page.locator("#name-error").textContent(), /Please fill this in/)
  t.ok(await page.getByLabel("Secret").isChecked(), "the choice kept")
  t.ok(await page.getByLabel("Members can create subgroups").isChecked(), "the checkboxes as they were sent")
  await axe(t, page, "group settings, refused")

  // secret: hidden, the threads private, the subgroup closed (seen by the parent's members only)
  await page.getByLabel("Group name").fill("Garden Club")
  await page.getByRole("button", { name: "Save settings" }).click()
  await page.getByRole("status").filter({ hasText: "The group's settings are saved." }).waitFor()
  matchExact(t, await s.sql(`SELECT is_visible_to_public, discussion_privacy_options FROM groups WHERE id = ?`, garden!.id), [{ is_visible_to_public: 0, discussion_privacy_options: "private_only" }])
  matchExact(t, await s.sql(`SELECT private FROM topics WHERE id = ?`, thread.topic_id), [{ private: 1 }], "its thread private")
  matchExact(t, await s.sql(`SELECT is_visible_to_public, is_visible_to_parent_members FROM groups WHERE id = ?`, tools!.id), [{ is_visible_to_public: 0, is_visible_to_parent_members: 1 }])

  // a subgroup of a secret group cannot be open
  const sub = await s.as(adaKey).patch(`api/b2/groups/${tools!.id}`, { json: { group_privacy: "open" } })
  matchExact(t, [sub.statusCode, (sub.body as any).errors], [422, { group_privacy: ["can only be closed or secret in a secret parent group"] }])

  // Bo, a member: may start a subgroup now, may not change the settings
  const bo = await signIn(await browser.newContext(), "bo@example.org")
  await bo.goto(`${s.url}/g/${garden!.key}`)
  t.equal(await bo.getByRole("link", { name: "Start a subgroup" }).count(), 1, "members_can_create_subgroups lets members start one")
  t.equal(await bo.getByRole("link", { name: "Group settings" }).count(), 0)
  t.equal((await bo.goto(`${s.url}/g/${garden!.key}/settings`))!.status(), 404)
  const token = (await bo.context().cookies()).find((c) => c.name === "convene_csrf")!.value
  const forged = await bo.request.post(`${s.url}/g/${garden!.key}/settings`, { form: { csrf: token, name: "Bo's club", group_privacy: "open" } })
  t.equal(forged.status(), 403)
  t.equal((await s.sql<{ name: string }>(`SELECT name FROM groups WHERE id = ?`, garden!.id))[0]!.name, "Garden Club", "nothing written")
})

t.test("leave group: after a confirmation, out of the group and its subgroups; votes cast stay, ballots not cast go", async (t) => {
  const eve = await seedUser(s.convene, { name: "Eve", email: "eve@example.org" })
  const { group: club } = await s.convene.groups.create({ name: "Bees", owner: adaSeed.user, handle: "bees" })
  await s.convene.members.add({ group: club, user: eve.user })
  const hive = ((await s.as(adaKey).post("api/b2/groups", { json: { name: "Hive", parent_id: club.id } })).body as any).groups[0]
  await s.convene.members.add({ group: (await s.convene.groups.list()).find((g) => g.group.id === hive.id)!.group, user: eve.user })
  const poll = async (title: string) =>
    ((await s.as(adaKey).post("api/b2/polls", { json: { group_id: club.id, title, poll_type: "proposal", closing_at: future() } })).body as any).polls[0]
  const voted = await poll("Voted")
  const notVoted = await poll("Not voted")
  t.equal((await s.as(eve.apiKey).post("api/b2/stances", { json: { poll_id: voted.id, option_scores: { agree: 1 } } })).statusCode, 200)

  const page = await signIn(await browser.newContext(), "eve@example.org")
  await page.goto(`${s.url}/g/${club.key}`)
  await page.getByRole("link", { name: "Leave group" }).click()
  await axe(t, page, "leave group")
  t.equal(await page.locator("h1").textContent(), "Leave Bees?")
  t.equal(await page.getByText(/last administrator/).count(), 0, "Eve is no administrator")
  await page.getByRole("button", { name: "Leave group" }).click()
  await page.getByRole("status").filter({ hasText: "You have left the group." }).waitFor()
  t.equal(page.url(), `${s.url}/`)
  matchExact(t, await s.sql(`SELECT group_id, revoked_at IS NOT NULL AS revoked FROM memberships WHERE user_id = ? ORDER BY group_id`, eve.user.id),
    [{ group_id: club.id, revoked: 1 }, { group_id: hive.id, revoked: 1 }], "out of the group and its subgroup")
  matchExact(t, await s.sql(`SELECT poll_id, cast_at IS NOT NULL AS cast, revoked_at IS NOT NULL AS revoked FROM stances WHERE participant_id = ? AND latest = TRUE ORDER BY poll_id`, eve.user.id),
    [{ poll_id: voted.id, cast: 1, revoked: 0 }, { poll_id: notVoted.id, cast: 0, revoked: 1 }], "the vote cast stays; the ballot not cast goes")
  t.match(((await s.as(adaKey).get(`api/b2/polls/${voted.id}`)).body as any).polls[0], { decided_voters_count: 1 }, "and is still counted")
  t.equal((await page.goto(`${s.url}/g/${club.key}/leave`))!.status(), 404, "no more to leave")
  t.equal((await s.as(eve.apiKey).post(`api/b2/groups/${club.id}/leave`)).statusCode, 404)

  // the last administrator is told, and may leave
  const ada = await signIn(await browser.newContext(), "ada@example.org")
  await ada.goto(`${s.url}/g/${club.key}/leave`)
  t.equal(await ada.getByText(/You are its last administrator/).count(), 1)
  matchExact(t, (await s.as(adaKey).post(`api/b2/groups/${hive.id}/leave`)).body, { success: true }, "over the API too")
})

t.test("your account: Download my data; Delete my account, its comments kept under the placeholder name", async (t) => {
  const fay = await seedUser(s.convene, { name: "Fay", email: "fay@example.org" })
  const [garden] = await groupsNamed("Garden Club")
  await s.convene.members.add({ group: (await s.convene.groups.list()).find((g) => g.group.id === garden!.id)!.group, user: fay.user })
  const F = s.as(fay.apiKey)
  const d = ((await F.post("api/b2/discussions", { json: { group_id: garden!.id, title: "Fay's thread", description: "Mine" } })).body as any).discussions[0]
  const c = ((await F.post("api/b2/comments", { json: { discussion_id: d.id, body: "Fay was here" } })).body as any).comments[0]

  const page = await signIn(await browser.newContext(), "fay@example.org")
  await page.goto(`${s.url}/profile`)
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("link", { name: "Download my data" }).click()])
  t.equal(download.suggestedFilename(), "convene-data.json")
  const data = JSON.parse(await (await import("node:fs/promises")).readFile((await download.path())!, "utf8"))
  t.match(data.profile, { id: fay.user.id, name: "Fay", email: "fay@example.org" })
  t.notMatch(JSON.stringify(data), /api_key|hash|token/, "nothing secret")
  t.match(data.memberships.find((m: any) => m.group === "Garden Club"), { link: `http://convene.test/g/${garden!.key}` })
  matchExact(t, data.discussions.map((x: any) => [x.title, x.link]), [["Fay's thread", `http://convene.test/d/${d.key}`]])
  matchExact(t, data.comments.map((x: any) => [x.body, x.link]), [["Fay was here", `http://convene.test/d/${d.key}#comment-${c.id}`]])

  await page.getByRole("link", { name: "Delete my account" }).click()
  await axe(t, page, "delete my account")
  await page.getByLabel("Type your e-mail address to confirm").fill("someone@example.org")
  await page.getByRole("button", { name: "Delete my account" }).click()
  await page.waitForLoadState()
  t.match(await page.locator("#email-error").textContent(), /not your e-mail address/)
  matchExact(t, await s.sql(`SELECT redacted_at FROM users WHERE id = ?`, fay.user.id), [{ redacted_at: null }], "nothing changed")
  await axe(t, page, "delete my account, refused")
  await page.getByLabel("Type your e-mail address to confirm").fill("FAY@example.org")
  await page.getByRole("button", { name: "Delete my account" }).click()
  await page.getByRole("status").filter({ hasText: "Your account is deleted." }).waitFor()
  t.equal(await page.getByRole("link", { name: "Sign in" }).count() > 0, true, "signed out")
  matchExact(t, await s.sql(`SELECT name, email, redacted_at IS NOT NULL AS redacted FROM users WHERE id = ?`, fay.user.id), [{ name: null, email: null, redacted: 1 }])
  t.equal((await s.sql(`SELECT count(*) AS n FROM sessions WHERE user_id = ?`, fay.user.id))[0]!.n, 0, "every session ended")
  const thread = (await s.as(adaKey).get(`api/b2/discussions/${d.id}`)).body as any
  t.match(thread.users.find((u: any) => u.id === fay.user.id), { name: "Anonymous" }, "her thread kept under the placeholder name")
  t.equal((await s.sql<{ body: string }>(`SELECT body FROM comments WHERE id = ?`, c.id))[0]!.body, "Fay was here", "and her comment")
  t.equal((await F.get("api/b2/groups")).statusCode, 403, "her API key no longer works")
})

t.test("change e-mail address: a link to the new address, the old one told, nothing changed until the link is used", async (t) => {
  const gil = await seedUser(s.convene, { name: "Gil", email: "gil@example.org" })
  const page = await signIn(await browser.newContext(), "gil@example.org")
  await page.goto(`${s.url}/profile`)
  await page.getByRole("link", { name: "Change e-mail address" }).click()
  await axe(t, page, "change e-mail address")
  const before = smtp.received.length
  await page.getByLabel("New e-mail address").fill("Gil.New@example.org")
  await page.getByRole("button", { name: "Change e-mail address" }).click()
  await page.getByRole("status").filter({ hasText: "A link is on its way to the new address" }).waitFor()
  const toNew = await smtp.mailTo("gil.new@example.org", before)
  const toOld = await smtp.mailTo("gil@example.org", before)
  t.match(toOld.text, /asked to use gil\.new@example\.org/, "the present address is told")
  t.notMatch(toOld.text, /\/profile\/email\//, "without the link")
  const link = /http:\/\/convene\.test(\/profile\/email\/[A-Za-z0-9_-]+)/.exec(toNew.text ?? "")![1]!
  matchExact(t, await s.sql(`SELECT email FROM users WHERE id = ?`, gil.user.id), [{ email: "gil@example.org" }], "nothing changed yet")
  matchExact(t, await s.sql(`SELECT token_hash IS NOT NULL AS hashed FROM email_changes WHERE user_id = ?`, gil.user.id), [{ hashed: 1 }])
  t.notOk(JSON.stringify(await s.sql(`SELECT * FROM email_changes`)).includes(link.split("/").pop()!), "the token stored only hashed")

  // the link shows what it does; the button changes the address, once
  const visitor = browserSession(s.url)
  const shown = await visitor.get(link)
  t.equal(shown.status, 200)
  t.match(shown.html, /Use gil\.new@example\.org\?/)
  matchExact(t, await s.sql(`SELECT email FROM users WHERE id = ?`, gil.user.id), [{ email: "gil@example.org" }], "opening the link changes nothing")
  const used = await visitor.post(link, {})
  t.equal(used.status, 200)
  t.match(used.html, /Your e-mail address is now gil\.new@example\.org/)
  matchExact(t, await s.sql(`SELECT email FROM users WHERE id = ?`, gil.user.id), [{ email: "gil.new@example.org" }])
  t.equal((await visitor.post(link, {})).status, 410, "a link works once")
  t.equal((await visitor.get("/profile/email/not-a-token-at-all-xx")).status, 410)

  // refused: an address someone else has, one's own; nothing sent
  const b = browserSession(s.url)
  await b.get("/sign-in")
  const sent = smtp.received.length
  await b.post("/sign-in", { email: "gil.new@example.org" })
  const code = /\b(\d{6})\b/.exec((await smtp.mailTo("gil.new@example.org", sent)).subject ?? "")![1]!
  await b.post("/sign-in/code", { email: "gil.new@example.org", code })
  const taken = await b.post("/profile/email", { email: "ada@example.org" })
  t.equal(taken.status, 422)
  t.match(taken.html, /id="email-error">can&#39;t be used/)
  t.equal((await b.post("/profile/email", { email: "gil.new@example.org" })).status, 422, "already one's address")
  t.equal((await b.post("/profile/email", { email: "x" }, { csrf: false })).status, 403, "a forged POST")
  t.equal(await s.sql(`SELECT count(*) AS n FROM email_changes WHERE user_id = ?`, gil.user.id).then((r: any) => r[0].n), 1, "no new request")
})

t.test("edit poll: title, options (a voted one removed after confirming, the results recounted), the voters told", async (t) => {
  const [garden] = await groupsNamed("Garden Club")
  const poll = ((await s.as(adaKey).post("api/b2/polls", {
    json: { group_id: garden!.id, title: "Lunch", poll_type: "poll", options: ["soup", "salad", "bread"], closing_at: future() }
  })).body as any).polls[0]
  const boKey = (await s.sql<{ id: number }>(`SELECT id FROM users WHERE email = 'bo@example.org'`))[0]!.id
  t.equal(boKey, boUser.id)
  const bo = await signIn(await browser.newContext(), "bo@example.org")
  await bo.goto(`${s.url}/p/${poll.key}`)
  await bo.getByLabel("salad", { exact: true }).check()
  await bo.getByRole("button", { name: "Vote", exact: true }).click()
  await bo.getByRole("status").waitFor()
  t.equal(await bo.getByRole("link", { name: "Edit poll" }).count(), 0, "not Bo's to edit")
  t.equal((await bo.goto(`${s.url}/p/${poll.key}/edit`))!.status(), 404)

  const page = await signIn(await browser.newContext(), "ada@example.org")
  await page.goto(`${s.url}/p/${poll.key}`)
  await page.getByRole("link", { name: "Edit poll" }).click()
  await axe(t, page, "edit poll")
  t.equal(await page.getByLabel("Options", { exact: true }).inputValue(), "soup\nsalad\nbread")
  await page.getByLabel("Title").fill("Lunch on Friday")
  await page.getByLabel("Options", { exact: true }).fill("soup\nbread\npasta")
  await page.getByLabel("What's changed? (optional)").fill("Salad is off; pasta is on.")
  await page.getByLabel("Tell the voters by e-mail").check()
  await page.getByRole("button", { name: "Save poll" }).click()
  await page.waitForLoadState()
  t.match(await page.locator("#options-error").textContent(), /removes the votes for it/, "a voted option: asked first")
  await axe(t, page, "edit poll, confirming")
  matchExact(t, (await s.sql(`SELECT name FROM poll_options WHERE poll_id = ? ORDER BY priority`, poll.id)).map((o: any) => o.name), ["soup", "salad", "bread"], "nothing changed yet")
  const before = smtp.received.length
  await page.getByLabel("Remove salad, and the votes for them").check()
  await page.getByRole("button", { name: "Save poll" }).click()
  await page.getByRole("status").filter({ hasText: "The poll is saved." }).waitFor()
  t.equal(await page.locator("h1").textContent(), "Lunch on Friday")
  matchExact(t, (await s.sql(`SELECT name FROM poll_options WHERE poll_id = ? ORDER BY priority`, poll.id)).map((o: any) => o.name), ["soup", "bread", "pasta"])
  const shown = ((await s.as(adaKey).get(`api/b2/polls/${poll.id}`)).body as any).polls[0]
  matchExact(t, shown.stance_data, { soup: 0, bread: 0, pasta: 0 }, "recounted: the removed option's vote is gone")
  const told = await smtp.mailTo("bo@example.org", before)
  t.match(told.subject, /Ada edited the poll Lunch on Friday/)
  t.match(told.text, /Salad is off; pasta is on\./)
})

t.test("pin thread: first in its group's list until unpinned; over the API too; not by someone who may not edit it", async (t) => {
  const [garden] = await groupsNamed("Garden Club")
  const A = s.as(adaKey)
  const older = ((await A.post("api/b2/discussions", { json: { group_id: garden!.id, title: "Older thread" } })).body as any).discussions[0]
  await A.post("api/b2/discussions", { json: { group_id: garden!.id, title: "Newer thread" } })
  const page = await signIn(await browser.newContext(), "ada@example.org")
  const listed = async () => {
    await page.goto(`${s.url}/g/${garden!.key}`)
    return (await page.locator("main ul").nth(1).locator("li").allTextContents()).filter((x) => /Older thread|Newer thread/.test(x)).map((x) => x.trim())
  }
  t.same((await listed()).slice(0, 2), ["Newer thread", "Older thread"], "latest activity first")
  await page.goto(`${s.url}/d/${older.key}`)
  await page.getByRole("button", { name: "Pin thread" }).click()
  await page.getByRole("status").filter({ hasText: "The thread is pinned" }).waitFor()
  await axe(t, page, "a pinned thread")
  t.same((await listed())[0], "Older thread · pinned", "pinned first")
  matchExact(t, ((await A.get(`api/b2/discussions/${older.id}`)).body as any).topics[0].pinned_at, String, "the topic's pinned_at")

  const gil = s.as((await seedUser(s.convene, { name: "Hal" })).apiKey)
  t.ok([403, 404].includes((await gil.post(`api/b2/discussions/${older.id}/unpin`)).statusCode), "someone who cannot see the thread cannot unpin it")
  const unpinned = await A.post(`api/b2/discussions/${older.id}/unpin`)
  t.equal(unpinned.statusCode, 200)
  matchExact(t, (unpinned.body as any).topics[0].pinned_at, null)
  t.same((await listed()).slice(0, 2), ["Newer thread", "Older thread"], "back in its place")
})

/** A second server whose settings say FEATURES_DISABLE_CREATE_GROUP=1 (read by settingsFromEnv, as `convene serve` does). */
async function startBrowsingAdminsOnly() {
  const { settingsFromEnv } = await import("@convene/http")
  const fromEnv = settingsFromEnv({ FEATURES_DISABLE_CREATE_GROUP: "1" }, { host: "127.0.0.1", port: 0 })
  const other = await startBrowsing({ onlyAdminsStartGroups: fromEnv.onlyAdminsStartGroups })
  await seedUser(other.s.convene, { name: "Bo", email: "bo@example.org" })
  await seedUser(other.s.convene, { name: "Root", email: "root@example.org", is_admin: true })
  return { ...other, signIn: codeSignIn(other.s, other.smtp) }
}
