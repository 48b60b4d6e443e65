/**
 * Live pages on several servers (decisions §13, the PostgreSQL pass only): a stream and a page served by one server
 * hear a write made through another (LISTEN/NOTIFY: the database's own engine, no other service).
 */
import { People, Store } from "@convene/core"
import { Effect } from "effect"
import t from "tap"
import { codeSignIn, startBrowsing } from "./browsing.js"
import { PG, poster, seedUser, startTestServer } from "./helpers.js"
import { openStream } from "./sse.js"

if (PG === undefined) throw new Error("live-servers.test runs in the PostgreSQL pass (CONVENE_TEST_PG)")
t.setTimeout(120_000)

const { s, smtp, browser } = await startBrowsing()
const ada = await seedUser(s.convene, { name: "Ada", email: "ada@example.org" })
const A = s.as(ada.apiKey)
const post = poster(A)

t.test("a page served by one server hears a write made through another", async (t) => {
  const group = (await post("api/b2/groups", { name: "Two servers" })).groups[0]
  const privateThread = (await post("api/b2/discussions", { group_id: group.id, title: "Heard everywhere" })).discussions[0]
  // a second server on the same database, with its own store (its own connections, its own LISTEN)
  const other = await startTestServer({}, { filename: s.filename })
  t.teardown(other.close)
  const stream = await openStream(other.url, await Effect.runPromise(Effect.provideService(s.convene.store.transaction(People.startSession(ada.user.id)), Store, s.convene.store)))
  t.teardown(stream.close)
  const before = Date.now()
  await post("api/b2/comments", { discussion_id: privateThread.id, body: "Through the first server." })
  await stream.until((e) => e.data?.topic_id === privateThread.topic_id, 3_000)
  t.ok(Date.now() - before < 1_000, `heard through the other server within a second (${Date.now() - before} ms)`)
  const page = await codeSignIn(s, smtp)(await browser.newContext(), "ada@example.org")
  await page.goto(`${other.url}/d/${privateThread.key}`)
  await post("api/b2/comments", { discussion_id: privateThread.id, body: "Seen on the other server's page." })
  await page.getByText("Seen on the other server's page.").waitFor({ timeout: 5_000 })
})
