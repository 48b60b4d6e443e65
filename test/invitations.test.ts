/**
 * Invitations to people who already have an account (decisions §5, amended): the link alone signs nobody in;
 * the invitee signs in as that account (and comes back to the invitation) and then accepts; someone else
 * signed in is told whose invitation it is and may switch or decline, and nothing changes silently. An
 * invitation to an address with no account still signs the new person in.
 */
import t, { type Test } from "tap"
import { browserSession, seedUser } from "./helpers.js"
import { matchExact } from "./match.js"
import { linkIn, startMailedServer } from "./mailed.js"

const server = await startMailedServer()
const { s, smtp } = server
t.teardown(server.close)

const ada = await seedUser(s.convene, { name: "Ada", email: "ada@example.org" })
const { group } = await s.convene.groups.create({ name: "Garden Club", owner: ada.user })
const A = s.as(ada.apiKey)

/** A browser signed in as `email` by the code in its mail, starting from `/sign-in?next=…` when given. */
const signedIn = async (email: string, next?: string) => {
  const b = browserSession(s.url)
  await b.get(next === undefined ? "/sign-in" : `/sign-in?next=${encodeURIComponent(next)}`)
  const before = smtp.received.length
  await b.post("/sign-in", { email, ...(next === undefined ? {} : { next }) })
  const code = /\b(\d{6})\b/.exec((await smtp.mailTo(email, before)).subject ?? "")![1]!
  const res = await b.post("/sign-in/code", { email, code, ...(next === undefined ? {} : { next }) })
  return { b, res }
}

const invite = async (email: string) => {
  const before = smtp.received.length
  t.equal((await A.post("api/b2/memberships", { json: { group_id: group.id, emails: [email] } })).statusCode, 200)
  return linkIn(await smtp.mailTo(email, before))
}

const pending = (email: string) =>
  s.sql(`SELECT m.accepted_at FROM memberships m JOIN users u ON u.id = m.user_id WHERE u.email = ? AND m.group_id = ?`, email, group.id)

t.test("an existing account's invitation: sign in as it first, come back, then accept", async (t) => {
  await seedUser(s.convene, { name: "Carol", email: "carol@example.org" })
  const path = await invite("carol@example.org")

  const visitor = browserSession(s.url)
  const shown = await visitor.get(path)
  t.equal(shown.status, 200)
  t.match(shown.html, /This invitation is for carol@example\.org, which already has an account here/)
  t.match(shown.html, new RegExp(`href="/sign-in\\?next=${encodeURIComponent(path).replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}"`), "a sign-in that comes back here")
  t.notMatch(shown.html, /Accept invitation/, "no accept button for a visitor")
  const forced = await visitor.post(path, {})
  t.equal(forced.status, 403, "a POST without that account signed in is refused")
  t.notOk(forced.headers.getSetCookie().some((c) => c.startsWith("convene_session=")), "and signs nobody in")
  matchExact(t, await pending("carol@example.org"), [{ accepted_at: null }], "nothing changed")

  const { b, res } = await signedIn("carol@example.org", path)
  t.equal(res.status, 303)
  t.equal(res.headers.get("location"), path, "signing in returns to the invitation")
  const again = await b.get(path)
  t.match(again.html, /<button type="submit">Accept invitation<\/button>/)
  t.notMatch(again.html, /Your name/, "an account with a name is not asked one")
  const accepted = await b.post(path, {})
  t.equal(accepted.status, 303)
  t.notOk(accepted.headers.getSetCookie().some((c) => c.startsWith("convene_session=")), "Carol stays in the session she signed in with")
  matchExact(t, await pending("carol@example.org"), [{ accepted_at: String }], "the membership is accepted")
})

t.test("someone else signed in is told whose invitation it is; declining changes nothing", async (t) => {
  await seedUser(s.convene, { name: "Dan", email: "dan@example.org" })
  await seedUser(s.convene, { name: "Erin", email: "erin@example.org" })
  const path = await invite("erin@example.org")
  const { b } = await signedIn("dan@example.org")
  const shown = await b.get(path)
  t.match(shown.html, /This invitation is for erin@example\.org, and you are signed in as Dan/)
  t.match(shown.html, /<button type="submit">Sign out to switch<\/button>/)
  t.match(shown.html, /<a href="\/">Decline<\/a>/)
  t.equal((await b.post(path, {})).status, 403, "Dan cannot accept Erin's invitation")
  matchExact(t, await pending("erin@example.org"), [{ accepted_at: null }], "nothing changed")
  const switched = await b.post("/sign-out", { next: path })
  t.equal(switched.headers.get("location"), `/sign-in?next=${encodeURIComponent(path)}`, "switching signs out and asks for Erin's sign-in")
  t.equal((await b.get("/profile")).status, 303, "Dan is signed out")
  t.equal((await b.post("/sign-out", { next: "//evil.example/x" })).headers.get("location"), "/sign-in", "never a redirect off this server")
})

