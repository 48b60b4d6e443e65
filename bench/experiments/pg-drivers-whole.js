/**
 * The whole server on either PostgreSQL driver (issue 28: "measure postgres.js against pg for the whole server"):
 * convene's own server (node-postgres, bench/convene-server.js) beside the same server with its store over
 * postgres.js (bench/experiments/pgjs-store.js), on one throw-away cluster with fsync on. Both must answer the
 * light read with the same document first; then interleaved rounds of autocannon at 32 connections on the light
 * read, comments to one thread and comments to 32 threads, with each server's own CPU per request (/proc).
 * `npm install --no-save postgres@3 && npx tsc -b && node bench/experiments/pg-drivers-whole.js`
 * (BENCH_SECONDS, BENCH_ROUNDS).
 */
import autocannon from "autocannon"
import { deepStrictEqual } from "node:assert"
import { execFileSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { startCluster } from "../../scripts/pg-cluster.mjs"
import { median, seedOneThread, startServer, stopServer } from "../harness.js"
import { openConvene } from "@convene/core"

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const cluster = await startCluster({ max_connections: "100" })
process.on("exit", () => cluster.stop())
execFileSync("psql", [`${cluster.url}/postgres`, "-qXc", "CREATE DATABASE bench"])
const url = `${cluster.url}/bench`
const seed = await seedOneThread("pg-drivers", { members: 5, database: url })
const c = await openConvene({ database: url })
const ada = (await c.users.show({ id: seed.discussion.author_id })).user
const threads = []
for (let i = 0; i < 32; i++) threads.push((await c.as(ada).startDiscussion({ group_id: seed.group.id, title: `Thread ${i}` })).discussion.id)
await c.close()

const servers = [await startServer("pg", "convene-server.js", url), await startServer("postgres.js", "experiments/pgjs-server.js", url)]
const headers = { authorization: `Bearer ${seed.apiKey}` }
const read = `/api/b2/discussions/${seed.discussion.id}`
const [a, b] = await Promise.all(servers.map((s) => fetch(s.url + read, { headers }).then(async (r) => [r.status, await r.json()])))
deepStrictEqual(b, a, "postgres.js answers the light read differently")

const comment = (pick) => () => {
  let n = 0
  return [{ method: "POST", path: "/api/b2/comments", headers: { "content-type": "application/json" }, setupRequest: (req) => ({ ...req, body: JSON.stringify({ discussion_id: pick(n++), body: "A comment about the budget." }) }) }]
}
const targets = [
  { name: "GET /api/b2/discussions/{id}", requests: () => [{ method: "GET", path: read }] },
  { name: "POST /api/b2/comments, one thread", requests: comment(() => seed.discussion.id) },
  { name: "POST /api/b2/comments, 32 threads", requests: comment((n) => threads[n % 32]) }
]
/** A process's CPU time so far (user + system, in ticks of 10 ms). */
const cpu = (pid) => readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ").slice(11, 13).reduce((x, y) => x + Number(y), 0)
const run = async (server, target, seconds) => {
  const before = cpu(server.child.pid)
  const r = await autocannon({ url: server.url, connections: 32, duration: seconds, headers, requests: target.requests() })
  if (r.errors + r.timeouts + r.non2xx > 0) throw new Error(`${server.name} ${target.name}: ${r.errors} errors, ${r.timeouts} timeouts, ${r.non2xx} non-2xx`)
  return { rps: r.requests.average, p99: r.latency.p99, cpuUs: ((cpu(server.child.pid) - before) * 10_000) / r.requests.total }
}
const lines = ["| endpoint | driver | req/s | p99 ms | server CPU µs per request | ratio to pg |", "|---|---|---|---|---|---|"]
for (const target of targets) {
  const got = new Map(servers.map((s) => [s, []]))
  for (const s of servers) await run(s, target, 2)
  for (let round = 0; round < ROUNDS; round++) {
    for (const s of round % 2 === 0 ? servers : [...servers].reverse()) got.get(s).push(await run(s, target, SECONDS))
  }
  const base = median(got.get(servers[0]).map((r) => r.rps))
  for (const s of servers) {
    const rs = got.get(s)
    lines.push(`| ${target.name} | ${s.name} | ${Math.round(median(rs.map((r) => r.rps)))} | ${median(rs.map((r) => r.p99))} | ${Math.round(median(rs.map((r) => r.cpuUs)))} | ${(median(rs.map((r) => r.rps)) / base).toFixed(2)} |`)
  }
}
for (const s of servers) await stopServer(s)
console.log(`${lines.join("\n")}\n(${ROUNDS} interleaved rounds of ${SECONDS} s, 32 connections, medians; PostgreSQL with fsync on, on the same machine)`)
