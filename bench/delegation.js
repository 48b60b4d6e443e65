/**
 * `node bench/delegation.js`: delegated voting's cost (decisions §15), through the real server.
 *
 * A group of 1,000 members lets its members delegate; 500 of them delegate to 100 delegates (5 each, the default
 * limit). Two proposal polls: D takes delegated votes, P refuses them ("No delegated votes").
 *
 *   vote   POST /api/b2/stances by the 100 delegates, each changing their vote in turn (agree, disagree, …), for
 *          BENCH_SECONDS, BENCH_CONNECTIONS requests in flight: on D each vote also casts the 5 delegators'
 *          ballots (their rows, choices, events and mails) in the same transaction; on P the same votes alone.
 *          p50/p99 of each request's time, and the ratio of throughputs.
 *   read   GET /api/b2/polls/{id} of D after its delegates voted (600 ballots, 500 of them delegated) beside P
 *          after 600 members voted themselves: autocannon, warm-up then measured run; the ratio D / P.
 *
 *   BENCH_SECONDS=10  BENCH_CONNECTIONS=8 (vote)  BENCH_READ_CONNECTIONS=32
 *
 * Results go to bench/results/delegation.json.
 */
import { Effect } from "effect"
import { makeConvene, Polls, Store, Users, loadAccess } from "@convene/core"
import { measure, startServer, stopServer } from "./harness.js"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const here = dirname(fileURLToPath(import.meta.url))
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 8)
const READ_CONNECTIONS = Number(process.env.BENCH_READ_CONNECTIONS ?? 32)
const MEMBERS = 1000
const DELEGATES = 100
const DELEGATORS = 500

const seed = async (filename) => {
  const c = makeConvene({ filename })
  try {
    const batch = (work) => c.run(Effect.flatMap(Store, (store) => store.transaction(work)))
    const people = await batch(Effect.gen(function*() {
      const out = []
      for (let i = 0; i < MEMBERS; i++) out.push(yield* Users.createUser({ email: `m${i}@example.org`, name: `Member ${i}` }))
      return out
    }))
    const group = (await c.groups.create({ name: "Assembly", owner: people[0].user })).group
    const now = new Date().toISOString()
    await batch(Effect.gen(function*() {
      const store = yield* Store
      for (const p of people.slice(1)) {
        yield* store.memberships.insert({ group_id: group.id, user_id: p.user.id, inviter_id: null, admin: false, delegate: false, title: null, accepted_at: now, created_at: now })
      }
      yield* store.groups.update(group.id, { members_can_delegate: true, delegation_limit: 5, updated_at: now })
      // members 100..599 delegate to the delegates 0..99, five each
      for (let i = 0; i < DELEGATORS; i++) {
        yield* store.delegations.grant({ group_id: group.id, delegator_id: people[DELEGATES + i].user.id, delegate_id: people[i % DELEGATES].user.id, created_at: now })
      }
    }))
    const owner = await c.run(loadAccess(people[0].user))
    const closing = new Date(Date.now() + 7 * 86_400_000).toISOString()
    const poll = (title, allow) => c.run(Polls.createPoll(owner, { group_id: group.id, title, poll_type: "proposal", closing_at: closing, allow_delegated_votes: allow }))
    const d = (await poll("Delegated", true)).poll
    const p = (await poll("Plain", false)).poll
    return { people, d, p }
  } finally {
    await c.close()
  }
}

/** `count` votes by the delegates in turn, `connections` in flight; each request's time. */
const votes = async (url, people, pollId, seconds, connections) => {
  const times = []
  const until = Date.now() + seconds * 1000
  let n = 0
  const one = async () => {
    while (Date.now() < until) {
      const i = n++
      const who = people[i % DELEGATES]
      const option = Math.floor(i / DELEGATES) % 2 === 0 ? "agree" : "disagree"
      const t0 = performance.now()
      const res = await fetch(`${url}/api/b2/stances`, {
        method: "POST",
        headers: { authorization: `Bearer ${who.apiKey}`, "content-type": "application/json" },
        body: JSON.stringify({ poll_id: pollId, option_scores: { [option]: 1 } })
      })
      await res.text()
      if (res.status !== 200) throw new Error(`vote answered ${res.status}`)
      times.push(performance.now() - t0)
    }
  }
  await Promise.all(Array.from({ length: connections }, one))
  times.sort((a, b) => a - b)
  const at = (q) => Math.round(times[Math.min(times.length - 1, Math.floor(q * times.length))] * 10) / 10
  return { votes: times.length, perSec: Math.round(times.length / seconds), p50Ms: at(0.5), p99Ms: at(0.99) }
}

const dir = mkdtempSync(join(tmpdir(), "convene-delegation-bench-"))
const filename = join(dir, "bench.db")
try {
  const { people, d, p } = await seed(filename)
  const server = await startServer("convene", "convene-server.js", filename)
  try {
    // warm-up on both, then measured: the same delegates' votes, with and without their delegators' ballots
    await votes(server.url, people, d.id, 2, CONNECTIONS)
    await votes(server.url, people, p.id, 2, CONNECTIONS)
    const delegated = await votes(server.url, people, d.id, SECONDS, CONNECTIONS)
    const plain = await votes(server.url, people, p.id, SECONDS, CONNECTIONS)
    // P gets the 500 delegators' own votes too: 600 cast ballots on each poll
    for (const who of people.slice(DELEGATES, DELEGATES + DELEGATORS)) {
      const res = await fetch(`${server.url}/api/b2/stances`, {
        method: "POST",
        headers: { authorization: `Bearer ${who.apiKey}`, "content-type": "application/json" },
        body: JSON.stringify({ poll_id: p.id, option_scores: { agree: 1 } })
      })
      if (res.status !== 200) throw new Error(`vote answered ${res.status}`)
    }
    const owner = people[0].apiKey
    const check = async (poll) => (await (await fetch(`${server.url}/api/b2/polls/${poll.id}`, { headers: { authorization: `Bearer ${owner}` } })).json()).polls[0]
    const [dShown, pShown] = [await check(d), await check(p)]
    if (dShown.decided_voters_count !== 600 || dShown.delegated_voters_count !== 500) throw new Error(`D: ${dShown.decided_voters_count} cast, ${dShown.delegated_voters_count} delegated`)
    if (pShown.decided_voters_count !== 600 || pShown.delegated_voters_count !== 0) throw new Error(`P: ${pShown.decided_voters_count} cast`)
    const readOpts = { connections: READ_CONNECTIONS, warmup: 2, seconds: SECONDS }
    const readD = await measure(`${server.url}/api/b2/polls/${d.id}`, owner, readOpts)
    const readP = await measure(`${server.url}/api/b2/polls/${p.id}`, owner, readOpts)
    const result = {
      members: MEMBERS, delegates: DELEGATES, delegators: DELEGATORS,
      vote: { delegated, plain, throughputRatio: Math.round((delegated.perSec / plain.perSec) * 100) / 100 },
      read: { delegated: readD, plain: readP, ratio: Math.round((readD.reqPerSec / readP.reqPerSec) * 100) / 100 }
    }
    console.log(JSON.stringify(result, null, 2))
    mkdirSync(join(here, "results"), { recursive: true })
    writeFileSync(join(here, "results", "delegation.json"), JSON.stringify(result, null, 2))
  } finally {
    await stopServer(server)
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
}