t.test("an address with no account: accepting signs the new person in, even from someone else's browser", async (t) => {
  const path = await invite("fay@example.org")
  const { b } = await signedIn("dan@example.org")
  const shown = await b.get(path)
  t.match(shown.html, /This invitation is for fay@example\.org, and you are signed in as Dan: accepting it signs you in as the invited person instead/)
  const accepted = await b.post(path, { name: "Fay" })
  t.equal(accepted.status, 303)
  t.ok(accepted.headers.getSetCookie().some((c) => c.startsWith("convene_session=")), "a new session: Fay's")
  t.match((await b.get("/profile")).html, /value="Fay"/, "the browser is now Fay's")
  matchExact(t, await pending("fay@example.org"), [{ accepted_at: String }])
})

/** The invitation's page and its POST, opened by a browser nobody signed in: the link alone must sign nobody in. */
const linkAloneSignsNobodyIn = async (t: Test, email: string, path: string) => {
  const visitor = browserSession(s.url)
  const shown = await visitor.get(path)
  t.match(shown.html, new RegExp(`This invitation is for ${email.replace(".", "\\.")}, which already has an account here`))
  t.notMatch(shown.html, /Your name/, "no name asked: the account is someone's")
  const forced = await visitor.post(path, { name: "Mallory" })
  t.equal(forced.status, 403, "accepting without that account signed in is refused")
  t.notOk(forced.headers.getSetCookie().some((c) => c.startsWith("convene_session=")), "and signs nobody in")
  matchExact(t, await pending(email), [{ accepted_at: null }], "nothing changed")
  matchExact(t, await s.sql(`SELECT name FROM users WHERE email = ?`, email), [{ name: null }], "the account's name is untouched")
}

t.test("an account without a name made by an operator is an existing account: its link signs nobody in", async (t) => {
  await s.convene.users.create({ email: "gil@example.org" })
  await linkAloneSignsNobodyIn(t, "gil@example.org", await invite("gil@example.org"))
})

t.test("a placeholder that has since signed in is an existing account: a second invitation's link signs nobody in", async (t) => {
  const first = await invite("hal@example.org")
  matchExact(t, await s.sql(`SELECT placeholder FROM users WHERE email = ?`, "hal@example.org"), [{ placeholder: 1 }], "made by the invitation")
  await signedIn("hal@example.org")
  matchExact(t, await s.sql(`SELECT placeholder FROM users WHERE email = ?`, "hal@example.org"), [{ placeholder: 0 }], "signing in makes it someone's")
  await linkAloneSignsNobodyIn(t, "hal@example.org", first)
})

t.test("the members page: a pending invitation by its address, when it was sent, Resend and Cancel; notices told once", async (t) => {
  const path = await invite("ivy@example.org")
  const { b } = await signedIn("ada@example.org")
  const page = await b.get(`/g/${group.key}/members`)
  t.equal(page.status, 200)
  const row = /<tr><td>ivy@example\.org<\/td><td>Invited [^<]+<\/td><td>([\s\S]*?)<\/td><\/tr>/.exec(page.html)
  t.ok(row, "the invitation shown by its address and when it was sent")
  t.match(row?.[1], /aria-label="Resend the invitation to ivy@example\.org">Resend invitation</)
  t.match(row?.[1], /aria-label="Cancel the invitation to ivy@example\.org">Cancel invitation</)
  t.notMatch(row?.[1], /Make admin/, "no Make admin for an invitation")
  const id = /action="\/g\/\w+\/members\/(\d+)\/resend"/.exec(row?.[1] ?? "")![1]!

  const before = smtp.received.length
  const resent = await b.post(`/g/${group.key}/members/${id}/resend`, {})
  t.equal(resent.status, 303)
  t.equal(resent.headers.get("location"), `/g/${group.key}/members`, "no notice in the URL")
  t.match((await b.get(`/g/${group.key}/members`)).html, /An invitation was sent to ivy@example\.org less than a day ago/, "sent today already: not again")
  t.notMatch((await b.get(`/g/${group.key}/members`)).html, /less than a day ago/, "a notice is told once: a reload does not repeat it")
  t.equal(smtp.received.length, before, "no mail")

  const cancelled = await b.post(`/g/${group.key}/members/${id}/cancel`, {})
  t.equal(cancelled.status, 303)
  t.match((await b.get(`/g/${group.key}/members`)).html, /The invitation to ivy@example\.org is cancelled\./)
  matchExact(t, await s.sql(`SELECT revoked_at FROM memberships WHERE id = ?`, Number(id)), [{ revoked_at: String }], "the membership is ended")
  t.notMatch((await browserSession(s.url).get(path)).html, /Accept invitation/, "and its link accepts nothing")
  t.equal((await b.post(`/g/${group.key}/members/${id}/resend`, {})).status, 404, "a cancelled invitation is not sent again")

  // someone who may not invite is refused, and a notice cookie set by anyone else puts no words on a page
  const { b: dan } = await signedIn("dan@example.org")
  const refused = await dan.post(`/g/${group.key}/members/${id}/cancel`, {})
  t.equal(refused.status, 403, "Dan, no member, may not invite")
  t.match(refused.html, /<title>Not allowed · convene<\/title>/)
  dan.cookies.set("convene_notice", Buffer.from(`/\n<script>alert(1)</script>`).toString("base64url"))
  t.notMatch((await dan.get("/")).html, /alert\(1\)|role="status"/)
})
