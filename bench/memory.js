/**
 * Resident memory of a server process (logs and metrics on) idle, after 10,000 requests and after 100,000
 * (a mix of light reads and writes, 32 connections): a leak shows as growth between the last two.
 * Each point is read twice: as the load left it, which depends on how much garbage V8's old generation
 * holds at that moment (it is collected only when it reaches a few times the live size), and after a full
 * collection, which is what the process keeps. Each count runs on a fresh server over the same file.
 * Idle is read 2 s after start and, on a server of its own, after BENCH_IDLE_SECONDS (40) without work.
 * `npx tsc -b && node bench/memory.js` (BENCH_REQUESTS for the larger count).
 */
import autocannon from "autocannon"
import { spawn } from "node:child_process"
import { mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { seedOneThread } from "./harness.js"

const TOTAL = Number(process.env.BENCH_REQUESTS ?? 100_000)
const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 40)
const { dir, filename, apiKey, group, discussion: thread } = await seedOneThread("memory")

const headers = { authorization: `Bearer ${apiKey}`, "content-type": "application/json" }
const requests = [
  { method: "GET", path: `/api/b2/discussions/${thread.id}` },
  { method: "GET", path: "/api/b2/groups" },
  { method: "GET", path: `/api/b2/memberships?group_id=${group.id}` },
  { method: "POST", path: "/api/b2/comments", body: JSON.stringify({ discussion_id: thread.id, body: "more" }) },
  { method: "GET", path: "/healthz" }
]

/**
 * One point on a server of its own: a collection forced at 10,000 would reset V8's cycle and so change what
 * the same process shows, as the load left it, at 100,000.
 */
const measure = async (amount) => {
  const child = spawn(process.execPath, ["--expose-gc", "bench/observe-server.js", filename, "on"], { stdio: ["ignore", openSync(join(dir, "log"), "w"), "pipe"] })
  const url = await new Promise((resolve) => child.stderr.once("data", (d) => resolve(String(d).trim())))
  const rssMb = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"))[1]) / 1024
  /** Where the resident memory is: the C heap (SQLite's page caches among it), other anonymous mappings (V8's heap among them), files. */
  const parts = () => {
    const mb = { heap: 0, anonymous: 0, files: 0 }
    let kind = "files"
    for (const line of readFileSync(`/proc/${child.pid}/smaps`, "utf8").split("\n")) {
      const mapping = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line)
      if (mapping) kind = mapping[1] === "[heap]" ? "heap" : mapping[1] === "" ? "anonymous" : "files"
      else if (line.startsWith("Rss:")) mb[kind] += Number(line.split(/\s+/)[1]) / 1024
    }
    return mb
  }
  await new Promise((r) => setTimeout(r, 2000))
  const idle = rssMb()
  // left alone, V8 trims what start-up left (its memory reducer, after some seconds without work): what an idle server holds
  let settled
  if (amount === 0) {
    await new Promise((r) => setTimeout(r, IDLE_SECONDS * 1000))
    settled = rssMb()
    child.kill("SIGTERM")
    await new Promise((r) => child.once("exit", r))
    return { idle, settled }
  }
  const result = await autocannon({ url, connections: 32, amount, headers, requests })
  await new Promise((r) => setTimeout(r, 2000))
  const loaded = rssMb()
  // the server's own V8 heap in use (prom-client's process metrics on /metrics, loopback)
  const text = await (await fetch(`${url}/metrics`)).text()
  const heap = Number(/^convene_nodejs_heap_size_used_bytes (\S+)/m.exec(text)?.[1] ?? NaN) / 1048576
  // bench/observe-server.js collects on SIGUSR2 and says "collected" when done
  const collected = await new Promise((resolve) => {
    child.stderr.once("data", (d) => resolve({ rss: rssMb(), ...parts(), live: Number(/collected (\d+)/.exec(String(d))?.[1] ?? NaN) / 1048576 }))
    child.kill("SIGUSR2")
  })
  child.kill("SIGTERM")
  await new Promise((r) => child.once("exit", r))
  return { idle, loaded, heap, collected, errors: result.errors + result.non2xx }
}

const alone = await measure(0)
const first = await measure(10_000)
const all = await measure(TOTAL)
const [idle, after10k, heap10k, collected10k] = [first.idle, first.loaded, first.heap, first.collected.rss]
const [afterAll, heapAll, collectedAll] = [all.loaded, all.heap, all.collected.rss]
const split = (c) => `${c.heap.toFixed(0)} / ${c.anonymous.toFixed(0)} / ${c.files.toFixed(0)}`
const errors = first.errors + all.errors
const table = [
  "| resident memory | as the load left it, MB | after a full collection, MB |",
  "|---|---|---|",
  `| idle, 2 s after start | ${idle.toFixed(0)} | |`,
  `| idle, ${IDLE_SECONDS} s after start (V8 has trimmed what start-up left) | ${alone.settled.toFixed(0)} | |`,
  `| after 10,000 requests | ${after10k.toFixed(0)} | ${collected10k.toFixed(0)} |`,
  `| after ${TOTAL.toLocaleString("en")} requests | ${afterAll.toFixed(0)} | ${collectedAll.toFixed(0)} |`,
  `| growth from 10,000 to ${TOTAL.toLocaleString("en")} | ${(100 * (afterAll / after10k - 1)).toFixed(1)} % | ${(100 * (collectedAll / collected10k - 1)).toFixed(1)} % |`,
  `| V8 heap in use after 10,000 / after ${TOTAL.toLocaleString("en")} | ${heap10k.toFixed(0)} / ${heapAll.toFixed(0)} | ${first.collected.live.toFixed(1)} / ${all.collected.live.toFixed(1)} |`,
  `| after a full collection: C heap / other anonymous / files, after 10,000 | | ${split(first.collected)} |`,
  `| the same after ${TOTAL.toLocaleString("en")} | | ${split(all.collected)} |`
].join("\n")
console.log(table)
console.log(`(${errors} errors or non-2xx; mix: a discussion, the groups, a memberships page, a new comment, /healthz; 32 connections)`)
mkdirSync("bench/results", { recursive: true })
writeFileSync("bench/results/memory.md", `${table}\n`)
rmSync(dir, { recursive: true, force: true })
