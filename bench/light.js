/**
 * Light endpoints, convene beside a bare node:http + better-sqlite3 baseline doing the same queries
 * (bench/light-baseline.js): GET /api/b2/discussions/{id}, GET /api/b2/groups of a member of three groups and
 * GET /healthz; and GET /api/b2/polls/{id} of a proposal with five ballots beside bench/votes-baseline.js's
 * poll document. Both answer the same document
 * (asserted first); then interleaved rounds of autocannon at 32 connections, ratio of medians.
 * `npx tsc -b && node bench/light.js` (BENCH_SECONDS, BENCH_ROUNDS). Results: bench/results/light.md.
 */
import { deepStrictEqual } from "node:assert"
import { rmSync } from "node:fs"
import { makeConvene } from "@convene/core"
import { seedOneThread, sideBySide, startServer, stopServer, writeTable } from "./harness.js"

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5)
const { dir, filename, apiKey, group, discussion: thread } = await seedOneThread("light", { members: 5, groups: 3 })

// a proposal with five ballots (the members'), the caller's among them
const seed = makeConvene({ filename })
const caller = await seed.authenticate(apiKey)
const { poll } = await seed.as(caller).startPoll({
  group_id: group.id, poll_type: "proposal", title: "A light poll", details: "Agreed?", closing_at: new Date(Date.now() + 30 * 86_400_000).toISOString()
})
await seed.as(caller).vote({ poll_id: poll.id, option_scores: { agree: 1 } })
for (let i = 0; i < 4; i++) {
  const { user } = await seed.users.create({ email: `voter${i}@example.org`, name: `Voter ${i}` })
  await seed.members.add({ group, user })
  await seed.as(user).vote({ poll_id: poll.id, option_scores: { [i % 2 === 0 ? "agree" : "disagree"]: 1 } })
}
await seed.close()

const servers = [await startServer("convene", "convene-server.js", filename, process.env.BENCH_PROFILE ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : []), await startServer("baseline", "light-baseline.js", filename)]
const pollBaseline = await startServer("baseline", "votes-baseline.js", filename)
const targets = [
  { name: "GET /api/b2/discussions/{id}", path: `/api/b2/discussions/${thread.id}` },
  { name: "GET /api/b2/groups (a member of three groups)", path: "/api/b2/groups" },
  { name: "GET /api/b2/polls/{id} (five ballots)", path: `/api/b2/polls/${poll.id}`, baseline: pollBaseline },
  { name: "GET /healthz", path: "/healthz" }
]
const headers = { authorization: `Bearer ${apiKey}` }
const rows = []
for (const target of targets) {
  const pair = [servers[0], target.baseline ?? servers[1]]
  const [a, b] = await Promise.all(pair.map((s) => fetch(s.url + target.path, { headers }).then(async (r) => [r.status, await r.json()])))
  deepStrictEqual(b, a, `${target.name}: the baseline answers differently`)
  rows.push(await sideBySide(target.name, pair, (s) => ({ url: s.url + target.path, headers }), { rounds: ROUNDS, seconds: SECONDS }))
}
for (const s of [...servers, pollBaseline]) await stopServer(s)
writeTable("light.md", rows, { rounds: ROUNDS, seconds: SECONDS })
rmSync(dir, { recursive: true, force: true })
