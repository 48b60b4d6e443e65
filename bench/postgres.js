/**
 * The PostgreSQL store beside SQLite: a light read (`GET /api/b2/discussions/{id}`) and a write
 * (`POST /api/b2/comments`) at 32 connections on convene over SQLite, over PostgreSQL with one server, and with
 * two servers on the same PostgreSQL database (16 connections on each, their throughputs added). Each ratio is
 * against the bare node:http + better-sqlite3 baseline doing the same work (bench/light-baseline.js,
 * bench/writes-baseline.js), measured in the same rounds; every configuration's turn rotates round by round. The
 * read is also served by a bare node:http + pg server running the same queries (bench/pg-light-baseline.js): the
 * cost of PostgreSQL's round trips alone on this machine; the write by a bare node:http + pg server running the
 * same statements in one transaction per request (bench/pg-writes-baseline.js), and by two of them (what a second
 * process can add on this machine at all). Each row also says how busy the machine's cores were (/proc/stat:
 * servers, PostgreSQL and the load generator share them). Writes go to one thread (every
 * writer waits for the thread's row in turn) and to 32 threads (writers that do not meet), so the second server's
 * gain shows when writers touch different records.
 * PostgreSQL runs on a throw-away cluster on this machine (scripts/pg-cluster.mjs) with its durable defaults
 * (fsync, synchronous_commit on): a write is answered after its commit reached the disk, as on SQLite.
 * `npx tsc -b && node bench/postgres.js` (BENCH_SECONDS, BENCH_ROUNDS, BENCH_WARMUP seconds per configuration
 * before the rounds, BENCH_ONLY=read|write for one kind). Results: bench/results/postgres.md.
 */
import autocannon from "autocannon"
import { execFileSync } from "node:child_process"
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { startCluster } from "../scripts/pg-cluster.mjs"
import { median, seedOneThread, startServer, stopServer } from "./harness.js"
import { openConvene } from "@convene/core"

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
// long enough for each server's JIT to settle on the request's code (1 s left convene's first round cold)
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3)
const ONLY = process.env.BENCH_ONLY

const cluster = await startCluster({ max_connections: "100" })
process.on("exit", () => cluster.stop())
execFileSync("psql", [`${cluster.url}/postgres`, "-qXc", "CREATE DATABASE bench"])
const url = `${cluster.url}/bench`

const sqlite = await seedOneThread("postgres", { members: 5 })
const pg = await seedOneThread("postgres-pg", { members: 5, database: url })
// threads of their own for writers that do not meet (one per connection: each request picks the next)
for (const seed of [sqlite, pg]) {
  const c = await openConvene({ database: seed.filename })
  const ada = (await c.users.show({ id: seed.discussion.author_id })).user
  seed.threads = []
  for (let i = 0; i < 32; i++) seed.threads.push((await c.as(ada).startDiscussion({ group_id: seed.group.id, title: `Thread ${i}` })).discussion.id)
  await c.close()
}
copyFileSync(sqlite.filename, `${sqlite.filename}.baseline`)

const configs = [
  { name: "convene, SQLite", servers: [await startServer("sqlite", "convene-server.js", sqlite.filename)], seed: sqlite },
  { name: "convene, PostgreSQL, 1 server", servers: [await startServer("pg1", "convene-server.js", url)], seed: pg },
  {
    name: "convene, PostgreSQL, 2 servers",
    servers: [await startServer("pg2a", "convene-server.js", url), await startServer("pg2b", "convene-server.js", url)],
    seed: pg
  }
]
// the same read with no store, services or serializer: this machine's round trips to PostgreSQL alone
const pgBaseline = { name: "bare node:http + pg, the same queries", servers: [await startServer("pg-light-baseline", "pg-light-baseline.js", url)], seed: pg }
// the same writes with no store, services or serializer, one transaction per request, the thread locked as convene locks it
const pgWriteBaseline = { name: "bare node:http + pg, the same statements", servers: [await startServer("pg-writes-baseline", "pg-writes-baseline.js", url)], seed: pg }
// the same, two processes: what a second server can add on this machine with nothing of convene's in the way
const pgWriteBaseline2 = {
  name: "bare node:http + pg, the same statements, 2 servers",
  servers: [await startServer("pg-writes-baseline-a", "pg-writes-baseline.js", url), await startServer("pg-writes-baseline-b", "pg-writes-baseline.js", url)],
  seed: pg
}
const baselines = {
  read: { name: "bare baseline (node:http + better-sqlite3)", servers: [await startServer("light-baseline", "light-baseline.js", sqlite.filename)], seed: sqlite },
  write: { name: "bare baseline (node:http + better-sqlite3)", servers: [await startServer("writes-baseline", "writes-baseline.js", `${sqlite.filename}.baseline`)], seed: sqlite }
}

