/**
 * The benchmarks a maintainer reruns, behind one command: `node bench/suite.js NAME ...` (after `npx tsc -b`;
 * `npm run bench -- NAME ...` builds first). Each runs convene beside a bare baseline doing the same work
 * (asserted to answer the same before measuring), in interleaved rounds, and prints a table of medians and
 * ratios; the tables are also written to bench/results/NAME.md. `hot` names the hot path's five, `all` every
 * one. Environment variables are passed on (BENCH_SECONDS, BENCH_ROUNDS …). One-off experiments that chose
 * something once live in bench/experiments/.
 */
import { execFileSync } from "node:child_process"
import { mkdirSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const here = dirname(fileURLToPath(import.meta.url))

/** name → the script, its environment, and what it measures */
const SUITE = {
  light: ["light.js", {}, "one discussion, the groups of a member of three groups, a poll, /healthz (32 connections)"],
  writes: ["writes.js", {}, "POST /api/b2/comments and /api/b2/discussions (32 connections, synchronous=FULL both sides)"],
  threads: ["threads.js", { BENCH_THREAD_COMMENTS: "50", BENCH_GROUP_DISCUSSIONS: "50", BENCH_CONNECTIONS: "32" }, "a 50-comment thread and a page of 50 discussions"],
  reads: ["run.js", {}, "a memberships page of 50 and a group's discussions page"],
  votes: ["votes.js", {}, "POST /api/b2/stances (10,000 votes, 32 in flight) and the voted poll's document"],
  "reports-search": ["reports-search.js", {}, "the participation report and search at scale"],
  webhooks: ["webhooks.js", {}, "webhook delivery throughput to a local receiver"],
  mail: ["mail.js", {}, "mail delivery throughput to a local SMTP server"],
  observe: ["observe.js", {}, "what logs and metrics cost on the light read"],
  stall: ["stall.js", {}, "/healthz latency while heavy reports run"],
  growth: ["growth.js", {}, "reads and writes at ten times the data"],
  memory: ["memory.js", {}, "resident memory idle, after 10,000 and 100,000 requests"],
  mixed: ["mixed.js", {}, "a mix of reads and writes"],
  import: ["import.js", {}, "a large Loomio import"],
  pages: ["pages.js", {}, "home, group, a 50-comment thread, a 200-ballot poll and a vote: each page beside its API request"],
  postgres: ["postgres.js", {}, "the PostgreSQL store (one server, two) beside SQLite and bare baselines"],
  inbound: ["inbound.js", {}, "2,000 replies by e-mail through the SMTP listener beside the API's own comment rate; 250 to readable"],
  delegation: ["delegation.js", {}, "1,000 members, 500 delegating to 100: a delegate's vote with its delegated ballots, and the results read, beside the same without delegation"]
}
const SETS = { hot: ["light", "writes", "threads", "reads", "votes"], all: Object.keys(SUITE) }

const asked = process.argv.slice(2)
if (asked.length === 0) {
  console.log("node bench/suite.js NAME ...   (or: hot, all)\n")
  for (const [name, [script, , what]] of Object.entries(SUITE)) console.log(`  ${name.padEnd(15)} bench/${script.padEnd(20)} ${what}`)
  process.exit(0)
}
const names = asked.flatMap((n) => SETS[n] ?? [n])
const unknown = names.filter((n) => !(n in SUITE))
if (unknown.length > 0) {
  console.error(`unknown benchmark: ${unknown.join(", ")} (run without arguments for the list)`)
  process.exit(2)
}

mkdirSync(join(here, "results"), { recursive: true })
const sections = []
for (const name of names) {
  const [script, env] = SUITE[name]
  process.stderr.write(`bench/${script} …\n`)
  const out = execFileSync(process.execPath, [join(here, script)], { env: { ...process.env, ...env }, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] })
  const section = `## ${name}: bench/${script}${Object.keys(env).length > 0 ? ` (${Object.entries(env).map(([k, v]) => `${k}=${v}`).join(" ")})` : ""}\n\n${out.trim()}`
  writeFileSync(join(here, "results", `${name}.md`), `# ${new Date().toISOString()}\n\n${section}\n`)
  sections.push(section)
  console.log(section + "\n")
}
if (names.length > 1) writeFileSync(join(here, "results", "suite.md"), `# The suite, ${new Date().toISOString()}\n\n${sections.join("\n\n")}\n`)
