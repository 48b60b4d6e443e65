/**
 * People through the real server and a real SMTP server: an invitation mailed, opened and accepted; the API
 * access page and its new key; sign-in by code and by one-time link; sign-out and deactivation ending every
 * session; and each refusal (missing CSRF token, used or expired invitation, wrong or too many codes, too
 * many requests, a session on /api).
 */
import t from "tap"
import { browserSession, runHere, seedUser, startTestServer } from "./helpers.js"
import { matchExact } from "./match.js"
import { linkIn, startMailedServer } from "./mailed.js"

const server = await startMailedServer()
const { s, smtp } = server
t.teardown(server.close)

const browser = () => browserSession(s.url)

const mailTo = smtp.mailTo

const ada = await seedUser(s.convene, { name: "Ada", email: "ada@example.org" })
const { group } = await s.convene.groups.create({ name: "Garden Club", owner: ada.user })
const A = s.as(ada.apiKey)

t.test("an invitation is mailed, opened and accepted; the person lands on the API access page and gets a key", async (t) => {
  const before = smtp.received.length
  t.equal((await A.post("api/b2/memberships", { json: { group_id: group.id, emails: ["bob@example.org"] } })).statusCode, 200)
  const path = linkIn(await mailTo("bob@example.org", before))
  t.match(path, /^\/invitations\/[A-Za-z0-9_-]{32}$/)
  const bob = browser()
  const shown = await bob.get(path)
  t.equal(shown.status, 200)
  t.match(shown.html, /Ada invited you to join the group Garden Club/)
  t.match(shown.html, /<label for="name">Your name<\/label>/, "a person invited by address is asked their name")
  t.match(shown.html, /<button type="submit">Accept invitation<\/button>/)
  t.match(shown.headers.get("content-security-policy"), /default-src 'none'.*frame-ancestors 'none'/)
  t.notMatch(shown.html, /<script/i, "no script at all")

  const noToken = await bob.post(path, { name: "Bob" }, { csrf: false })
  t.equal(noToken.status, 403, "no CSRF token: refused")
  const wrongToken = await bob.post(path, { name: "Bob", csrf: "x".repeat(32) }, { csrf: false })
  t.equal(wrongToken.status, 403, "a wrong CSRF token: refused")
  t.equal((await bob.post(path, { name: " " })).status, 422, "a name is needed")
  matchExact(t, (await s.sql("SELECT accepted_at FROM memberships WHERE group_id = ? ORDER BY id DESC LIMIT 1", group.id)), [{ accepted_at: null }], "nothing changed")

  const accepted = await bob.post(path, { name: "Bob Builder" })
  t.equal(accepted.status, 303)
  t.equal(accepted.headers.get("location"), `/g/${group.key}`, "to the group's page, not the API access page")
  const setCookie = accepted.headers.getSetCookie().find((c) => c.startsWith("convene_session="))!
  t.match(setCookie, /HttpOnly/i)
  t.match(setCookie, /SameSite=Lax/i)
  t.notMatch(setCookie, /Secure/i, "not Secure over http")
  matchExact(t, (await s.sql("SELECT m.accepted_at, u.name FROM memberships m JOIN users u ON u.id = m.user_id WHERE u.email = 'bob@example.org'")), [{ accepted_at: String, name: "Bob Builder" }])
  t.equal((await s.sql<{ n: number }>("SELECT count(*) AS n FROM sessions WHERE token_hash = ?", bob.cookies.get("convene_session")))[0]!.n, 0, "the session is stored hashed")

  const again = await browser().get(path)
  t.equal(again.status, 410, "an invitation works once")
  t.match(again.html, /already been accepted/)

  const access = await bob.get("/profile/api_access")
  t.equal(access.status, 200)
  t.equal(access.headers.get("cache-control"), "no-store")
  t.equal(access.headers.get("referrer-policy"), "no-referrer")
  t.match(access.html, new RegExp(`<td>${group.id}</td><td><code>${group.key}</code></td><td>Garden Club</td>`))
  t.match(access.html, /Authorization: Bearer/)
  t.match(access.html, /http:\/\/convene\.test\/api\/b2/)
  t.match(access.html, /Sign out/)
  const made = await bob.post("/profile/api_access", {})
  const key = /<code id="api-key">([^<]+)<\/code>/.exec(made.html)?.[1]
  t.ok(key, "the new key is shown once")
  const groups = await s.api.get("api/b2/groups", { headers: { authorization: `Bearer ${key}` } })
  t.equal(groups.statusCode, 200, "and works on the API")
  t.same((groups.body as any).groups.map((g: any) => g.id), [group.id])
  const viaCookie = await fetch(`${s.url}/api/b2/groups`, { headers: { cookie: `convene_session=${bob.cookies.get("convene_session")}` } })
  t.equal(viaCookie.status, 403, "a session never authenticates the API")
  t.notMatch((await bob.get("/profile/api_access")).html, /api-key/, "the key is not shown again")
})

