/**
 * Cost growth: the same light reads and the same writes on a small database and on one ten times the issue's
 * scale unit (10,000 discussions, 100,000 comments and 100,000 ballots against 1,000, 10,000 and 10,000).
 * Discussions and polls are made through the core (concurrently, so they share commits), each poll issuing
 * its ballots; comments, and the votes of 100 voters on every poll (100 or 1,000 polls), are written straight
 * into the file, their counters kept by the schema's triggers (through the API they would take minutes).
 * Each size runs in a convene server process of its own, both at once; each load runs 4 rounds at 32 connections
 * on each, the sizes taking turns to go first, medians. `npx tsc -b && node bench/growth.js`.
 */
import autocannon from "autocannon"
import { makeConvene } from "@convene/core"
import Database from "better-sqlite3"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { median, startServer, stopServer } from "./harness.js"

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5)
const VOTERS = 100
const SIZES = [
  { name: "1×", discussions: 1_000, comments: 10_000, polls: 100 },
  { name: "10×", discussions: 10_000, comments: 100_000, polls: 1_000 }
]

const seed = async (size) => {
  const dir = mkdtempSync(join(tmpdir(), "convene-growth-bench-"))
  const filename = join(dir, "bench.db")
  const c = makeConvene({ filename })
  const { user, apiKey } = await c.users.create({ email: "ada@example.org", name: "Ada" })
  const { group } = await c.groups.create({ name: "Growth", owner: user })
  const ada = c.as(user)
  const ids = []
  for (let i = 0; i < size.discussions; i += 200) {
    const batch = await Promise.all(Array.from({ length: Math.min(200, size.discussions - i) }, (_, j) =>
      ada.startDiscussion({ group_id: group.id, title: `Thread ${i + j}`, description: "About the budget." })))
    ids.push(...batch.map((d) => d.discussion.id))
  }
  const voters = []
  for (let i = 0; i < VOTERS; i++) {
    const { user: voter } = await c.users.create({ email: `voter${i}@example.org`, name: `Voter ${i}` })
    await c.members.add({ group, user: voter })
    voters.push(voter.id)
  }
  const pollIds = []
  const closing_at = new Date(Date.now() + 30 * 86_400_000).toISOString()
  for (let i = 0; i < size.polls; i += 200) {
    const batch = await Promise.all(Array.from({ length: Math.min(200, size.polls - i) }, (_, j) =>
      ada.startPoll({ group_id: group.id, poll_type: "proposal", title: `Poll ${i + j}`, details: "About the budget.", closing_at })))
    pollIds.push(...batch.map((p) => p.poll.id))
  }
  await c.close()
  const db = new Database(filename)
  // every voter casts the ballot the poll issued them, for the poll's first option
  db.prepare(`UPDATE stances SET cast_at = '2026-01-01T00:00:00.000Z' WHERE participant_id IN (SELECT value FROM json_each(?))`)
    .run(JSON.stringify(voters))
  db.prepare(`INSERT INTO stance_choices (stance_id, poll_option_id, score)
    SELECT s.id, (SELECT o.id FROM poll_options o WHERE o.poll_id = s.poll_id ORDER BY o.priority LIMIT 1), 1 FROM stances s WHERE s.cast_at IS NOT NULL`).run()
  db.prepare(`WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ? - 1),
    d AS (SELECT id, row_number() OVER (ORDER BY id) - 1 AS k FROM discussions)
    INSERT INTO comments (discussion_id, author_id, body, created_at, updated_at)
    SELECT d.id, ?, 'comment ' || n.i, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z' FROM n JOIN d ON d.k = n.i % ?`)
    .run(size.comments, user.id, size.discussions)
  db.close()
  const middle = Math.floor(pollIds.length / 2)
  // the caller votes on 100 polls in turn (the same 100 at either size): each vote is a poll's own, as members' are
  return { dir, filename, apiKey, discussionId: ids[Math.floor(ids.length / 2)], pollId: pollIds[middle], votedPolls: pollIds.slice(middle - 50, middle + 50) }
}

// both sizes' servers run side by side and every load alternates between them, so the machine's drift
// falls on both sides alike
const seeded = []
for (const size of SIZES) seeded.push(await seed(size))
const servers = []
for (const s of seeded) servers.push(await startServer("convene", "convene-server.js", s.filename))
const loads = seeded.map((s, k) => {
  const url = servers[k].url
  const headers = { authorization: `Bearer ${s.apiKey}`, "content-type": "application/json" }
  let turn = 0
  return {
    read: { url: `${url}/api/b2/discussions/${s.discussionId}`, headers },
    write: { url: `${url}/api/b2/comments`, method: "POST", headers, body: JSON.stringify({ discussion_id: s.discussionId, body: "one more" }) },
    poll: { url: `${url}/api/b2/polls/${s.pollId}`, headers },
    vote: {
      url,
      requests: [{
        method: "POST", path: "/api/b2/stances", headers,
        setupRequest: (req) => ({ ...req, body: JSON.stringify({ poll_id: s.votedPolls[turn++ % s.votedPolls.length], option_scores: { agree: 1 } }) })
      }]
    }
  }
})
const rows = SIZES.map((size) => ({ size, result: {} }))
for (const name of ["read", "write", "poll", "vote"]) {
  for (const load of loads) await autocannon({ ...load[name], connections: 32, duration: 1 })
  const runs = loads.map(() => [])
  for (let i = 0; i < 4; i++) {
    // the sizes take turns going first
    for (const k of i % 2 === 0 ? [0, 1] : [1, 0]) runs[k].push(await autocannon({ ...loads[k][name], connections: 32, duration: SECONDS }))
  }
  for (const [k, r] of runs.entries()) {
    if (r.some((x) => x.errors + x.non2xx > 0)) throw new Error(`${SIZES[k].name} ${name}: errors`)
    rows[k].result[name] = { rps: median(r.map((x) => x.requests.average)), p99: median(r.map((x) => x.latency.p99)) }
  }
}
for (const server of servers) await stopServer(server)
for (const s of seeded) rmSync(s.dir, { recursive: true, force: true })
const cell = (r) => `${Math.round(r.rps)} (${r.p99})`
console.log("| data | discussions | comments | ballots | GET /api/b2/discussions/{id} req/s (p99 ms) | POST /api/b2/comments | GET /api/b2/polls/{id} | POST /api/b2/stances |")
console.log("|---|---|---|---|---|---|---|---|")
for (const { size, result } of rows) {
  const n = (x) => x.toLocaleString("en")
  console.log(`| ${size.name} | ${n(size.discussions)} | ${n(size.comments)} | ${n(size.polls * VOTERS)} | ${cell(result.read)} | ${cell(result.write)} | ${cell(result.poll)} | ${cell(result.vote)} |`)
}
const [small, large] = rows.map((r) => r.result)
const ratio = (k) => (large[k].rps / small[k].rps).toFixed(2)
console.log(`10× / 1×: discussion reads ${ratio("read")}, comments ${ratio("write")}, poll reads ${ratio("poll")}, votes ${ratio("vote")}`)
