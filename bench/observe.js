/**
 * What logs and metrics cost (issue: at most 5 % of light-read throughput). Two server processes on the same
 * database, one logging every request to a file and keeping metrics, one with neither; interleaved rounds of
 * autocannon (32 connections) on a light read (GET /api/b2/discussions/:id) and on /healthz; ratio of the
 * medians. `npx tsc -b && node bench/observe.js` (BENCH_SECONDS, BENCH_ROUNDS).
 */
import autocannon from "autocannon"
import { spawn } from "node:child_process"
import { mkdirSync, openSync, rmSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { median, seedOneThread } from "./harness.js"

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5)
const { dir, filename, apiKey, discussion: started } = await seedOneThread("observe")

const startServer = (mode) => new Promise((resolve, reject) => {
  const log = join(dir, `${mode}.log`)
  const child = spawn(process.execPath, ["bench/observe-server.js", filename, mode], { stdio: ["ignore", openSync(log, "w"), "pipe"] })
  child.stderr.once("data", (d) => resolve({ mode, child, log, url: String(d).trim() }))
  child.once("exit", (code) => reject(new Error(`${mode} server exited ${code}`)))
})
const MODES = (process.env.BENCH_MODES ?? "off,on").split(",")
const servers = await Promise.all(MODES.map(startServer))

const targets = [
  { name: `GET /api/b2/discussions/${started.id}`, path: `/api/b2/discussions/${started.id}`, headers: { authorization: `Bearer ${apiKey}` } },
  { name: "GET /healthz", path: "/healthz", headers: {} }
]
const rows = []
for (const target of targets) {
  // both answer the same document before anything is measured
  const bodies = await Promise.all(servers.map((s) => fetch(s.url + target.path, { headers: target.headers }).then((r) => r.text())))
  if (new Set(bodies).size !== 1) throw new Error(`${target.name}: the servers answer differently`)
  const results = Object.fromEntries(MODES.flatMap((m) => [[m, []], [`p99${m}`, []]]))
  for (const s of servers) await autocannon({ url: s.url + target.path, headers: target.headers, connections: 32, duration: 1 })
  for (let round = 0; round < ROUNDS; round++) {
    for (const s of round % 2 === 0 ? servers : [...servers].reverse()) {
      const r = await autocannon({ url: s.url + target.path, headers: target.headers, connections: 32, duration: SECONDS })
      results[s.mode].push(r.requests.average)
      results[`p99${s.mode}`].push(r.latency.p99)
    }
  }
  const off = median(results.off)
  for (const mode of MODES.filter((m) => m !== "off")) {
    const on = median(results[mode])
    rows.push({ target: `${target.name} (${mode})`, off: Math.round(off), on: Math.round(on), ratio: (on / off).toFixed(3), p99off: median(results.p99off), p99on: median(results[`p99${mode}`]) })
  }
}
const logBytes = statSync(servers.find((s) => s.mode === "on")?.log ?? servers[0].log).size
for (const s of servers) s.child.kill("SIGTERM")

const table = [
  `| what | logs + metrics off (req/s) | on (req/s) | on / off | p99 off / on (ms) |`,
  `|---|---|---|---|---|`,
  ...rows.map((r) => `| ${r.target} | ${r.off} | ${r.on} | ${r.ratio} | ${r.p99off} / ${r.p99on} |`)
].join("\n")
console.log(table)
console.log(`(${ROUNDS} interleaved rounds of ${SECONDS} s, 32 connections, medians; the log grew to ${(logBytes / 1e6).toFixed(1)} MB)`)
mkdirSync("bench/results", { recursive: true })
writeFileSync("bench/results/observe.md", `${table}\n\n${new Date().toISOString()}, ${ROUNDS} interleaved rounds of ${SECONDS} s, 32 connections, ratio of medians.\n`)
rmSync(dir, { recursive: true, force: true })
