/**
 * Resident memory of a server process (logs and metrics on) idle, after 10,000 requests and after 100,000
 * (a mix of light reads and writes, 32 connections): a leak shows as growth between the last two.
 * Each point is read twice: as the load left it, which depends on how much garbage V8's old generation
 * holds at that moment (it is collected only when it reaches a few times the live size), and after a full
 * collection, which is what the process keeps.
 * `npx tsc -b && node bench/memory.js` (BENCH_REQUESTS for the larger count).
 */
import autocannon from "autocannon"
import { spawn } from "node:child_process"
import { mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { seedOneThread } from "./harness.js"

const TOTAL = Number(process.env.BENCH_REQUESTS ?? 100_000)
const { dir, filename, apiKey, group, discussion: thread } = await seedOneThread("memory")

const child = spawn(process.execPath, ["--expose-gc", "bench/observe-server.js", filename, "on"], { stdio: ["ignore", openSync(join(dir, "log"), "w"), "pipe"] })
const url = await new Promise((resolve) => child.stderr.once("data", (d) => resolve(String(d).trim())))
/** Resident memory after the server ran a full collection (bench/observe-server.js). */
const collectedRssMb = () => new Promise((resolve) => {
  child.stderr.once("data", () => resolve(rssMb()))
  child.kill("SIGUSR2")
})
const rssMb = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"))[1]) / 1024
/** The server's own V8 heap in use (prom-client's process metrics on /metrics, loopback): heap or native growth. */
const heapMb = async () => {
  const text = await (await fetch(`${url}/metrics`)).text()
  return Number(/^convene_nodejs_heap_size_used_bytes (\S+)/m.exec(text)?.[1] ?? NaN) / 1048576
}
const headers = { authorization: `Bearer ${apiKey}`, "content-type": "application/json" }
const requests = [
  { method: "GET", path: `/api/b2/discussions/${thread.id}` },
  { method: "GET", path: "/api/b2/groups" },
  { method: "GET", path: `/api/b2/memberships?group_id=${group.id}` },
  { method: "POST", path: "/api/b2/comments", body: JSON.stringify({ discussion_id: thread.id, body: "more" }) },
  { method: "GET", path: "/healthz" }
]
const load = (amount) => autocannon({ url, connections: 32, amount, headers, requests })

await new Promise((r) => setTimeout(r, 2000))
const idle = rssMb()
const first = await load(10_000)
const after10k = rssMb()
const heap10k = await heapMb()
const collected10k = await collectedRssMb()
const rest = await load(TOTAL - 10_000)
await new Promise((r) => setTimeout(r, 2000))
const afterAll = rssMb()
const heapAll = await heapMb()
const collectedAll = await collectedRssMb()
child.kill("SIGTERM")
const errors = first.errors + first.non2xx + rest.errors + rest.non2xx
const table = [
  "| resident memory | as the load left it, MB | after a full collection, MB |",
  "|---|---|---|",
  `| idle, after start | ${idle.toFixed(0)} | |`,
  `| after 10,000 requests | ${after10k.toFixed(0)} | ${collected10k.toFixed(0)} |`,
  `| after ${TOTAL.toLocaleString("en")} requests | ${afterAll.toFixed(0)} | ${collectedAll.toFixed(0)} |`,
  `| growth from 10,000 to ${TOTAL.toLocaleString("en")} | ${(100 * (afterAll / after10k - 1)).toFixed(1)} % | ${(100 * (collectedAll / collected10k - 1)).toFixed(1)} % |`,
  `| V8 heap in use after 10,000 / after ${TOTAL.toLocaleString("en")} | ${heap10k.toFixed(0)} / ${heapAll.toFixed(0)} | |`
].join("\n")
console.log(table)
console.log(`(${errors} errors or non-2xx; mix: a discussion, the groups, a memberships page, a new comment, /healthz; 32 connections)`)
mkdirSync("bench/results", { recursive: true })
writeFileSync("bench/results/memory.md", `${table}\n`)
rmSync(dir, { recursive: true, force: true })
