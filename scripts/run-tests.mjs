#!/usr/bin/env node
/**
 * Runs the compiled test files (`.test-build/**\/*.test.js`, or the files named) as plain Node processes,
 * as many at a time as the machine has cores, and reports like tap: one `ok`/`not ok` line per file (a
 * failing file's whole TAP output after it), then the totals. The tests are written with tap's library;
 * only tap's runner is left out, because its per-process loader hooks cost about as much CPU as the tests
 * themselves (measured: 176 s of CPU under tap's runner, 86 s as plain processes).
 */
import { execFileSync, spawn } from "node:child_process"
import { existsSync, readdirSync, statSync } from "node:fs"
import { availableParallelism } from "node:os"
import { join, relative } from "node:path"

import { startCluster } from "./pg-cluster.mjs"

const ROOT = process.cwd()
const BUILD = join(ROOT, ".test-build")
const TIMEOUT_MS = 300_000

const find = (dir) =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? find(path) : name.endsWith(".test.js") ? [path] : []
  })

/**
 * The build must be newer than every source it was made from (npm test's pretest writes .test-build/.built after
 * compiling): a test run against yesterday's dist/ or .test-build/ would report on code that is not the code here.
 */
const STAMP = join(BUILD, ".built")
const sources = (dir) =>
  !existsSync(dir) ? [] : readdirSync(dir).flatMap((name) => {
    if (name === "node_modules" || name === "dist") return []
    const path = join(dir, name)
    return statSync(path).isDirectory() ? sources(path) : name.endsWith(".ts") ? [path] : []
  })
const sourceDirs = [join(ROOT, "test"), ...readdirSync(join(ROOT, "packages")).flatMap((p) => [join(ROOT, "packages", p, "src"), join(ROOT, "packages", p, "test")])]
if (!existsSync(STAMP)) {
  console.error("no compiled tests: run `npm test` (its pretest builds the packages and the tests), or `npm run pretest` first")
  process.exit(1)
}
const builtAt = statSync(STAMP).mtimeMs
const stale = sourceDirs.flatMap(sources).filter((file) => statSync(file).mtimeMs > builtAt)
if (stale.length > 0) {
  console.error(`the compiled tests are older than ${relative(ROOT, stale[0])}${stale.length > 1 ? ` and ${stale.length - 1} other source(s)` : ""}: run \`npm test\` (or \`npm run pretest\`) so the tests run against the current source`)
  process.exit(1)
}

const files = (process.argv.length > 2 ? process.argv.slice(2).map((f) => join(ROOT, f)) : find(BUILD)).sort()
if (files.length === 0) {
  console.error("no test files: run `npm test` (it compiles the tests into .test-build first)")
  process.exit(1)
}

/**
 * The end-to-end files run twice: on SQLite, then on PostgreSQL (a cluster started here, each test server on a
 * database of its own made from a migrated template). Unit and service tests (packages/*\/test), the files
 * about the SQLite file itself and the runner's own test run once.
 */
const SQLITE_ONLY = new Set(["durability", "sso-settings", "examples", "flag-indexes", "migrations", "operations", "packages", "snapshot", "deploy", "rows", "heavy-reads", "runner"].map((n) => `${n}.test.js`))
/** Files about several servers on one database, which only the PostgreSQL store allows. */
const POSTGRES_ONLY = new Set(["several-servers.test.js", "live-servers.test.js", "concurrent-writes.test.js", "copy.test.js", "pg-types.test.js", "round-trips.test.js"])
/** CONVENE_TEST_STORES narrows the passes; a value that names no store (a typo, or empty) is refused, never a quiet skip. */
const STORES = ["sqlite", "postgres"]
const stores = (process.env.CONVENE_TEST_STORES ?? STORES.join(",")).split(",").map((s) => s.trim())
const unknown = stores.filter((s) => !STORES.includes(s))
if (unknown.length > 0) {
  console.error(`CONVENE_TEST_STORES=${JSON.stringify(process.env.CONVENE_TEST_STORES)}: ${unknown.map((s) => JSON.stringify(s)).join(", ")} is not a store; use a comma-separated list of ${STORES.join(", ")}`)
  process.exit(2)
}
const endToEnd = (file) => relative(BUILD, file).startsWith("test/") && !SQLITE_ONLY.has(relative(join(BUILD, "test"), file))
const jobs = [
  ...(stores.includes("sqlite") ? files.filter((file) => !POSTGRES_ONLY.has(relative(join(BUILD, "test"), file))).map((file) => ({ file, store: "sqlite" })) : []),
  ...(stores.includes("postgres") ? files.filter(endToEnd).map((file) => ({ file, store: "postgres" })) : [])
]
let cluster
if (jobs.some((j) => j.store === "postgres")) {
  // durability on this cluster is not what the tests check: it runs without fsync
  cluster = await startCluster({ fsync: "off", synchronous_commit: "off", full_page_writes: "off" })
  process.on("exit", () => cluster.stop())
  execFileSync("psql", [`${cluster.url}/postgres`, "-qXc", "CREATE DATABASE convene_template"])
  execFileSync(process.execPath, ["--input-type=module", "-e", `
    import { makePgStore } from "@convene/core"
    const store = await makePgStore(${JSON.stringify(`${cluster.url}/convene_template`)})
    await store.close()`], { cwd: ROOT, stdio: "inherit" })
}