const targets = [
  { name: "GET /api/b2/discussions/{id}", kind: "read", request: (seed) => ({ method: "GET", path: `/api/b2/discussions/${seed.discussion.id}` }) },
  {
    name: "POST /api/b2/comments",
    kind: "write",
    request: (seed) => ({ method: "POST", path: "/api/b2/comments", headers: { "content-type": "application/json" }, body: JSON.stringify({ discussion_id: seed.discussion.id, body: "A comment about the budget." }) })
  },
  {
    name: "POST /api/b2/comments, 32 threads",
    kind: "write",
    request: (seed) => {
      let n = 0
      return {
        method: "POST", path: "/api/b2/comments", headers: { "content-type": "application/json" },
        setupRequest: (req) => ({ ...req, body: JSON.stringify({ discussion_id: seed.threads[n++ % seed.threads.length], body: "A comment about the budget." }) })
      }
    }
  }
]

/** The machine's CPU time so far (/proc/stat's first line, in ticks): all of it, and the part not idle or waiting. */
const cpuTicks = () => {
  const [user, nice, system, idle, iowait, irq, softirq, steal] = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1).map(Number)
  const busy = user + nice + system + irq + softirq + steal
  return { busy, all: busy + idle + iowait }
}

/**
 * One run of a configuration: 32 connections split over its servers, at once; the throughputs added, the worst
 * p99, and how busy the machine's cores were meanwhile (the servers, PostgreSQL and the load generator together).
 */
const run = async (config, target, seconds) => {
  const before = cpuTicks()
  const per = 32 / config.servers.length
  const results = await Promise.all(config.servers.map((s) => {
    const { path, ...request } = target.request(config.seed)
    return autocannon({ url: s.url, connections: per, duration: seconds, headers: { authorization: `Bearer ${config.seed.apiKey}`, ...request.headers }, requests: [{ ...request, path }] })
  }))
  for (const r of results) if (r.errors + r.timeouts + r.non2xx > 0) throw new Error(`${config.name} ${target.name}: ${r.errors} errors, ${r.timeouts} timeouts, ${r.non2xx} non-2xx`)
  const after = cpuTicks()
  return { rps: results.reduce((a, r) => a + r.requests.average, 0), p99: Math.max(...results.map((r) => r.latency.p99)), busy: (after.busy - before.busy) / (after.all - before.all) }
}

const lines = [
  "| endpoint | configuration | req/s | p99 ms | ratio to the bare baseline | ratio to the bare pg server | CPU busy |",
  "|---|---|---|---|---|---|---|"
]
for (const target of targets.filter((t) => ONLY === undefined || t.kind === ONLY)) {
  const bare = target.kind === "read" ? pgBaseline : pgWriteBaseline
  const all = [...configs, bare, ...(target.kind === "write" ? [pgWriteBaseline2] : []), baselines[target.kind]]
  const measured = new Map(all.map((c) => [c, { rps: [], p99: [], busy: [] }]))
  for (const c of all) await run(c, target, WARMUP)
  for (let round = 0; round < ROUNDS; round++) {
    // each configuration's turn moves one place every round (the machine drifts)
    const order = all.map((_, i) => all[(i + round) % all.length])
    for (const c of order) {
      const r = await run(c, target, SECONDS)
      measured.get(c).rps.push(r.rps)
      measured.get(c).p99.push(r.p99)
      measured.get(c).busy.push(r.busy)
    }
  }
  const base = median(measured.get(baselines[target.kind]).rps)
  const pgBase = median(measured.get(bare).rps)
  for (const c of all) {
    const m = measured.get(c)
    const onPg = c.seed === pg ? (median(m.rps) / pgBase).toFixed(2) : ""
    lines.push(`| ${target.name} | ${c.name} | ${Math.round(median(m.rps))} | ${median(m.p99)} | ${(median(m.rps) / base).toFixed(2)} | ${onPg} | ${Math.round(100 * median(m.busy))} % |`)
  }
}
for (const c of [...configs, pgBaseline, pgWriteBaseline, pgWriteBaseline2, baselines.read, baselines.write]) for (const s of c.servers) await stopServer(s)
const how = `${ROUNDS} rotating rounds of ${SECONDS} s, 32 connections, medians`
console.log(`${lines.join("\n")}\n(${how})`)
mkdirSync("bench/results", { recursive: true })
writeFileSync("bench/results/postgres.md", `${lines.join("\n")}\n\n${new Date().toISOString()}: ${how}.\n`)
rmSync(sqlite.dir, { recursive: true, force: true })
rmSync(pg.dir, { recursive: true, force: true })
cluster.stop()
