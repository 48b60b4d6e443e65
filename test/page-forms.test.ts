/**
 * Page forms are decoded by their Schemas (pages/<feature>/forms.ts) as API payloads are (decisions §9): a form
 * its Schema refuses comes back 422 with each message beside its field, in the reader's language, and what was
 * typed kept; nothing is written. A field the form does not declare, or a field named `__proto__`, changes nothing.
 */
import t from "tap"
import { browserSession, future, seedUser } from "./helpers.js"
import { signInMail, startMailedServer } from "./mailed.js"

const server = await startMailedServer()
const { s } = server
t.teardown(server.close)

const ada = await seedUser(s.convene, { name: "Ada", email: "ada@example.org" })
const { group } = await s.convene.groups.create({ name: "Garden", owner: ada.user })
const A = s.as(ada.apiKey)
const discussion = ((await A.post("api/b2/discussions", { json: { group_id: group.id, title: "Compost" } })).body as any).discussions[0]
const poll = ((await A.post("api/b2/polls", { json: { group_id: group.id, title: "Fence?", poll_type: "proposal", closing_at: future(24) } })).body as any).polls[0]

const browser = browserSession(s.url)
await browser.get("/sign-in")
{
  const { code } = await signInMail(server, "ada@example.org")
  const res = await browser.post("/sign-in/code", { email: "ada@example.org", code })
  if (res.status !== 303) throw new Error(`Ada could not sign in: ${res.status}`)
}

const written = async () => JSON.stringify({
  polls: await s.sql("SELECT id, title FROM polls ORDER BY id"),
  discussions: await s.sql("SELECT id, title FROM discussions ORDER BY id"),
  comments: await s.sql("SELECT id, body FROM comments ORDER BY id"),
  outcomes: await s.sql("SELECT id FROM outcomes"),
  volumes: await s.sql("SELECT * FROM group_volumes"),
  users: await s.sql("SELECT id, name, time_zone, locale FROM users ORDER BY id")
})

/** The message shown beside a field (its `{field}-error` element), as text. */
const errorOf = (html: string, field: string) => {
  const m = new RegExp(`id="${field}-error"[^>]*>([^<]*)<`).exec(html)
  return m === null ? undefined : m[1]!.trim()
}
const valueOf = (html: string, field: string) => /value="([^"]*)"/.exec(new RegExp(`<input id="${field}"[^>]*>`).exec(html)?.[0] ?? "")?.[1]

t.test("a new poll its Schema refuses: 422, each message beside its field, what was typed kept, nothing written", async (t) => {
  const before = await written()
  const res = await browser.post(`/g/${group.key}/polls/new`, {
    poll_type: "proposal", title: "   ", details: "Why not", closing_at: "2020-01-01T10:00", dots_per_person: "many", hide_results: "off"
  })
  t.equal(res.status, 422)
  t.equal(errorOf(res.html, "title"), "Please fill this in.")
  t.equal(errorOf(res.html, "dots_per_person"), "Please enter a whole number from 0 to 9999.")
  t.equal(valueOf(res.html, "dots_per_person"), "many", "the input kept")
  t.match(res.html, /<textarea id="details"[^>]*>Why not<\/textarea>/)
  t.equal(await written(), before, "nothing written")

  const unknownType = await browser.post(`/g/${group.key}/polls/new`, { poll_type: "lottery", title: "Draw", closing_at: "2020-01-01T10:00", hide_results: "off" })
  t.equal(unknownType.status, 422)
  t.equal(errorOf(unknownType.html, "poll_type"), "Please choose one of the options.")
  t.equal(valueOf(unknownType.html, "title"), "Draw")
  t.equal(await written(), before)
})

t.test("the messages speak the reader's language", async (t) => {
  const de = browserSession(s.url, { headers: { "accept-language": "de" } })
  for (const [k, v] of browser.cookies) de.cookies.set(k, v)
  const res = await de.post(`/g/${group.key}/discussions/new`, { title: " ", description: "Kompost" })
  t.equal(res.status, 422)
  t.equal(errorOf(res.html, "title"), "Bitte ausfüllen.")
  t.match(res.html, /<textarea id="description"[^>]*>Kompost<\/textarea>/)
})

t.test("an empty outcome and an emptied comment: the page again with the message", async (t) => {
  await A.post(`api/b2/polls/${poll.id}/close`)
  const before = await written()
  const outcome = await browser.post(`/p/${poll.key}/outcome`, { statement: "  \n " })
  t.equal(outcome.status, 422)
  t.equal(errorOf(outcome.html, "statement"), "Please fill this in.")
  const comment = ((await A.post("api/b2/comments", { json: { discussion_id: discussion.id, body: "First" } })).body as any).comments[0]
  const mid = await written()
  const edit = await browser.post(`/d/${discussion.key}/comments/${comment.id}/edit`, { body: " " })
  t.equal(edit.status, 422)
  t.equal(errorOf(edit.html, "body"), "Please fill this in.")
  t.equal(await written(), mid, "the comment kept its body")
  t.not(before, mid)
})

t.test("a volume none of the choices: back where the form was, nothing changed", async (t) => {
  const before = await written()
  const res = await browser.post(`/g/${group.key}/volume`, { volume: "deafening", next: "/profile" })
  t.equal(res.status, 303)
  t.equal(res.headers.get("location"), "/profile")
  t.notOk(res.headers.getSetCookie().some((c) => c.startsWith("convene_notice=")), "and says nothing was saved")
  const thread = await browser.post(`/d/${discussion.key}/volume`, { volume: "deafening" })
  t.equal(thread.status, 303)
  t.equal(thread.headers.get("location"), `/d/${discussion.key}`)
  t.equal(await written(), before)
})

t.test("fields a form does not declare, and one named __proto__, change nothing", async (t) => {
  const res = await browser.post("/profile", { name: "Ada L.", time_zone: "Europe/Paris", locale: "fr", catch_up: "", __proto__: "x", is_admin: "1", toString: "y" } as Record<string, string>)
  t.equal(res.status, 303)
  t.same(await s.sql("SELECT name, time_zone, locale, is_admin FROM users WHERE id = ?", ada.user.id), [{ name: "Ada L.", time_zone: "Europe/Paris", locale: "fr", is_admin: 0 }])
})
