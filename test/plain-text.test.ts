/**
 * Plain text stays plain (decisions §5, amended): a title written as markdown reaches members' mail, the thread
 * page and the markdown export as the text it is, never as a live link or a remote image; mail never loads an
 * image; control characters (line breaks among them) are refused in titles and names, changing nothing.
 */
import { Rules } from "@convene/core"
import t from "tap"
import { browserSession, seedUser } from "./helpers.js"
import { signInMail, startMailedServer } from "./mailed.js"
import { matchExact } from "./match.js"

const TITLE = "Budget [Your session expired](https://evil.test/phish) ![t](https://evil.test/track.png)"
const server = await startMailedServer()
const { s, smtp } = server
t.teardown(server.close)
const ada = await seedUser(s.convene, { name: "Ada", email: "ada@example.org" })
const bob = await seedUser(s.convene, { name: "Bob", email: "bob@example.org" })
const { group } = await s.convene.groups.create({ name: "Garden [club](https://evil.test/g)", owner: ada.user })
await s.convene.members.add({ group, user: bob.user })
const A = s.as(ada.apiKey)

t.test("a markdown title in members' mail, the thread page and the export: text, no link, no image", async (t) => {
  const before = smtp.received.length
  const made = await A.post("api/b2/discussions", { json: { group_id: group.id, title: TITLE, recipient_audience: "group" } })
  t.equal(made.statusCode, 200)
  const d = (made.body as any).discussions[0]
  const mail = await smtp.mailTo("bob@example.org", before)
  const html = String(mail.html)
  t.notMatch(html, /<a [^>]*href="https:\/\/evil\.test/, "no live link to the title's address in the HTML part")
  t.notMatch(html, /<img/, "no image at all")
  t.match(html, /Your session expired\]\(https:\/\/evil\.test\/phish\)/, "the title reads as written")
  t.match(html, /Garden \[club\]\(https:\/\/evil\.test\/g\)/, "so does the group's name")
  t.match(mail.subject, TITLE, "the subject is the plain title")

  const b = browserSession(s.url)
  await b.get("/sign-in")
  await b.post((await signInMail(server, "bob@example.org")).link, {})
  const page = await b.get(`/d/${d.key}`)
  t.equal(page.status, 200)
  t.notMatch(page.html, /<a [^>]*href="https:\/\/evil\.test/, "the thread page links nowhere the title names")
  t.notMatch(page.html, /<img[^>]*evil\.test/, "and loads nothing from there")

  const exported = (await A.get(`api/b2/threads/${d.topic_id}/markdown`)).body as unknown as { markdown: string }
  t.match(exported.markdown, /^# Discussion: Budget \\\[Your session expired\\\]\\\(https:\/\/evil\.test\/phish\\\) \\!\\\[t\\\]/m, "the export escapes the title as markdown")
  // the document after its front matter (YAML, quoted), as the thread page renders it
  const body = exported.markdown.slice(exported.markdown.indexOf("\n# ") + 1)
  t.notMatch(Rules.markdownToHtml(body), /<a [^>]*href="https:\/\/evil\.test|<img/, "so rendering the export makes no link and no image of it")
})

t.test("mail shows no image, whoever wrote it", async (t) => {
  t.notMatch(Rules.mailMarkdownToHtml("Look: ![chart](https://evil.test/pixel.png)"), /<img/)
  t.match(Rules.mailMarkdownToHtml("A [link](https://example.org/x) written as one stays one"), /<a href="https:\/\/example\.org\/x">link<\/a>/)
})

t.test("control characters are refused in titles and names, and nothing changes", async (t) => {
  const count = async () => (await s.sql<{ n: number }>("SELECT (SELECT count(*) FROM discussions) + (SELECT count(*) FROM polls) AS n"))[0]!.n
  const before = await count()
  const discussion = await A.post("api/b2/discussions", { json: { group_id: group.id, title: "Line one\nLine two" } })
  t.equal(discussion.statusCode, 422)
  t.same(discussion.body, { errors: { title: ["must not contain control characters (such as line breaks)"] } })
  const poll = await A.post("api/b2/polls", { json: { group_id: group.id, title: "Bell\u0007", poll_type: "proposal", closing_at: new Date(Date.now() + 86_400_000).toISOString() } })
  t.equal(poll.statusCode, 422)
  matchExact(t, poll.body, { errors: { title: [/control characters/] } })
  t.equal(await count(), before, "nothing was created")
  const renamed = await s.b3.patch(`api/b3/users/${bob.user.id}`, { json: { user: { name: "Bob\r\nBcc: x@example.org" } } })
  t.equal(renamed.statusCode, 422)
  matchExact(t, renamed.body, { errors: { name: [/control characters/] } })
  t.same(await s.sql("SELECT name FROM users WHERE id = ?", bob.user.id), [{ name: "Bob" }], "the name is unchanged")
  const d = ((await A.post("api/b2/discussions", { json: { group_id: group.id, title: "Fine" } })).body as any).discussions[0]
  const edited = await A.patch(`api/b2/discussions/${d.id}`, { json: { title: "Tab\there" } })
  t.equal(edited.statusCode, 422, "an edit too")
  t.same(await s.sql("SELECT title FROM discussions WHERE id = ?", d.id), [{ title: "Fine" }])
})
