/**
 * `npm run bench:hot`: the hot path's table in one run. Each benchmark below runs in turn (each with its own
 * bare node:http + better-sqlite3 baseline answering the same document, asserted before measuring) and their
 * tables are printed together and written to bench/results/hot-path.md:
 *
 *   light.js    one discussion, the groups of a member of three groups, /healthz (32 connections)
 *   writes.js   POST /api/b2/comments, POST /api/b2/discussions (32 connections, synchronous=FULL both sides)
 *   threads.js  with a 50-comment thread and a page of 50 discussions (the light variant)
 *   run.js      a memberships page of 50 and a group's discussions page
 *   votes.js    POST /api/b2/stances (10,000 votes, 32 in flight) and the voted poll's document
 *
 * Environment variables are passed on (BENCH_SECONDS, BENCH_ROUNDS …). `npx tsc -b` first.
 */
import { execFileSync } from "node:child_process"
import { mkdirSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const here = dirname(fileURLToPath(import.meta.url))
const runs = [
  ["light.js", {}],
  ["writes.js", {}],
  ["threads.js", { BENCH_THREAD_COMMENTS: "50", BENCH_GROUP_DISCUSSIONS: "50", BENCH_CONNECTIONS: "32" }],
  ["run.js", {}],
  ["votes.js", {}]
]
const sections = []
for (const [script, env] of runs) {
  process.stderr.write(`bench/${script} …\n`)
  const out = execFileSync(process.execPath, [join(here, script)], { env: { ...process.env, ...env }, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] })
  sections.push(`## bench/${script}${Object.keys(env).length > 0 ? ` (${Object.entries(env).map(([k, v]) => `${k}=${v}`).join(" ")})` : ""}\n\n${out.trim()}`)
  console.log(sections.at(-1) + "\n")
}
mkdirSync("bench/results", { recursive: true })
writeFileSync("bench/results/hot-path.md", `# The hot path, ${new Date().toISOString()}\n\n${sections.join("\n\n")}\n`)