t.test("an expired invitation says so (410) and cannot be accepted; an unknown one is 404", async (t) => {
  const before = smtp.received.length
  await s.convene.members.add({ group, user: (await seedUser(s.convene, { name: "Cy", email: "cy@example.org" })).user, pending: true })
  const path = linkIn(await mailTo("cy@example.org", before))
  t.equal((await browser().get(path)).status, 200, "valid for 30 days")
  await s.sql("UPDATE invitation_tokens SET expires_at = '2000-01-01T00:00:00.000Z' WHERE user_id = (SELECT id FROM users WHERE email = 'cy@example.org')")
  const b = browser()
  const gone = await b.get(path)
  t.equal(gone.status, 410)
  t.match(gone.html, /expired/)
  t.match(gone.html, /href="\/sign-in"/, "with a link to sign in")
  t.equal((await b.post(path, {})).status, 410, "and cannot be accepted")
  matchExact(t, (await s.sql("SELECT m.accepted_at FROM memberships m JOIN users u ON u.id = m.user_id WHERE u.email = 'cy@example.org'")), [{ accepted_at: null }])
  t.equal((await browser().get("/invitations/not-a-token")).status, 404)
})

t.test("sign-in by code: never reveals an account, codes single-use", async (t) => {
  const carol = await seedUser(s.convene, { name: "Carol", email: "carol@example.org" })
  const b = browser()
  const form = await b.get("/sign-in")
  t.match(form.html, /<label for="email">E-mail address<\/label>/)
  t.match(form.html, /<button type="submit">Send me a code<\/button>/)
  t.equal((await b.post("/sign-in", { email: "carol@example.org" }, { csrf: false })).status, 403, "CSRF")
  const before = smtp.received.length
  const known = await b.post("/sign-in", { email: "carol@example.org" })
  const unknown = await b.post("/sign-in", { email: "nobody@example.org" })
  t.equal(known.status, 200)
  t.equal(unknown.status, 200)
  t.equal(known.html.replace(/carol@example\.org/g, "X").replace(/value="[^"]*"/g, ""), unknown.html.replace(/nobody@example\.org/g, "X").replace(/value="[^"]*"/g, ""),
    "the answer is the same with or without an account")
  const mail = await mailTo("carol@example.org", before)
  await new Promise((r) => setTimeout(r, 200))
  t.notOk(smtp.received.slice(before).some((m) => !Array.isArray(m.to) && m.to?.text === "nobody@example.org"), "no mail to an address without an account")
  const code = /\b(\d{6})\b/.exec(mail.subject ?? "")![1]!
  t.match(mail.text, /Your sign-in code is \*\*\d{6}\*\*/)
  t.equal((await s.sql<{ n: number }>("SELECT count(*) AS n FROM login_codes WHERE code_hash LIKE ?", `%${code}%`))[0]!.n, 0, "stored hashed")

  const wrong = await b.post("/sign-in/code", { email: "carol@example.org", code: code === "123456" ? "654321" : "123456" })
  t.equal(wrong.status, 403)
  t.match(wrong.html, /wrong or has expired/)
  const right = await b.post("/sign-in/code", { email: "carol@example.org", code })
  t.equal(right.status, 303)
  t.match((await b.get("/profile/api_access")).html, /Signed in as <strong>Carol<\/strong>/)
  t.equal((await browser().post("/sign-in/code", { email: "carol@example.org", code })).status, 403, "a code works once")

  // the limits (5 codes an hour, 30 requests an hour per client, 10 wrong codes) are pinned in sign-in-limits.test.ts
  t.same((await s.sql("SELECT count(*) AS n FROM sessions WHERE user_id = ?", carol.user.id)), [{ n: 1 }], "one session, from the right code")
})

