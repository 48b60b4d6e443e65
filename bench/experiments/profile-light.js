/**
 * A CPU profile of the convene server under the light read (GET /api/b2/discussions/{id}, 32 connections):
 * self time by package and the heaviest functions, to see where a request's time goes.
 * `npx tsc -b && node bench/experiments/profile-light.js` (BENCH_SECONDS); with `--postgres`, the server on a
 * throw-away PostgreSQL cluster (scripts/pg-cluster.mjs). The profile is left in bench/results/.
 */
import autocannon from "autocannon"
import { mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { join } from "node:path"
import { execFileSync } from "node:child_process"
import { seedOneThread, startServer, stopServer } from "../harness.js"
import { startCluster } from "../../scripts/pg-cluster.mjs"

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8)
const out = join(process.cwd(), "bench/results/profile-light")
rmSync(out, { recursive: true, force: true })
mkdirSync(out, { recursive: true })
let database
if (process.argv.includes("--postgres")) {
  const cluster = await startCluster()
  process.on("exit", () => cluster.stop())
  execFileSync("psql", [`${cluster.url}/postgres`, "-qXc", "CREATE DATABASE profile"])
  database = `${cluster.url}/profile`
}
const { dir, filename, apiKey, discussion } = await seedOneThread("profile", { members: 5, database })
const server = await startServer("convene", "convene-server.js", filename, ["--cpu-prof", `--cpu-prof-dir=${out}`])
const url = process.env.BENCH_PATH ? server.url + process.env.BENCH_PATH : `${server.url}/api/b2/discussions/${discussion.id}`
const headers = { authorization: `Bearer ${apiKey}` }
await autocannon({ url, headers, connections: 32, duration: 2 })
const r = await autocannon({ url, headers, connections: 32, duration: SECONDS })
await stopServer(server)
console.log(`${Math.round(r.requests.average)} req/s, p99 ${r.latency.p99} ms`)

const profile = JSON.parse(readFileSync(join(out, readdirSync(out)[0]), "utf8"))
const nodes = new Map(profile.nodes.map((n) => [n.id, n]))
const byPackage = new Map()
const byFunction = new Map()
let total = 0
profile.samples.forEach((id, i) => {
  const n = nodes.get(id)
  const dt = profile.timeDeltas[i] ?? 0
  total += dt
  const url = n.callFrame.url
  const pkg = url === "" ? `(${n.callFrame.functionName || "native"})`
    : url.includes("node_modules/") ? url.split("node_modules/").pop().split("/").slice(0, url.includes("node_modules/@") ? 2 : 1).join("/")
    : url.startsWith("node:") ? "node:" + url.slice(5).split("/")[0]
    : url.includes("/packages/") ? "@convene/" + url.split("/packages/")[1].split("/")[0]
    : url
  byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + dt)
  const fn = `${n.callFrame.functionName || "(anonymous)"} ${url.split("/").slice(-2).join("/")}:${n.callFrame.lineNumber + 1}`
  byFunction.set(fn, (byFunction.get(fn) ?? 0) + dt)
})
const top = (m, k) => [...m].sort((a, b) => b[1] - a[1]).slice(0, k).map(([name, us]) => `${(100 * us / total).toFixed(1).padStart(5)} %  ${name}`)
console.log("self time by package:\n" + top(byPackage, 14).join("\n"))
console.log("heaviest functions:\n" + top(byFunction, 25).join("\n"))
rmSync(dir, { recursive: true, force: true })