const runOne = ({ file, store }) =>
  new Promise((resolve) => {
    const started = Date.now()
    // tap gives a file 30 s unless it says otherwise; on a loaded machine a file of many requests takes longer
    // without hanging (thread-permissions 10 s alone, 46 s five files at a time). A hang still ends at TIMEOUT_MS.
    const env = { TAP_TIMEOUT: "180", ...process.env, TAP_CWD: ROOT, ...(store === "postgres" ? { CONVENE_TEST_PG: cluster.url } : {}) }
    const child = spawn(process.execPath, ["--enable-source-maps", file], { cwd: ROOT, env })
    let output = ""
    child.stdout.on("data", (d) => (output += d))
    child.stderr.on("data", (d) => (output += d))
    const timer = setTimeout(() => {
      output += `\n# timed out after ${TIMEOUT_MS / 1000} s\n`
      child.kill("SIGKILL")
    }, TIMEOUT_MS)
    child.on("close", (code, signal) => {
      clearTimeout(timer)
      const summary = [...output.matchAll(/^# \{ total: (\d+), pass: (\d+)(?:, fail: (\d+))?/gm)].at(-1)
      const total = summary ? Number(summary[1]) : 0
      const pass = summary ? Number(summary[2]) : 0
      const fail = summary ? Number(summary[3] ?? 0) : 0
      resolve({ file, store, ok: code === 0 && signal === null && summary !== undefined && fail === 0, total, pass, fail, ms: Date.now() - started, output })
    })
  })

const started = Date.now()
const results = []
let next = 0
let n = 0
const lane = async () => {
  while (next < jobs.length) {
    const job = jobs[next++]
    const r = await runOne(job)
    results.push(r)
    n++
    console.log(`${r.ok ? "ok" : "not ok"} ${n} - ${relative(ROOT, r.file)}${r.store === "postgres" ? " [postgres]" : ""} # time=${r.ms}ms`)
    if (!r.ok) console.log(r.output.replace(/^/gm, "    "))
  }
}
/**
 * One file more than the machine has cores: a file waiting (on a browser, a lock's timeout, a child process) leaves
 * its core to the others (2 cores: 460 s with three at a time, 509-572 s with two, the CPU 97 % busy instead of
 * idle a tenth of the run). CONVENE_TEST_JOBS sets how many.
 */
const JOBS = process.env.CONVENE_TEST_JOBS === undefined ? availableParallelism() + 1 : Number(process.env.CONVENE_TEST_JOBS)
if (!Number.isInteger(JOBS) || JOBS < 1) {
  console.error(`CONVENE_TEST_JOBS=${JSON.stringify(process.env.CONVENE_TEST_JOBS)}: not a whole number of files at a time (1 or more)`)
  process.exit(2)
}
await Promise.all(Array.from({ length: JOBS }, lane))

const total = results.reduce((a, r) => a + r.total, 0)
const pass = results.reduce((a, r) => a + r.pass, 0)
// a file that failed without reporting a failure (crashed, timed out) counts as one failure
const fail = results.reduce((a, r) => a + (r.ok ? 0 : Math.max(r.fail, 1)), 0)
console.log(`\n# { total: ${total}, pass: ${pass}${fail > 0 ? `, fail: ${fail}` : ""} }`)
console.log(`# time=${Date.now() - started}ms, stores: ${stores.join(", ")}`)
process.exit(results.every((r) => r.ok) ? 0 : 1)