t.test("sign-in by one-time link; sign-out and deactivation end every session", async (t) => {
  const dan = await seedUser(s.convene, { name: "Dan", email: "dan@example.org" })
  const one = browser()
  const two = browser()
  for (const b of [one, two]) {
    await b.get("/sign-in")
    const before = smtp.received.length
    await b.post("/sign-in", { email: "dan@example.org" })
    const path = linkIn(await mailTo("dan@example.org", before))
    t.match(path, /^\/sign-in\/link\//)
    const landing = await b.get(path)
    t.equal(landing.status, 200, "a GET only shows a button: mail scanners do not sign anyone in")
    t.equal((await b.get("/profile/api_access")).status, 303)
    const res = await b.post(path, {})
    t.equal(res.status, 303)
    t.equal((await b.post(path, {})).status, 410, "a link works once")
  }
  t.equal((await one.get("/profile/api_access")).status, 200)
  t.equal((await two.get("/profile/api_access")).status, 200)
  t.equal((await one.post("/sign-out", {}, { csrf: false })).status, 403, "sign-out needs the CSRF token")
  const out = await one.post("/sign-out", {})
  t.equal(out.status, 303)
  t.equal(out.headers.get("location"), "/sign-in")
  t.equal((await two.get("/profile/api_access")).status, 303, "every session of the person ended")

  const three = browser()
  await three.get("/sign-in")
  const before = smtp.received.length
  await three.post("/sign-in", { email: "dan@example.org" })
  await three.post(linkIn(await mailTo("dan@example.org", before)), {})
  t.equal((await three.get("/profile/api_access")).status, 200)
  t.equal((await s.b3.post(`api/b3/users/${dan.user.id}/deactivate`)).statusCode, 200)
  t.equal((await three.get("/profile/api_access")).status, 303, "deactivation ends the sessions")
  t.equal((await s.sql<{ n: number }>("SELECT count(*) AS n FROM sessions WHERE user_id = ?", dan.user.id))[0]!.n, 0)
})

t.test("record pages: signed out, a prompt with no title; signed in, the thread and the poll; every poll type votes from its page", async (t) => {
  const erin = await seedUser(s.convene, { name: "Erin", email: "erin@example.org" })
  await s.convene.members.add({ group, user: erin.user })
  const signIn = async () => {
    const b = browser()
    await b.get("/sign-in")
    const before = smtp.received.length
    await b.post("/sign-in", { email: "erin@example.org" })
    await b.post(linkIn(await mailTo("erin@example.org", before)), {})
    return b
  }
  const e = await signIn()
  const d = ((await A.post("api/b2/discussions", { json: { group_id: group.id, title: "Secret <b>plans</b>", description: "We meet at **noon**." } })).body as any).discussions[0]
  await A.post("api/b2/comments", { json: { discussion_id: d.id, body: "A <script>alert(1)</script> comment" } })

  const out = await browser().get(`/d/${d.key}`)
  t.equal(out.status, 403)
  t.notMatch(out.html, /Secret|plans/, "no title leaks to a signed-out visitor")
  t.match(out.html, /href="\/sign-in"/)
  const page = await e.get(`/d/${d.key}`)
  t.equal(page.status, 200)
  t.match(page.html, /<h1>Secret &lt;b&gt;plans&lt;\/b&gt;<\/h1>/, "titles are escaped")
  t.match(page.html, /<strong>noon<\/strong>/, "markdown is rendered")
  t.notMatch(page.html, /<script>alert/, "and user HTML never runs")
  const outsider = browser()
  await outsider.get("/sign-in")
  await seedUser(s.convene, { name: "Out", email: "out@example.org" })
  const before = smtp.received.length
  await outsider.post("/sign-in", { email: "out@example.org" })
  await outsider.post(linkIn(await mailTo("out@example.org", before)), {})
  const hidden = await outsider.get(`/d/${d.key}`)
  t.equal(hidden.status, 404, "a signed-in non-member gets not found")
  t.notMatch(hidden.html, /Secret/)
  t.match((await e.get(`/g/${group.key}`)).html, new RegExp(`<a href="/d/${d.key}">Secret &lt;b&gt;plans&lt;/b&gt;</a>`))

  const future = new Date(Date.now() + 86_400_000).toISOString()
  const poll = async (body: Record<string, unknown>) =>
    ((await A.post("api/b2/polls", { json: { group_id: group.id, title: `A ${body.poll_type} poll`, closing_at: future, ...body } })).body as any).polls[0]
  const cases: Array<[Record<string, unknown>, Record<string, string | Array<string>>, Record<string, number>]> = [
    [{ poll_type: "proposal" }, { choice: "agree" }, { agree: 1 }],
    [{ poll_type: "poll", options: ["tea", "coffee"] }, { choice: "coffee" }, { coffee: 1 }],
    [{ poll_type: "poll", options: ["red", "green", "blue"], maximum_stance_choices: 2 }, { choice: ["red", "blue"] }, { red: 1, blue: 1 }],
    [{ poll_type: "count" }, { choice: "accept" }, { accept: 1 }],
    [{ poll_type: "score", options: ["a", "b"] }, { "score:a": "4", "score:b": "1" }, { a: 4, b: 1 }],
    [{ poll_type: "ranked_choice", options: ["x", "y", "z"] }, { "rank:x": "2", "rank:y": "1", "rank:z": "3" }, { x: 2, y: 3, z: 1 }],
    [{ poll_type: "meeting", options: ["2019-01-01", "2019-01-02"] }, { "score:2019-01-01": "2", "score:2019-01-02": "1" }, { "2019-01-01": 2, "2019-01-02": 1 }],
    [{ poll_type: "dot_vote", options: ["p", "q"] }, { "score:p": "5", "score:q": "3" }, { p: 5, q: 3 }]
  ]
  for (const [body, fields, expected] of cases) {
    const p = await poll(body)
    const shown = await e.get(`/p/${p.key}`)
    t.equal(shown.status, 200, `${body.poll_type}: the page`)
    t.match(shown.html, /<button type="submit">Vote<\/button>/)
    const params = new URLSearchParams({ csrf: e.cookies.get("convene_csrf")! })
    for (const [k, v] of Object.entries(fields)) for (const x of Array.isArray(v) ? v : [v]) params.append(k, x)
    const res = await fetch(`${s.url}/p/${p.key}/vote`, {
      method: "POST", redirect: "manual", body: params.toString(),
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: [...e.cookies].map(([k, v]) => `${k}=${v}`).join("; ") }
    })
    t.equal(res.status, 303, `${body.poll_type}: voted (${res.status === 303 ? "" : await res.text()})`)
    const mine = ((await s.as(erin.apiKey).get(`api/b2/polls/${p.id}`)).body as any).stances[0]
    t.same(mine.option_scores, expected, `${body.poll_type}: the ballot as the form said`)
    // the answer's notice cookie, as the browser would keep it
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(";")
      e.cookies.set(pair!.slice(0, pair!.indexOf("=")), pair!.slice(pair!.indexOf("=") + 1))
    }
    const after = await e.get(`/p/${p.key}`)
    t.match(after.html, /Your vote is recorded/)
    t.match(after.html, /Change vote/)
    t.notMatch((await e.get(`/p/${p.key}`)).html, /Your vote is recorded/, "told once: not again on reload")
  }
  const ranked = await poll({ poll_type: "ranked_choice", options: ["x", "y"] })
  const bad = await e.post(`/p/${ranked.key}/vote`, { "rank:x": "1", "rank:y": "1" })
  t.equal(bad.status, 422, "a ballot that breaks the type's rules")
  t.match(bad.html, /class="error" id="ballot-error" role="alert">Give each option a different rank\./)
  t.equal((await e.post(`/p/${ranked.key}/vote`, { "score:x": "1", "score:y": "2" }, { csrf: false })).status, 403, "CSRF")
  t.equal((await browser().get(`/p/${ranked.key}`)).status, 403, "signed out: a prompt")
})

