/**
 * Writes at 32 connections, convene beside a bare node:http + better-sqlite3 baseline doing the same writes with
 * the same durability (bench/writes-baseline.js: one synchronous=FULL transaction per request, committed before
 * the answer): `POST /api/b2/comments` and `POST /api/b2/discussions`. Each server writes its own copy of the
 * seeded file; both answer the same document (asserted first, times and the new thread's random key aside).
 * Interleaved rounds, ratio of medians; results in bench/results/writes.md.
 * `npx tsc -b && node bench/writes.js` (BENCH_SECONDS, BENCH_ROUNDS). Votes: bench/votes.js.
 */
import { deepStrictEqual } from "node:assert"
import { copyFileSync, rmSync } from "node:fs"
import { seedOneThread, sideBySide, startServer, stopServer, writeTable } from "./harness.js"

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5)
const { dir, filename, apiKey, group, discussion } = await seedOneThread("writes", { members: 5 })
copyFileSync(filename, `${filename}.baseline`)
const servers = [
  await startServer("convene", "convene-server.js", filename),
  await startServer("baseline", "writes-baseline.js", `${filename}.baseline`)
]
const headers = { authorization: `Bearer ${apiKey}`, "content-type": "application/json" }
const targets = [
  { name: "POST /api/b2/comments", method: "POST", path: "/api/b2/comments", headers, body: JSON.stringify({ discussion_id: discussion.id, body: "A comment about the budget." }) },
  { name: "POST /api/b2/discussions", method: "POST", path: "/api/b2/discussions", headers, body: JSON.stringify({ group_id: group.id, title: "A new thread", description: "About the budget." }) }
]
// what differs between two correct answers: the time of the write and a new record's random key
const VARYING = new Set(["created_at", "updated_at", "last_activity_at", "last_read_at", "key"])
const normal = (v) => Array.isArray(v) ? v.map(normal) : v !== null && typeof v === "object"
  ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, VARYING.has(k) && typeof x === "string" ? `<${k}>` : normal(x)]))
  : v
const rows = []
for (const request of targets) {
  const answers = await Promise.all(servers.map((s) => fetch(s.url + request.path, request).then(async (r) => [r.status, normal(await r.json())])))
  deepStrictEqual(answers[1], answers[0], `${request.name}: the baseline answers differently`)
  rows.push(await sideBySide(request.name, servers, (s) => ({ url: s.url, requests: [request] }), { rounds: ROUNDS, seconds: SECONDS }))
}
for (const s of servers) await stopServer(s)
writeTable("writes.md", rows, { rounds: ROUNDS, seconds: SECONDS })
rmSync(dir, { recursive: true, force: true })
