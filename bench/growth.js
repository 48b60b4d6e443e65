/**
 * Cost growth: the same light read and the same write on a small database and on one ten times the issue's
 * scale unit (10,000 discussions and 100,000 comments against 1,000 and 10,000). Discussions are made through
 * the core (concurrently, so they share commits), comments are written straight into the file (through the
 * API they would take minutes). Each size runs in a convene server process of its own; 3 rounds of
 * autocannon at 32 connections, medians. `npx tsc -b && node bench/growth.js`.
 */
import autocannon from "autocannon"
import { makeConvene } from "@convene/core"
import Database from "better-sqlite3"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { median, startServer, stopServer } from "./harness.js"

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5)
const SIZES = [{ name: "1×", discussions: 1_000, comments: 10_000 }, { name: "10×", discussions: 10_000, comments: 100_000 }]

const seed = async (size) => {
  const dir = mkdtempSync(join(tmpdir(), "convene-growth-bench-"))
  const filename = join(dir, "bench.db")
  const c = makeConvene({ filename })
  const { user, apiKey } = await c.users.create({ email: "ada@example.org", name: "Ada" })
  const { group } = await c.groups.create({ name: "Growth", owner: user })
  const ada = c.as(user)
  const ids = []
  for (let i = 0; i < size.discussions; i += 200) {
    const batch = await Promise.all(Array.from({ length: Math.min(200, size.discussions - i) }, (_, j) =>
      ada.startDiscussion({ group_id: group.id, title: `Thread ${i + j}`, description: "About the budget." })))
    ids.push(...batch.map((d) => d.discussion.id))
  }
  await c.close()
  const db = new Database(filename)
  db.prepare(`WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ? - 1),
    d AS (SELECT id, row_number() OVER (ORDER BY id) - 1 AS k FROM discussions)
    INSERT INTO comments (discussion_id, author_id, body, created_at, updated_at)
    SELECT d.id, ?, 'comment ' || n.i, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z' FROM n JOIN d ON d.k = n.i % ?`)
    .run(size.comments, user.id, size.discussions)
  db.close()
  return { dir, filename, apiKey, discussionId: ids[Math.floor(ids.length / 2)] }
}

const rows = []
for (const size of SIZES) {
  const seeded = await seed(size)
  const server = await startServer("convene", "convene-server.js", seeded.filename)
  const headers = { authorization: `Bearer ${seeded.apiKey}`, "content-type": "application/json" }
  const read = { url: `${server.url}/api/b2/discussions/${seeded.discussionId}`, headers }
  const write = { url: `${server.url}/api/b2/comments`, method: "POST", headers, body: JSON.stringify({ discussion_id: seeded.discussionId, body: "one more" }) }
  const result = {}
  for (const [name, opts] of [["read", read], ["write", write]]) {
    await autocannon({ ...opts, connections: 32, duration: 1 })
    const runs = []
    for (let i = 0; i < 3; i++) runs.push(await autocannon({ ...opts, connections: 32, duration: SECONDS }))
    if (runs.some((r) => r.errors + r.non2xx > 0)) throw new Error(`${size.name} ${name}: errors`)
    result[name] = { rps: median(runs.map((r) => r.requests.average)), p99: median(runs.map((r) => r.latency.p99)) }
  }
  await stopServer(server)
  rmSync(seeded.dir, { recursive: true, force: true })
  rows.push({ size, result })
}
console.log("| data | discussions | comments | GET /api/b2/discussions/{id} req/s (p99 ms) | POST /api/b2/comments req/s (p99 ms) |")
console.log("|---|---|---|---|---|")
for (const { size, result } of rows) {
  console.log(`| ${size.name} | ${size.discussions.toLocaleString("en")} | ${size.comments.toLocaleString("en")} | ${Math.round(result.read.rps)} (${result.read.p99}) | ${Math.round(result.write.rps)} (${result.write.p99}) |`)
}
const [small, large] = rows.map((r) => r.result)
console.log(`10× / 1×: reads ${(large.read.rps / small.read.rps).toFixed(2)}, writes ${(large.write.rps / small.write.rps).toFixed(2)}`)
