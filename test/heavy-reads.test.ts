/**
 * No request stalls the others (better-sqlite3 is synchronous): a report over many rows runs on a reader
 * thread, so /healthz is answered while it is still running. An ordering, not a timing: the health check is
 * sent once /metrics shows the report in flight on the server, and must come back first; the report then
 * answers with every row counted. The comments are dated inside the report's explicit window, so the test
 * does not depend on today's date.
 */
import { Agent } from "node:http"
import t from "tap"
import { seedUser, startTestServer } from "./helpers.js"

const COMMENTS = 100_000

t.test("/healthz is answered while the heaviest report is still running", async (t) => {
  const s = await startTestServer({}, { metrics: true })
  t.teardown(s.close)
  const ada = await seedUser(s.convene, { name: "Ada" })
  const { group } = await s.convene.groups.create({ name: "Busy", owner: ada.user })
  const A = s.as(ada.apiKey)
  const thread = await A.post("api/b2/discussions", { json: { group_id: group.id, title: "Long thread" } }).json<{ discussions: Array<{ id: number }> }>()
  const discussionId = thread.discussions[0]!.id
  // a large thread, written straight into the file (through the API it would take minutes)
  const { default: Database } = await import("better-sqlite3")
  const seeding = Date.now()
  const db = new Database(s.filename)
  db.prepare(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
    INSERT INTO comments (discussion_id, author_id, body, created_at, updated_at)
    SELECT ?, ?, 'comment ' || i, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z' FROM n`).run(COMMENTS, discussionId, ada.user.id)
  db.close()
  t.comment(`seeded ${COMMENTS} comments in ${Date.now() - seeding} ms`)

  // fresh connections: the client's kept-alive ones may have been closed by the server while the rows went in
  const client = A.extend({ agent: { http: new Agent({ keepAlive: false }) } })
  const order: Array<string> = []
  const started = Date.now()
  const report = client.get(`api/b2/reports?section=users&group_scope=custom&group_ids=${group.id}&start_month=2025-12&end_month=2026-02`)
    .then((res) => {
      order.push("report")
      return res
    })
  // evidence that the server is running the report: it counts the request in flight (and /metrics is answered
  // meanwhile, which it could not be if the report held the event loop)
  const running = /^convene_http_requests_in_flight\{method="GET",route="\/api\/b2\/reports"\} 1$/m
  for (;;) {
    const metrics = await client.get("metrics", { responseType: "text" })
    if (running.test(metrics.body)) break
    if (order.length > 0) return t.fail("the report answered before it was seen running")
  }
  const health = await client.get("healthz").then((res) => {
    order.push("healthz")
    return res
  })
  const answered = await report
  t.equal(health.statusCode, 200)
  t.same(health.body, { ok: true })
  t.same(order, ["healthz", "report"], "the health check came back while the report was still running")
  t.equal(answered.statusCode, 200)
  t.match((answered.body as unknown as { users: Array<{ name: string; comments: number }> }).users.find((u) => u.name === "Ada"), { comments: COMMENTS })
  t.comment(`the report took ${Date.now() - started} ms`)
})
