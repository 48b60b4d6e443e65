/**
 * A mixed load: 32 connections cycling through votes, comments, discussion edits, a thread's items, a
 * discussion list, a search and a poll read, against one convene server (requests/s and latency over the
 * mix). Seeded through the command line and the API only, so it runs against any checkout of convene:
 * `node bench/mixed.js [CHECKOUT]` (default: this one; `npx tsc -b` it first). BENCH_SECONDS (default 20).
 */
import autocannon from "autocannon"
import { execFileSync, fork } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"

const checkout = resolve(process.argv[2] ?? ".")
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20)
const dir = mkdtempSync(join(tmpdir(), "convene-mixed-bench-"))
const filename = join(dir, "bench.db")
const cli = (...args) => JSON.parse(execFileSync(process.execPath, [join(checkout, "packages/cli/bin/convene.js"), ...args, "--db", filename, "--json"], { encoding: "utf8" }))

const admin = cli("init", "--admin-email", "ada@example.org", "--admin-name", "Ada")
const group = cli("groups", "create", "--name", "Mixed", "--owner", "1")
const members = Array.from({ length: 20 }, (_, i) => cli("users", "create", "--email", `m${i}@example.org`, "--name", `Member ${i}`))
for (const m of members) cli("members", "add", "--group", String(group.id), "--user", String(m.id))

const server = await new Promise((ok, fail) => {
  const child = fork(join(checkout, "bench/convene-server.js"), [filename])
  child.once("message", (m) => ok({ url: m.url, child }))
  child.once("exit", (code) => fail(new Error(`server exited ${code}`)))
})
const headers = { authorization: `Bearer ${admin.api_key}`, "content-type": "application/json" }
const post = async (path, body, method = "POST") => {
  const res = await fetch(server.url + path, { method, headers, body: JSON.stringify(body) })
  if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`)
  return res.json()
}
const discussions = []
for (let i = 0; i < 20; i++) discussions.push((await post("/api/b2/discussions", { group_id: group.id, title: `Budget thread ${i}`, description: `Which budget line ${i}?` })).discussions[0])
for (const d of discussions) for (let j = 0; j < 10; j++) await post("/api/b2/comments", { discussion_id: d.id, body: `A comment about the budget, number ${j}` })
const poll = (await post("/api/b2/polls", { group_id: group.id, title: "Adopt the budget?", poll_type: "proposal", closing_at: new Date(Date.now() + 86_400_000).toISOString() })).polls[0]
const d0 = discussions[0]

const requests = [
  { method: "POST", path: "/api/b2/stances", body: JSON.stringify({ poll_id: poll.id, option_scores: { agree: 1 } }) },
  { method: "POST", path: "/api/b2/comments", body: JSON.stringify({ discussion_id: d0.id, body: "one more comment" }) },
  { method: "PATCH", path: `/api/b2/discussions/${d0.id}`, body: JSON.stringify({ title: "Budget thread, edited" }) },
  { method: "GET", path: `/api/b2/threads/${d0.topic_id}/items` },
  { method: "GET", path: `/api/b2/discussions?group_id=${group.id}` },
  { method: "GET", path: "/api/b2/search?query=budget" },
  { method: "GET", path: `/api/b2/polls/${poll.id}` }
]
for (const r of requests) {
  const res = await fetch(server.url + r.path, { method: r.method, headers, body: r.body })
  if (res.status !== 200) throw new Error(`${r.method} ${r.path}: ${res.status} ${await res.text()}`)
}
await autocannon({ url: server.url, connections: 32, duration: 2, headers, requests })
const result = await autocannon({ url: server.url, connections: 32, duration: SECONDS, headers, requests })
console.log(`${checkout}: ${Math.round(result.requests.average)} req/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, ` +
  `${result.errors} errors, ${result.non2xx} non-2xx (${SECONDS} s, 32 connections, mix of ${requests.length})`)
server.child.send("stop")
await new Promise((r) => server.child.once("exit", r))
rmSync(dir, { recursive: true, force: true })
