/**
 * What the serving machinery costs per request (issue: the leanest path that keeps the declarations): a
 * trivial JSON answer served four ways (bench/serving-candidates.js), each in its own process, interleaved
 * rounds of autocannon at 32 connections, medians and ratios to bare node:http. `node bench/experiments/serving.js`.
 */
import autocannon from "autocannon"
import { fork } from "node:child_process"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const here = dirname(fileURLToPath(import.meta.url))
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const KINDS = ["bare", "runtime", "handler", "router", "httpapi"]
const servers = await Promise.all(KINDS.map((kind) => new Promise((ok, fail) => {
  const child = fork(join(here, "serving-candidates.js"), [kind])
  child.once("message", (m) => ok({ kind, url: m.url, child }))
  child.once("exit", (code) => fail(new Error(`${kind} exited ${code}`)))
})))
for (const s of servers) {
  const body = await (await fetch(`${s.url}/healthz`)).json()
  if (body.ok !== true) throw new Error(`${s.kind} answers ${JSON.stringify(body)}`)
  await autocannon({ url: `${s.url}/healthz`, connections: 32, duration: 1 })
}
const results = Object.fromEntries(KINDS.map((k) => [k, []]))
for (let round = 0; round < ROUNDS; round++) {
  for (const s of round % 2 === 0 ? servers : [...servers].reverse()) {
    results[s.kind].push((await autocannon({ url: `${s.url}/healthz`, connections: 32, duration: SECONDS })).requests.average)
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const bare = median(results.bare)
console.log("| serving | req/s | ratio to bare |\n|---|---|---|")
for (const k of KINDS) console.log(`| ${k} | ${Math.round(median(results[k]))} | ${(median(results[k]) / bare).toFixed(2)} |`)
for (const s of servers) s.child.kill()
