/**
 * What ends a way in (decisions §5, amended): a new code ends the older codes and links; signing in, signing out
 * and deactivation end every other live code and link, so a code sent before deactivation does nothing after a
 * reactivation; revoking a pending membership ends its invitation link (410), which signs nobody in.
 */
import t from "tap"
import { browserSession, seedUser } from "./helpers.js"
import { linkIn, signInMail, startMailedServer } from "./mailed.js"

const server = await startMailedServer()
const { s, smtp } = server
t.teardown(server.close)

let host = 20
/** A sign-in mail for the address (from a client address of its own): its code and its link. */
const mail = (email: string) => signInMail(server, email, `127.0.0.${++host}`)
const withCode = async (email: string, code: string) => {
  const b = browserSession(s.url, { from: `127.0.0.${++host}` })
  await b.get("/sign-in")
  return { b, status: (await b.post("/sign-in/code", { email, code })).status }
}
const withLink = async (link: string) => {
  const b = browserSession(s.url, { from: `127.0.0.${++host}` })
  await b.get(link)
  return { b, status: (await b.post(link, {})).status }
}
const sessionsOf = async (id: number) => Number((await s.sql<{ n: number }>("SELECT count(*) AS n FROM sessions WHERE user_id = ?", id))[0]!.n)

t.test("a second code ends the first code and its link; the second works", async (t) => {
  const { user } = await seedUser(s.convene, { name: "Ann", email: "ann@example.org" })
  const first = await mail("ann@example.org")
  const second = await mail("ann@example.org")
  t.equal((await withCode("ann@example.org", first.code)).status, 403, "the first code no longer signs in")
  t.equal((await withLink(first.link)).status, 410, "nor its link")
  t.equal(await sessionsOf(user.id), 0, "nobody signed in")
  t.equal((await withLink(second.link)).status, 303, "the newest link works")
  t.equal(await sessionsOf(user.id), 1)
})

t.test("signing in with a code ends the link that came with it", async (t) => {
  const { user } = await seedUser(s.convene, { name: "Bea", email: "bea@example.org" })
  const m = await mail("bea@example.org")
  t.equal((await withCode("bea@example.org", m.code)).status, 303)
  t.equal((await withLink(m.link)).status, 410, "the link of the same mail is spent")
  t.equal(await sessionsOf(user.id), 1)
})

t.test("signing out ends a code still on its way", async (t) => {
  const { user } = await seedUser(s.convene, { name: "Cal", email: "cal@example.org" })
  const signedIn = await withLink((await mail("cal@example.org")).link)
  t.equal(signedIn.status, 303)
  const waiting = await mail("cal@example.org")
  t.equal((await signedIn.b.post("/sign-out", {})).status, 303)
  t.equal((await withCode("cal@example.org", waiting.code)).status, 403, "the code mailed before the sign-out does nothing")
  t.equal((await withLink(waiting.link)).status, 410, "nor its link")
  t.equal(await sessionsOf(user.id), 0)
})

t.test("a code sent before deactivation does nothing after reactivation", async (t) => {
  const { user } = await seedUser(s.convene, { name: "Dee", email: "dee@example.org" })
  const m = await mail("dee@example.org")
  t.equal((await s.b3.post(`api/b3/users/${user.id}/deactivate`)).statusCode, 200)
  t.equal((await s.b3.post(`api/b3/users/${user.id}/reactivate`)).statusCode, 200)
  t.equal((await withCode("dee@example.org", m.code)).status, 403, "the old code")
  t.equal((await withLink(m.link)).status, 410, "the old link")
  t.equal(await sessionsOf(user.id), 0, "nobody signed in")
})

t.test("revoking a pending membership ends its invitation: the link answers 410 and signs nobody in", async (t) => {
  const ada = await seedUser(s.convene, { name: "Ada", email: "ada@example.org" })
  const { group } = await s.convene.groups.create({ name: "Club", owner: ada.user })
  const A = s.as(ada.apiKey)
  const before = smtp.received.length
  t.equal((await A.post("api/b2/memberships", { json: { group_id: group.id, emails: ["eve@example.org"] } })).statusCode, 200)
  const link = linkIn(await smtp.mailTo("eve@example.org", before))
  const b = browserSession(s.url)
  t.equal((await b.get(link)).status, 200, "the invitation is open")
  const removed = await A.post("api/b2/memberships", { json: { group_id: group.id, emails: ["ada@example.org"], remove_absent: true } })
  t.same((removed.body as unknown as { removed_emails: Array<string> }).removed_emails, ["eve@example.org"], "the pending invitation is revoked")
  const gone = await browserSession(s.url).get(link)
  t.equal(gone.status, 410, "the link is gone")
  const accept = await b.post(link, { name: "Eve" })
  t.equal(accept.status, 410, "and accepting it is refused")
  t.notOk(accept.headers.getSetCookie().some((c) => c.startsWith("convene_session=")), "no session")
  const eve = (await s.sql<{ id: number }>("SELECT id FROM users WHERE email = 'eve@example.org'"))[0]!
  t.equal(await sessionsOf(eve.id), 0, "nobody signed in")
  t.same(await s.sql("SELECT accepted_at FROM memberships WHERE user_id = ?", eve.id), [{ accepted_at: null }], "the membership stays revoked, never accepted")
})

t.test("a signed-in page sets the session cookie again; a session ends 90 days after its sign-in, however much it is used", async (t) => {
  const { user } = await seedUser(s.convene, { name: "Flo", email: "flo@example.org" })
  const { b, status } = await withLink((await mail("flo@example.org")).link)
  t.equal(status, 303)
  const page = await b.get("/profile/api_access")
  t.equal(page.status, 200)
  const again = page.headers.getSetCookie().find((c) => c.startsWith("convene_session="))
  t.match(again, new RegExp(`^convene_session=${b.cookies.get("convene_session")}; Max-Age=2592000;.*HttpOnly`, "i"), "the same session, 30 days from now")
  const DAY = 86_400_000
  const ago = (ms: number) => new Date(Date.now() - ms).toISOString()
  // used every day for 89 days: the expiry slides, but not past the 90th day
  await s.sql("UPDATE sessions SET created_at = ?, last_seen_at = ? WHERE user_id = ?", ago(89 * DAY), ago(2 * 3_600_000), user.id)
  t.equal((await b.get("/profile/api_access")).status, 200, "day 89: still signed in")
  const [row] = await s.sql<{ created_at: string; expires_at: string }>("SELECT created_at, expires_at FROM sessions WHERE user_id = ?", user.id)
  t.equal(Date.parse(row!.expires_at), Date.parse(row!.created_at) + 90 * DAY, "the slide stops at 90 days from the sign-in")
  await s.sql("UPDATE sessions SET created_at = ?, last_seen_at = ? WHERE user_id = ?", ago(91 * DAY), ago(60_000), user.id)
  const late = await b.get("/profile/api_access")
  t.equal(late.status, 303, "day 91: signed out, however recently used")
  t.equal(late.headers.get("location"), "/sign-in?next=%2Fprofile%2Fapi_access", "to sign in, then back")
})
