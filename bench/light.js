/**
 * Light endpoints, convene beside a bare node:http + better-sqlite3 baseline doing the same queries
 * (bench/light-baseline.js): GET /api/b2/discussions/{id}, GET /api/b2/groups of a member of three groups and
 * GET /healthz. Both answer the same document
 * (asserted first); then interleaved rounds of autocannon at 32 connections, ratio of medians.
 * `npx tsc -b && node bench/light.js` (BENCH_SECONDS, BENCH_ROUNDS). Results: bench/results/light.md.
 */
import { deepStrictEqual } from "node:assert"
import { rmSync } from "node:fs"
import { seedOneThread, sideBySide, startServer, stopServer, writeTable } from "./harness.js"

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5)
const { dir, filename, apiKey, discussion: thread } = await seedOneThread("light", { members: 5, groups: 3 })

const servers = [await startServer("convene", "convene-server.js", filename), await startServer("baseline", "light-baseline.js", filename)]
const targets = [
  { name: "GET /api/b2/discussions/{id}", path: `/api/b2/discussions/${thread.id}` },
  { name: "GET /api/b2/groups (a member of three groups)", path: "/api/b2/groups" },
  { name: "GET /healthz", path: "/healthz" }
]
const headers = { authorization: `Bearer ${apiKey}` }
const rows = []
for (const target of targets) {
  const [a, b] = await Promise.all(servers.map((s) => fetch(s.url + target.path, { headers }).then(async (r) => [r.status, await r.json()])))
  deepStrictEqual(b, a, `${target.name}: the baseline answers differently`)
  rows.push(await sideBySide(target.name, servers, (s) => ({ url: s.url + target.path, headers }), { rounds: ROUNDS, seconds: SECONDS }))
}
for (const s of servers) await stopServer(s)
writeTable("light.md", rows, { rounds: ROUNDS, seconds: SECONDS })
rmSync(dir, { recursive: true, force: true })
