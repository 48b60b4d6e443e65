/**
 * Every page form refuses a forged POST and writes nothing: for each route, each way a token can be missing
 * or wrong (neither cookie nor token, the cookie without the token, a token without its cookie, a token that
 * is not the cookie's, a planted cookie with its copy in the form, a forged MAC, another session's real token)
 * answers 403, and no code, mail, rate event, vote, membership, key rotation,
 * invitation use or session is written or ended; a refused sign-out leaves the person signed in. Then the same
 * requests with the right token succeed, so it was the token, and only the token, that refused them.
 */
import t from "tap"
import { browserSession, seedUser } from "./helpers.js"
import { linkIn, signInMail as signInMailOf, startMailedServer } from "./mailed.js"

const server = await startMailedServer()
const { s, smtp } = server
t.teardown(server.close)


const ada = await seedUser(s.convene, { name: "Ada", email: "ada@example.org" })
const bob = await seedUser(s.convene, { name: "Bob", email: "bob@example.org" })
const { group } = await s.convene.groups.create({ name: "Garden", owner: ada.user })
await s.convene.members.add({ group, user: bob.user })
const A = s.as(ada.apiKey)
const poll = ((await A.post("api/b2/polls", { json: { group_id: group.id, title: "Fence?", poll_type: "proposal", closing_at: new Date(Date.now() + 86_400_000).toISOString() } })).body as any).polls[0]

/** A sign-in mail for an address: its code and its one-time link. */
const signInMail = (email: string) => signInMailOf(server, email)

const snapshot = async () => JSON.stringify({
  codes: await s.sql("SELECT id, attempts, used_at FROM login_codes ORDER BY id"),
  outbox: await s.sql("SELECT count(*) AS n FROM mail_outbox"),
  rate: await s.sql("SELECT count(*) AS n FROM rate_events"),
  votes: await s.sql("SELECT count(*) AS n FROM stances WHERE cast_at IS NOT NULL"),
  members: await s.sql("SELECT id, accepted_at, revoked_at FROM memberships ORDER BY id"),
  users: await s.sql("SELECT id, name, api_key_hash FROM users ORDER BY id"),
  sessions: await s.sql("SELECT id, user_id FROM sessions ORDER BY id"),
  invitations: await s.sql("SELECT id, used_at FROM invitation_tokens ORDER BY id")
})

/** Bob, signed in by code. */
const bobBrowser = browserSession(s.url)
await bobBrowser.get("/sign-in")
{
  const { code } = await signInMail("bob@example.org")
  const res = await bobBrowser.post("/sign-in/code", { email: "bob@example.org", code })
  if (res.status !== 303) throw new Error(`Bob could not sign in: ${res.status}`)
}
const bobSession = bobBrowser.cookies.get("convene_session")!

// a real token, minted for a signed-out visitor: bound to no session, so never to Bob's
const visitor = browserSession(s.url)
await visitor.get("/sign-in")
const visitorToken = visitor.cookies.get("convene_csrf")!

/** The forgeries: the cookies a browser would send, and the token field. */
const forgeries = (signedIn: boolean) => {
  const session: Record<string, string> = signedIn ? { convene_session: bobSession } : {}
  const token = "A".repeat(32)
  return [
    { name: "neither cookie nor token", cookies: session, token: undefined },
    { name: "the cookie without the token", cookies: { ...session, convene_csrf: token }, token: undefined },
    { name: "a token without its cookie", cookies: session, token },
    { name: "a token that is not the cookie's", cookies: { ...session, convene_csrf: token }, token: "B".repeat(32) },
    // a cookie planted from elsewhere (a sibling subdomain) with the same value in the form: double submit alone
    // would pass it; the HMAC does not
    { name: "a planted cookie and its copy", cookies: { ...session, convene_csrf: token }, token },
    { name: "a planted cookie with a forged MAC", cookies: { ...session, convene_csrf: `${token}.${"C".repeat(43)}` }, token: `${token}.${"C".repeat(43)}` },
    ...(signedIn ? [{ name: "another session's real token", cookies: { ...session, convene_csrf: visitorToken }, token: visitorToken }] : [])
  ]
}

const forge = (cookies: Record<string, string>, path: string, fields: Record<string, string>, token: string | undefined) => {
  const b = browserSession(s.url)
  for (const [k, v] of Object.entries(cookies)) b.cookies.set(k, v)
  return b.post(path, token === undefined ? fields : { ...fields, csrf: token }, { csrf: false })
}

const pending = await signInMail("bob@example.org")
const invited = async () => {
  const before = smtp.received.length
  await A.post("api/b2/memberships", { json: { group_id: group.id, emails: ["newbie@example.org"] } })
  return linkIn(await smtp.mailTo("newbie@example.org", before))
}
const invitation = await invited()

const routes: Array<{ path: string; fields: Record<string, string>; signedIn: boolean }> = [
  { path: "/sign-in", fields: { email: "bob@example.org" }, signedIn: false },
  { path: "/sign-in/code", fields: { email: "bob@example.org", code: pending.code }, signedIn: false },
  { path: pending.link, fields: {}, signedIn: false },
  { path: invitation, fields: { name: "Newbie" }, signedIn: false },
  { path: "/profile/api_access", fields: {}, signedIn: true },
  { path: `/p/${poll.key}/vote`, fields: { choice: "agree" }, signedIn: true },
  { path: "/sign-out", fields: {}, signedIn: true }
]

t.test("every forged form POST is refused with 403 and writes nothing", async (t) => {
  for (const route of routes) {
    for (const forgery of forgeries(route.signedIn)) {
      const before = await snapshot()
      const res = await forge(forgery.cookies, route.path, route.fields, forgery.token)
      const label = `${route.path.replace(/[A-Za-z0-9_-]{20,}/, ":token")}, ${forgery.name}`
      t.equal(res.status, 403, `${label}: 403`)
      t.match(res.html, /its security token did not match/, `${label}: the page says why`)
      t.notOk(res.headers.getSetCookie().some((c) => c.startsWith("convene_session=")), `${label}: no session cookie set or cleared`)
      t.equal(await snapshot(), before, `${label}: nothing written`)
    }
  }
  const still = await bobBrowser.get("/profile/api_access")
  t.equal(still.status, 200, "Bob is still signed in after the refused sign-outs")
  t.match(still.html, /Signed in as <strong>Bob<\/strong>/)
  t.equal((await s.as(bob.apiKey).get("api/b2/groups")).statusCode, 200, "and his API key was never rotated")
})

t.test("the same requests with the right token succeed", async (t) => {
  const b = browserSession(s.url)
  await b.get("/sign-in")
  t.equal((await b.post("/sign-in", { email: "nobody-yet@example.org" })).status, 200, "a code request")
  t.equal((await b.post(pending.link, {})).status, 303, "the one-time link")
  const fresh = await signInMail("bob@example.org")
  const c = browserSession(s.url)
  await c.get("/sign-in")
  t.equal((await c.post("/sign-in/code", { email: "bob@example.org", code: fresh.code })).status, 303, "the code")
  const n = browserSession(s.url)
  await n.get(invitation)
  t.equal((await n.post(invitation, { name: "Newbie" })).status, 303, "the invitation")
  t.equal((await bobBrowser.post(`/p/${poll.key}/vote`, { choice: "agree" })).status, 303, "the vote")
  t.match((await bobBrowser.post("/profile/api_access", {})).html, /<code id="api-key">/, "the key rotation")
  t.equal((await bobBrowser.post("/sign-out", {})).status, 303, "the sign-out")
  t.equal((await bobBrowser.get("/profile/api_access")).status, 303, "which ended the session")
})
