/**
 * Light endpoints, convene beside a bare node:http + better-sqlite3 baseline doing the same queries
 * (bench/light-baseline.js): GET /api/b2/discussions/{id}, GET /api/b2/groups of a member of three groups and
 * GET /healthz. Both answer the same document
 * (asserted first); then interleaved rounds of autocannon at 32 connections, ratio of medians.
 * `npx tsc -b && node bench/light.js` (BENCH_SECONDS, BENCH_ROUNDS). Results: bench/results/light.md.
 */
import autocannon from "autocannon"
import { deepStrictEqual } from "node:assert"
import { mkdirSync, rmSync, writeFileSync } from "node:fs"
import { seedOneThread, startServer, stopServer } from "./harness.js"

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
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const rows = []
for (const target of targets) {
  const [a, b] = await Promise.all(servers.map((s) => fetch(s.url + target.path, { headers }).then(async (r) => [r.status, await r.json()])))
  deepStrictEqual(b, a, `${target.name}: the baseline answers differently`)
  const results = { convene: { rps: [], p99: [] }, baseline: { rps: [], p99: [] } }
  for (const s of servers) await autocannon({ url: s.url + target.path, headers, connections: 32, duration: 1 })
  for (let round = 0; round < ROUNDS; round++) {
    for (const s of round % 2 === 0 ? servers : [...servers].reverse()) {
      const r = await autocannon({ url: s.url + target.path, headers, connections: 32, duration: SECONDS })
      if (r.errors + r.non2xx > 0) throw new Error(`${s.name} ${target.name}: ${r.errors} errors, ${r.non2xx} non-2xx`)
      results[s.name].rps.push(r.requests.average)
      results[s.name].p99.push(r.latency.p99)
    }
  }
  const c = median(results.convene.rps), b2 = median(results.baseline.rps)
  rows.push(`| ${target.name} | ${Math.round(c)} | ${median(results.convene.p99)} | ${Math.round(b2)} | ${median(results.baseline.p99)} | ${(c / b2).toFixed(2)} |`)
}
for (const s of servers) await stopServer(s)
const table = ["| endpoint | convene req/s | convene p99 ms | baseline req/s | baseline p99 ms | ratio |", "|---|---|---|---|---|---|", ...rows].join("\n")
console.log(table)
console.log(`(${ROUNDS} interleaved rounds of ${SECONDS} s, 32 connections, medians)`)
mkdirSync("bench/results", { recursive: true })
writeFileSync("bench/results/light.md", `${table}\n\n${new Date().toISOString()}: ${ROUNDS} interleaved rounds of ${SECONDS} s, 32 connections, medians.\n`)
rmSync(dir, { recursive: true, force: true })
