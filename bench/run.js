/**
 * `npm run bench`: requests/s and p99 latency of two read endpoints, convene versus a bare
 * node:http + better-sqlite3 baseline that answers the same JSON (asserted before measuring).
 *
 *   BENCH_SECONDS=10         measured seconds per run (after a warm-up run)
 *   BENCH_WARMUP_SECONDS=2   warm-up seconds per run (JIT, statement caches, connections)
 *   BENCH_PROFILE=1          also write a V8 CPU profile of the convene server to bench/results/
 *
 * Each server runs in its own child process and autocannon runs here, so the load generator and the
 * server under test each get one of the machine's cores. Results go to bench/results/latest.json.
 */
import autocannon from "autocannon"
import { getBody, startServer, stopServer } from "./harness.js"
import { deepStrictEqual } from "node:assert"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { availableParallelism, cpus, loadavg, tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { seed } from "./seed.js"

const here = dirname(fileURLToPath(import.meta.url))
const resultsDir = join(here, "results")

const seconds = (name, fallback) => {
  const raw = process.env[name]
  if (raw === undefined || raw === "") return fallback
  const n = Number(raw)
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number of seconds, got ${JSON.stringify(raw)}`)
  return n
}
const SECONDS = seconds("BENCH_SECONDS", 10)
const WARMUP = seconds("BENCH_WARMUP_SECONDS", 2)
const CONNECTIONS = 32
const PROFILE = process.env.BENCH_PROFILE === "1"

/**
 * The comparison is only honest if both servers answer the same document: compare the parsed bodies
 * (deepStrictEqual), and report whether the bytes are identical too (key order).
 */
const checkSameBody = async (path, convene, baseline, apiKey) => {
  const [a, b] = await Promise.all([getBody(convene.url + path, apiKey), getBody(baseline.url + path, apiKey)])
  try {
    deepStrictEqual(JSON.parse(b), JSON.parse(a))
  } catch (e) {
    console.error(`\nERROR: the baseline's response to GET ${path} differs from convene's; the benchmark would compare`)
    console.error(`different work, so it stops here. Fix bench/baseline-server.js to answer what convene answers.\n`)
    console.error(e.message)
    throw new Error(`baseline response differs for ${path}`)
  }
  console.log(`  ${path}: same JSON (${a.length} bytes${a === b ? ", byte-identical" : ", same content, different key order"})`)
  return a.length
}

const cannon = (url, apiKey, duration) =>
  autocannon({ url, connections: CONNECTIONS, duration, headers: { authorization: `Bearer ${apiKey}` } })

/** A warm-up run (discarded), then the measured run; any error or non-2xx answer fails the benchmark. */
const measure = async (server, path, apiKey) => {
  const url = server.url + path
  await cannon(url, apiKey, WARMUP)
  const r = await cannon(url, apiKey, SECONDS)
  if (r.errors > 0 || r.timeouts > 0 || r.non2xx > 0) {
    throw new Error(`${server.name} ${path}: ${r.errors} errors, ${r.timeouts} timeouts, ${r.non2xx} non-2xx answers`)
  }
  return {
    reqPerSec: r.requests.average,
    p50Ms: r.latency.p50,
    p99Ms: r.latency.p99,
    requests: r.requests.total,
    bytesPerSec: r.throughput.average
  }
}

const table = (rows) => {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)))
  return rows.map((r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ")).join("\n")
}

const main = async () => {
  // The database lives in a temporary directory, never in the repository.
  const dir = mkdtempSync(join(tmpdir(), "convene-bench-"))
  const filename = join(dir, "bench.db")
  const servers = []
  try {
    const t0 = performance.now()
    const data = await seed(filename)
    console.log(
      `Seeded ${data.groups} groups, ${data.memberships} memberships, ${data.users} users through the core API ` +
        `in ${((performance.now() - t0) / 1000).toFixed(1)} s`
    )

    mkdirSync(resultsDir, { recursive: true })
    const profileArgs = PROFILE ? ["--cpu-prof", `--cpu-prof-dir=${resultsDir}`] : []
    const convene = await startServer("convene", "convene-server.js", filename, profileArgs)
    servers.push(convene)
    const baseline = await startServer("baseline", "baseline-server.js", filename)
    servers.push(baseline)

    const endpoints = [
      { name: "GET /api/b2/groups", path: "/api/b2/groups" },
      { name: `GET /api/b2/memberships?group_id=${data.bigGroupId}`, path: `/api/b2/memberships?group_id=${data.bigGroupId}` }
    ]

    console.log("Checking that the baseline answers the same JSON as convene:")
    const bytes = []
    for (const e of endpoints) bytes.push(await checkSameBody(e.path, convene, baseline, data.apiKey))

    console.log(`Measuring: ${CONNECTIONS} connections, ${WARMUP} s warm-up + ${SECONDS} s per run, ${cpus().length} CPUs`)
    // Other work on the machine skews every figure; say so rather than print numbers that look clean.
    const loadBefore = loadavg()[0]
    if (loadBefore > availableParallelism()) {
      console.log(`  warning: load average ${loadBefore.toFixed(1)} on ${availableParallelism()} CPUs; figures will be noisy`)
    }
    const results = []
    for (const [i, e] of endpoints.entries()) {
      const c = await measure(convene, e.path, data.apiKey)
      const b = await measure(baseline, e.path, data.apiKey)
      results.push({ endpoint: e.name, responseBytes: bytes[i], convene: c, baseline: b, ratio: c.reqPerSec / b.reqPerSec })
      console.log(`  ${e.name}: done`)
    }

    const rows = [
      ["endpoint", "convene req/s", "convene p99 ms", "baseline req/s", "baseline p99 ms", "ratio"],
      ...results.map((r) => [
        r.endpoint,
        r.convene.reqPerSec.toFixed(0),
        r.convene.p99Ms.toFixed(0),
        r.baseline.reqPerSec.toFixed(0),
        r.baseline.p99Ms.toFixed(0),
        r.ratio.toFixed(2)
      ])
    ]
    console.log("\n" + table(rows) + "\n(ratio = convene req/s / baseline req/s)")

    const out = join(resultsDir, "latest.json")
    writeFileSync(
      out,
      JSON.stringify(
        {
          date: new Date().toISOString(),
          node: process.version,
          cpus: availableParallelism(),
          cpuModel: cpus()[0]?.model,
          connections: CONNECTIONS,
          warmupSeconds: WARMUP,
          seconds: SECONDS,
          loadAverage: { before: loadBefore, after: loadavg()[0] },
          dataset: { groups: data.groups, memberships: data.memberships, users: data.users },
          results
        },
        null,
        2
      ) + "\n"
    )
    console.log(`Results written to ${out}`)
  } finally {
    await Promise.all(servers.map(stopServer))
    rmSync(dir, { recursive: true, force: true })
  }
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e)
  process.exitCode = 1
})