t.test("notifications carry one-click List-Unsubscribe; unsubscribing stops the group's notifications, not invitations", async (t) => {
  const fay = await seedUser(s.convene, { name: "Fay", email: "fay@example.org" })
  await s.convene.members.add({ group, user: fay.user })
  let before = smtp.received.length
  await A.post("api/b2/discussions", { json: { group_id: group.id, title: "Picnic", recipient_user_ids: [fay.user.id] } })
  const note = await mailTo("fay@example.org", before)
  t.equal(note.subject, "Ada started a discussion: Picnic")
  const raw = (name: string) => note.headerLines.find((h) => h.key === name)?.line ?? ""
  const header = raw("list-unsubscribe")
  const link = /<(http:\/\/convene\.test\/unsubscribe\/[A-Za-z0-9_-]{32})>/.exec(header)?.[1]
  t.ok(link, "List-Unsubscribe names the link")
  t.equal(raw("list-unsubscribe-post"), "List-Unsubscribe-Post: List-Unsubscribe=One-Click")
  t.match(note.text, /Open in convene: http:\/\/convene\.test\/d\//, "the notification links to the thread")
  const path = new URL(link!).pathname
  const page = await browser().get(path)
  t.equal(page.status, 200)
  t.match(page.html, /Stop notification e-mails from <strong>Garden Club<\/strong>\?/)
  // a mail client's one-click POST: no cookie, no CSRF token
  const click = await fetch(`${s.url}${path}`, { method: "POST", body: "List-Unsubscribe=One-Click", headers: { "content-type": "application/x-www-form-urlencoded" } })
  t.equal(click.status, 200)
  t.match(await click.text(), /You no longer receive notification e-mails from <strong>Garden Club<\/strong>/)
  matchExact(t, (await s.sql("SELECT * FROM group_volumes WHERE user_id = ?", fay.user.id)), [{ group_id: group.id, volume: "mute" }])
  before = smtp.received.length
  const count = async () => (await s.sql<{ n: number }>("SELECT count(*) AS n FROM mail_outbox WHERE recipient_email = 'fay@example.org'"))[0]!.n
  const n = (await count())
  await A.post("api/b2/discussions", { json: { group_id: group.id, title: "Picnic two", recipient_user_ids: [fay.user.id] } })
  t.equal((await count()), n, "no more notifications from the group")
  t.equal((await browser().get("/unsubscribe/nope")).status, 404)
  t.equal(smtp.received.length >= before, true)
})

t.test("inviting a pending member again sends a fresh token (at most once a day); the old link stops working", async (t) => {
  let before = smtp.received.length
  await A.post("api/b2/memberships", { json: { group_id: group.id, emails: ["ivy@example.org"] } })
  const first = linkIn(await mailTo("ivy@example.org", before))
  const outboxCount = async () => (await s.sql<{ n: number }>("SELECT count(*) AS n FROM mail_outbox WHERE recipient_email = 'ivy@example.org'"))[0]!.n
  await A.post("api/b2/memberships", { json: { group_id: group.id, emails: ["ivy@example.org"] } })
  t.equal((await outboxCount()), 1, "not again within a day (an integration that syncs often floods nobody)")
  await s.sql("UPDATE rate_events SET at = '2000-01-01T00:00:00.000Z' WHERE key LIKE 'invitation-sent:%'")
  before = smtp.received.length
  const res = await A.post("api/b2/memberships", { json: { group_id: group.id, emails: ["ivy@example.org"] } })
  t.same((res.body as any).added_emails, [], "not a new member")
  const second = linkIn(await mailTo("ivy@example.org", before))
  t.not(second, first, "a fresh token")
  t.equal((await browser().get(first)).status, 410, "the old link no longer works")
  t.equal((await browser().get(second)).status, 200)
})

t.test("a public discussion of a public group reads signed out; a private one asks to sign in, with no title", async (t) => {
  const { group: open } = await s.convene.groups.create({ name: "Open Forum", owner: ada.user, public: true, settings: { discussion_privacy_options: "public_or_private" } })
  const pub = ((await A.post("api/b2/discussions", { json: { group_id: open.id, title: "Everyone welcome", private: false } })).body as any).discussions[0]
  const priv = ((await A.post("api/b2/discussions", { json: { group_id: open.id, title: "Members only", private: true } })).body as any).discussions[0]
  const visitor = browser()
  const shown = await visitor.get(`/d/${pub.key}`)
  t.equal(shown.status, 200)
  t.match(shown.html, /<h1>Everyone welcome<\/h1>/)
  t.notMatch(shown.html, /Sign out/)
  const asked = await visitor.get(`/d/${priv.key}`)
  t.equal(asked.status, 403)
  t.notMatch(asked.html, /Members only/)
  const poll = ((await A.post("api/b2/polls", { json: { group_id: open.id, title: "Open vote", poll_type: "proposal", discussion_id: pub.id, closing_at: new Date(Date.now() + 86_400_000).toISOString() } })).body as any).polls[0]
  const pollPage = await visitor.get(`/p/${poll.key}`)
  t.equal(pollPage.status, 200, "a public poll reads signed out")
  t.notMatch(pollPage.html, /<button type="submit">Vote/, "but offers no vote")
  t.equal((await visitor.post(`/p/${poll.key}/vote`, { choice: "agree" })).status, 403, "and takes none")
  const listing = await visitor.get(`/g/${open.key}`)
  t.match(listing.html, /Everyone welcome/)
  t.notMatch(listing.html, /Members only/)
})

t.test("a thread guest invited by address accepts and reads the thread; a poll guest votes", async (t) => {
  let before = smtp.received.length
  const d = ((await A.post("api/b2/discussions", { json: { group_id: group.id, title: "Guest list", recipient_emails: ["guest@example.org"], recipient_message: "Join us" } })).body as any).discussions[0]
  const mail = await mailTo("guest@example.org", before)
  t.match(mail.subject, /invited you to the discussion: Guest list/)
  const g = browser()
  const path = linkIn(mail)
  t.match(path, /^\/invitations\//)
  const shown = await g.get(path)
  t.match(shown.html, /invited you to take part in a discussion of Garden Club/)
  t.match(shown.html, /<blockquote>Join us<\/blockquote>/)
  const acceptedThread = await g.post(path, { name: "Gwen" })
  t.equal(acceptedThread.status, 303)
  t.equal(acceptedThread.headers.get("location"), `/d/${d.key}`, "and lands on the thread")
  t.equal((await g.get(`/d/${d.key}`)).status, 200, "the guest reads the thread")
  t.equal((await g.get(`/g/${group.key}`)).status, 404, "but not the group")

  before = smtp.received.length
  const poll = ((await A.post("api/b2/polls", { json: { group_id: group.id, title: "Guest vote", poll_type: "proposal", closing_at: new Date(Date.now() + 86_400_000).toISOString(), recipient_emails: ["voter@example.org"], notify_recipients: true } })).body as any).polls[0]
  const v = browser()
  const invitation = linkIn(await mailTo("voter@example.org", before))
  t.match((await v.get(invitation)).html, /invited you to take part in a poll of Garden Club/)
  const acceptedPoll = await v.post(invitation, { name: "Val" })
  t.equal(acceptedPoll.status, 303, "a poll guest accepts")
  t.equal(acceptedPoll.headers.get("location"), `/p/${poll.key}`, "and lands on the poll")
  t.equal((await v.post(`/p/${poll.key}/vote`, { choice: "agree" })).status, 303, "and votes")
})

t.test("INVITATION_TTL_DAYS sets how long invitations last: the server, the command line, and refused when not a number of days", async (t) => {
  const DAY_MS = 86_400_000
  const lifetimeDays = (rows: Array<{ created_at: string; expires_at: string }>) =>
    rows.map((r) => Math.round((Date.parse(r.expires_at) - Date.parse(r.created_at)) / DAY_MS))
  const s = await startTestServer({ invitationTtlDays: 2 })
  t.teardown(s.close)
  const ada = await seedUser(s.convene, { name: "Ada" })
  const { group } = await s.convene.groups.create({ name: "Short", owner: ada.user })
  t.equal((await s.as(ada.apiKey).post("api/b2/memberships", { json: { group_id: group.id, emails: ["bea@example.org"] } })).statusCode, 200)
  t.same(lifetimeDays((await s.sql("SELECT created_at, expires_at FROM invitation_tokens"))), [2], "the server's invitations last 2 days")

  const cli = (env: Record<string, string>, ...args: Array<string>) => runHere([...args, "--db", s.filename], env)
  const { user: cy } = await s.convene.users.create({ email: "cy@example.org", name: "Cy" })
  t.equal((await cli({ INVITATION_TTL_DAYS: "7" }, "members", "add", "--group", String(group.id), "--user", String(cy.id), "--pending")).code, 0)
  t.same(lifetimeDays((await s.sql("SELECT created_at, expires_at FROM invitation_tokens WHERE user_id = ?", cy.id))), [7], "the command line's last 7")
  const { user: dee } = await s.convene.users.create({ email: "dee@example.org", name: "Dee" })
  const refused = await cli({ INVITATION_TTL_DAYS: "soon" }, "members", "add", "--group", String(group.id), "--user", String(dee.id), "--pending")
  t.equal(refused.code, 1)
  t.match(refused.stderr, /INVITATION_TTL_DAYS=soon is not a whole number of days from 1 to 3650/)
  t.same((await s.sql("SELECT id FROM memberships WHERE user_id = ?", dee.id)), [], "and nothing was added")
  t.equal((await cli({}, "members", "add", "--group", String(group.id), "--user", String(dee.id), "--pending")).code, 0)
  t.same(lifetimeDays((await s.sql("SELECT created_at, expires_at FROM invitation_tokens WHERE user_id = ?", dee.id))), [30], "unset: 30 days")
})

t.test("the poll page offers the vote form by the vote rule, not by the poll being open", async (t) => {
  const { group: adminsVote } = await s.convene.groups.create({ name: "Admins vote", owner: ada.user, settings: { members_can_vote: false } })
  const mo = await seedUser(s.convene, { name: "Mo", email: "mo@example.org" })
  await s.convene.members.add({ group: adminsVote, user: mo.user })
  const poll = ((await A.post("api/b2/polls", { json: { group_id: adminsVote.id, title: "Admins decide", poll_type: "proposal", closing_at: new Date(Date.now() + 86_400_000).toISOString() } })).body as any).polls[0]
  const b = browser()
  await b.get("/sign-in")
  const before = smtp.received.length
  await b.post("/sign-in", { email: "mo@example.org" })
  await b.post(linkIn(await mailTo("mo@example.org", before)), {})
  const page = await b.get(`/p/${poll.key}`)
  t.equal(page.status, 200, "Mo reads the open poll")
  t.notMatch(page.html, /action="\/p\/[^"]+\/vote"/, "but is offered no vote form: members do not vote in this group")
  t.equal((await b.post(`/p/${poll.key}/vote`, { choice: "agree" })).status, 403, "and a vote posted anyway is refused")
  t.same((await s.sql("SELECT count(*) AS n FROM stances WHERE poll_id = ? AND cast_at IS NOT NULL", poll.id)), [{ n: 0 }], "nothing written")
  const api = await s.as(mo.apiKey).post("api/b2/stances", { json: { poll_id: poll.id, option_scores: { agree: 1 } } })
  t.equal(api.statusCode, 403, "the API asks the same rule")
})
