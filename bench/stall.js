/**
 * Does a heavy request stall the others? /healthz latency (4 connections, autocannon) while participation
 * reports over a 300,000-comment thread run back to back. `npx tsc -b && node bench/stall.js` (BENCH_COMMENTS).
 */
import { makeConvene } from "@convene/core"
import { startServer } from "@convene/http"
import autocannon from "autocannon"
import Database from "better-sqlite3"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const COMMENTS = Number(process.env.BENCH_COMMENTS ?? 300_000)
const dir = mkdtempSync(join(tmpdir(), "convene-stall-bench-"))
const filename = join(dir, "bench.db")
const c = makeConvene({ filename })
const { user, apiKey } = await c.users.create({ email: "ada@example.org", name: "Ada" })
const { group } = await c.groups.create({ name: "Busy", owner: user })
const { discussion } = await c.as(user).startDiscussion({ group_id: group.id, title: "Long" })
// straight into the file: through the API this many comments would take minutes
const db = new Database(filename)
db.prepare(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
  INSERT INTO comments (discussion_id, author_id, body, created_at, updated_at)
  SELECT ?, ?, 'comment ' || i, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z' FROM n`).run(COMMENTS, discussion.id, user.id)
db.close()

const server = await startServer({ store: c.store, port: 0, host: "127.0.0.1", settings: { b3ApiKey: undefined, baseUrl: "http://bench.test", maxBodyBytes: 65536, version: "bench" } })
const report = () => fetch(`${server.url}/api/b2/reports?section=users&group_scope=custom&group_ids=${group.id}`, { headers: { authorization: `Bearer ${apiKey}` } })
const started = Date.now()
if ((await report()).status !== 200) throw new Error("the report failed")
const oneReportMs = Date.now() - started
let running = true
let reports = 0
const loop = (async () => {
  while (running) {
    await report()
    reports++
  }
})()
const r = await autocannon({ url: `${server.url}/healthz`, connections: 4, duration: 10 })
running = false
await loop
console.log(`one report over ${COMMENTS.toLocaleString("en")} comments: ${oneReportMs} ms`)
console.log(`/healthz while ${reports} reports ran back to back for 10 s: ${r.requests.average.toFixed(0)} req/s, ` +
  `p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms, max ${r.latency.max} ms`)
await server.close()
await c.close()
rmSync(dir, { recursive: true, force: true })
