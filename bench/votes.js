/**
 * `node bench/votes.js`: casting 10,000 votes on one poll and reading its results, convene beside a bare
 * node:http + better-sqlite3 baseline (bench/votes-baseline.js) that does the same database work per vote and
 * answers the same JSON (asserted):
 *
 *   cast   POST /api/b2/stances {"poll_id", "option_scores": {"agree": 1}}  every member of a 10,000-member group
 *          votes once, each with their own API key (options in turn: agree, abstain, disagree, block); 32 requests in
 *          flight (32 keep-alive connections, each taking the next member), until every member has voted
 *   read   GET /api/b2/polls/{id}   the voted poll (results over 10,000 ballots), read by its author; autocannon,
 *          32 connections, a warm-up run then the measured run (answers may take seconds under 32 connections:
 *          autocannon waits up to 2 minutes for each, and after each run the server is given time to finish what was
 *          left in flight before anything else is measured)
 *
 *   BENCH_SECONDS=10  BENCH_WARMUP_SECONDS=2  BENCH_CONNECTIONS=32
 *   BENCH_VOTERS=10000   members (and votes per poll); smaller for a quick try
 *   BENCH_PROFILE=1      also write a V8 CPU profile of the convene server to bench/results/
 *
 * Seeding goes through the core (users with `Users.createUser`, memberships through the Store port, then two
 * identical proposal polls with `Polls.createPoll`, each issuing an uncast ballot to every member): one poll for convene, one for the baseline, so
 * each server casts 10,000 fresh votes in the same database. The group's owner is member 0 and votes too.
 *
 * What is compared: the first vote of each side (member 0, made before the measured run, so the cast phase measures
 * the other 9,999) and the read of each side's poll after all votes: both documents are compared in full
 * (deepStrictEqual) after normalising what must differ between the two polls: the ids of the poll, its thread, its
 * options and the caller's ballot, the poll's key, and timestamps (only whether each is null is compared). Everything
 * else (results with their totals, percentages and voter ids, counters, the group, the people side-loaded) must be
 * equal. After the cast phase, SQL checks that each poll has exactly 10,000 cast ballots with one choice each, one
 * `stance_created` thread item per vote (sequence ids 1..10,000, distinct position keys) and one outbox event per
 * vote, and that both polls hold the same votes per option.
 *
 * Each server runs in its own child process (bench/convene-server.js, shared with bench/run.js); the clients run
 * here. Results go to bench/results/votes.json.
 */
import { loadAccess, makeConvene, Polls, Store, Users } from "@convene/core"
import autocannon from "autocannon"
import Database from "better-sqlite3"
import { Effect } from "effect"
import { deepStrictEqual } from "node:assert"
import { startServer, stopServer } from "./harness.js"
import * as http from "node:http"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { availableParallelism, cpus, loadavg, tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const here = dirname(fileURLToPath(import.meta.url))
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10)
const WARMUP = Number(process.env.BENCH_WARMUP_SECONDS ?? 2)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32)
const VOTERS = Number(process.env.BENCH_VOTERS ?? 10_000)
const PROFILE = process.env.BENCH_PROFILE === "1"

const OPTIONS = ["agree", "abstain", "disagree", "block"]
const COUNTRIES = ["NZ", "FR", "DE", null, "BR", "KE", null, "JP"]
const optionOf = (i) => OPTIONS[i % OPTIONS.length]

/** Seeds through the core use cases, each batch in one outer transaction (the use cases join it). */
export const seed = async (filename) => {
  const c = makeConvene({ filename })
  try {
    const batch = (work) => c.run(Effect.flatMap(Store, (store) => store.transaction(work)))
    // some people without a name (shown by username, or "Anonymous"), as in real data
    const people = await batch(Effect.gen(function*() {
      const out = []
      for (let i = 0; i < VOTERS; i++) {
        out.push(yield* Users.createUser({
          email: `voter${i}@example.org`,
          name: i === 0 ? "Bench Owner" : i % 17 === 0 ? null : `Voter ${i}`,
          username: i % 3 === 0 ? `voter-${i}` : null,
          country: COUNTRIES[i % COUNTRIES.length]
        }))
      }
      return out
    }))
    const group = (await c.groups.create({ name: "Assembly", owner: people[0].user })).group
    // The members join through the Store port, with the row `Memberships.addMember` writes: addMember also looks for
    // open polls to issue ballots in (there are none yet) and, for that, reads every membership of the group on each
    // call, which makes 10,000 additions quadratic (minutes).
    await batch(Effect.gen(function*() {
      const store = yield* Store
      const now = new Date().toISOString()
      for (let i = 1; i < VOTERS; i++) {
        yield* store.memberships.insert({
          group_id: group.id, user_id: people[i].user.id, inviter_id: null, admin: false, delegate: false, title: null,
          accepted_at: now, created_at: now
        })
      }
    }))
    const closingAt = new Date(Date.now() + 7 * 24 * 3600 * 1000).toISOString()
    const poll = () =>
      batch(Effect.flatMap(loadAccess(people[0].user), (access) =>
        Polls.createPoll(access, {
          group_id: group.id,
          title: "Adopt the 2026 budget",
          poll_type: "proposal",
          details: "The treasurer proposes the budget in the attached sheet.\n\nVote **agree** to adopt it as it stands.",
          options: OPTIONS,
          closing_at: closingAt
        })))
    const conveneView = await poll()
    const baselineView = await poll()
    return { keys: people.map((p) => p.apiKey), userIds: people.map((p) => p.user.id), groupId: group.id, polls: { convene: conveneView.poll.id, baseline: baselineView.poll.id } }
  } finally {
    await c.close()
  }
}

const call = async (server, method, path, apiKey, body) => {
  const res = await fetch(server.url + path, {
    method,
    headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body)
  })
  const text = await res.text()
  if (res.status !== 200) throw new Error(`${server.name} ${method} ${path}: ${res.status} ${text.slice(0, 300)}`)
  return text
}

/**
 * What may differ between two identical polls: their ids (poll, thread, options, the caller's ballot), the poll's
 * key and the timestamps (kept as null / not null). Everything else is compared as it is.
 */
const normalise = (doc) => {
  const poll = doc.polls[0]
  const option = new Map(doc.poll_options.map((o, i) => [o.id, `option ${i}`]))
  const opt = (id) => option.get(id) ?? `unknown option ${id}`
  const time = (v) => (v === null ? null : typeof v === "string" && /^\d{4}-\d\d-\d\dT/.test(v) ? "<time>" : `not a time: ${v}`)
  const stance = (id) => (id === poll.my_stance_id ? "<my stance>" : `other stance ${id}`)
  const pid = (id) => (id === poll.id ? "<poll>" : `other poll ${id}`)
  const tid = (id) => (id === poll.topic_id ? "<topic>" : `other topic ${id}`)
  return {
    ...doc,
    polls: doc.polls.map((p) => ({
      ...p, id: pid(p.id), key: "<key>", topic_id: tid(p.topic_id), poll_option_ids: p.poll_option_ids.map(opt),
      results: p.results === null ? null : p.results.map((r) => ({ ...r, id: opt(r.id) })),
      my_stance_id: p.my_stance_id === null ? null : stance(p.my_stance_id),
      closing_at: time(p.closing_at), opened_at: time(p.opened_at), closed_at: time(p.closed_at), discarded_at: time(p.discarded_at),
      created_at: time(p.created_at), updated_at: time(p.updated_at)
    })),
    poll_options: doc.poll_options.map((o) => ({ ...o, id: opt(o.id), poll_id: pid(o.poll_id) })),
    stances: doc.stances.map((s) => ({
      ...s, id: stance(s.id), poll_id: pid(s.poll_id),
      stance_choices: s.stance_choices.map((c) => ({ ...c, poll_option_id: opt(c.poll_option_id) })),
      cast_at: time(s.cast_at), revoked_at: time(s.revoked_at), created_at: time(s.created_at), updated_at: time(s.updated_at)
    })),
    topics: doc.topics.map((t) => ({
      ...t, id: tid(t.id), topicable_id: pid(t.topicable_id),
      last_activity_at: time(t.last_activity_at), closed_at: time(t.closed_at), locked_at: time(t.locked_at),
      created_at: time(t.created_at), updated_at: time(t.updated_at)
    }))
  }
}

const sameDocument = (what, conveneText, baselineText) => {
  try {
    deepStrictEqual(normalise(JSON.parse(baselineText)), normalise(JSON.parse(conveneText)))
  } catch (e) {
    console.error(`\nERROR: the baseline's answer to ${what} differs from convene's (beyond ids and timestamps):\n`)
    console.error(e.message.slice(0, 4000))
    throw new Error(`baseline answer differs for ${what}`)
  }
  console.log(`  ${what}: same JSON (convene ${conveneText.length} bytes, baseline ${baselineText.length} bytes)`)
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]

/**
 * Members `from`..end each cast one vote on `pollId`: `CONNECTIONS` workers on as many keep-alive connections,
 * each taking the next member (so every request carries a different key). Any answer but 200 fails the run.
 * A request reset on a reused keep-alive connection (ECONNRESET) is sent again on a new connection, unless the
 * database shows that member's ballot already cast; such retries are counted and reported (the SQL checks after
 * the phase would catch a vote counted twice).
 */
const castVotes = async (server, pollId, data, from, filename) => {
  const url = new URL(server.url)
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS })
  const db = new Database(filename, { readonly: true, fileMustExist: true })
  const castAlready = db.prepare(`SELECT cast_at IS NOT NULL FROM stances WHERE poll_id = ? AND participant_id = ? AND latest = 1`).pluck()
  const latencies = []
  const resets = []
  let next = from
  let failure
  const send = (i) =>
    new Promise((resolve, reject) => {
      const body = JSON.stringify({ poll_id: pollId, option_scores: { [optionOf(i)]: 1 } })
      const req = http.request({
        host: url.hostname, port: url.port, path: "/api/b2/stances", method: "POST", agent,
        headers: { authorization: `Bearer ${data.keys[i]}`, "content-type": "application/json", "content-length": Buffer.byteLength(body) }
      }, (res) => {
        const chunks = []
        res.on("data", (c) => res.statusCode !== 200 && chunks.push(c))
        res.on("end", () => resolve({ status: res.statusCode, text: Buffer.concat(chunks).toString().slice(0, 300) }))
        res.on("error", reject)
      })
      req.on("error", (e) => reject(Object.assign(e, { reused: req.reusedSocket })))
      req.end(body)
    })
  const post = async (i) => {
    const t0 = performance.now()
    let r
    for (let attempt = 1; r === undefined; attempt++) {
      try {
        r = await send(i)
      } catch (e) {
        if (e.code !== "ECONNRESET" || !e.reused || attempt > 3) throw e
        const cast = castAlready.get(pollId, data.userIds[i]) === 1
        resets.push({ member: i, afterMs: Math.round(performance.now() - t0), atSeconds: Math.round((performance.now() - started) / 1000), cast })
        if (cast) r = { status: 200 }
      }
    }
    latencies.push(performance.now() - t0)
    if (r.status !== 200) failure ??= `member ${i}: ${r.status} ${r.text}`
  }
  const worker = async () => {
    while (next < data.keys.length && failure === undefined) await post(next++)
  }
  const started = performance.now()
  let progress = started
  const timer = setInterval(() => {
    const now = performance.now()
    if (now - progress > 30_000) {
      progress = now
      console.log(`    ${server.name}: ${latencies.length} votes in ${((now - started) / 1000).toFixed(0)} s`)
    }
  }, 1000)
  try {
    await Promise.all(Array.from({ length: CONNECTIONS }, worker))
  } finally {
    clearInterval(timer)
    agent.destroy()
    db.close()
  }
  const seconds = (performance.now() - started) / 1000
  if (failure !== undefined) throw new Error(`${server.name} POST /api/b2/stances: ${failure}`)
  if (resets.length > 0) console.log(`    ${server.name}: ${resets.length} connection reset(s), request sent again: ${JSON.stringify(resets)}`)
  latencies.sort((a, b) => a - b)
  return {
    votes: latencies.length,
    seconds,
    perSec: latencies.length / seconds,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    maxMs: latencies[latencies.length - 1],
    resets
  }
}

/** What the votes left in the database, per poll; fails unless every member's vote is there exactly once. */
const checkVotes = (filename, polls) => {
  const db = new Database(filename, { readonly: true, fileMustExist: true })
  try {
    const one = (sql, ...args) => db.prepare(sql).pluck().get(...args)
    const tally = {}
    for (const [side, pollId] of Object.entries(polls)) {
      const topicId = one(`SELECT topic_id FROM polls WHERE id = ?`, pollId)
      const facts = {
        castBallots: one(`SELECT count(*) FROM stances WHERE poll_id = ? AND latest = 1 AND revoked_at IS NULL AND cast_at IS NOT NULL`, pollId),
        ballotRows: one(`SELECT count(*) FROM stances WHERE poll_id = ?`, pollId),
        choices: one(`SELECT count(*) FROM stance_choices c JOIN stances s ON s.id = c.stance_id WHERE s.poll_id = ?`, pollId),
        voteItems: one(`SELECT count(*) FROM topic_items WHERE topic_id = ? AND kind = 'stance_created'`, topicId),
        maxSequence: one(`SELECT max(sequence_id) FROM topic_items WHERE topic_id = ?`, topicId),
        positionKeys: one(`SELECT count(DISTINCT position_key) FROM topic_items WHERE topic_id = ? AND kind = 'stance_created'`, topicId),
        itemsCount: one(`SELECT items_count FROM topics WHERE id = ?`, topicId),
        events: one(`SELECT count(*) FROM webhook_events e JOIN stances s ON s.id = e.eventable_id
                     WHERE e.eventable_type = 'Stance' AND e.kind = 'stance_created' AND s.poll_id = ?`, pollId)
      }
      const expected = {
        castBallots: VOTERS, ballotRows: VOTERS, choices: VOTERS, voteItems: VOTERS, maxSequence: VOTERS,
        positionKeys: VOTERS, itemsCount: VOTERS + 1, events: VOTERS
      }
      deepStrictEqual(facts, expected, `${side}: the votes in the database`)
      tally[side] = db.prepare(`SELECT o.name, count(*) AS n FROM stance_choices c JOIN poll_options o ON o.id = c.poll_option_id
                                 WHERE o.poll_id = ? GROUP BY o.name ORDER BY o.name`).all(pollId)
    }
    deepStrictEqual(tally.baseline, tally.convene, "both polls hold the same votes per option")
    console.log(`  SQL: each poll has exactly ${VOTERS} cast ballots, ${VOTERS} vote items and ${VOTERS} outbox events; same votes per option`)
  } finally {
    db.close()
  }
}

/**
 * The read: autocannon, a warm-up run then the measured run. A poll read over 10,000 ballots can be slow, so
 * autocannon waits up to 2 minutes per answer, and after each run the next phase waits until the server has
 * worked through the requests autocannon left in flight (a single GET answers about as fast as when idle), so
 * neither the measured run nor the other server pays for them.
 */
const readFigures = async (server, path, apiKey) => {
  const timed = async () => {
    const t = performance.now()
    await call(server, "GET", path, apiKey)
    return performance.now() - t
  }
  const idle = Math.min(await timed(), await timed(), await timed())
  const settle = async () => {
    const until = performance.now() + 120_000
    while ((await timed()) > Math.max(2 * idle, idle + 50) && performance.now() < until);
  }
  const run = async (duration) => {
    const r = await autocannon({
      url: server.url + path, duration, connections: CONNECTIONS, timeout: 120, headers: { authorization: `Bearer ${apiKey}` }
    })
    await settle()
    return r
  }
  await run(WARMUP)
  const r = await run(SECONDS)
  if (r.errors + r.timeouts + r.non2xx > 0) throw new Error(`${server.name} GET ${path}: ${r.errors} errors, ${r.non2xx} non-2xx`)
  return { perSec: r.requests.average, p50Ms: r.latency.p50, p99Ms: r.latency.p99, requests: r.requests.total, idleMs: idle }
}

const table = (rows) => {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)))
  return rows.map((r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ")).join("\n")
}

const main = async () => {
  const dir = mkdtempSync(join(tmpdir(), "convene-bench-votes-"))
  const filename = join(dir, "bench.db")
  const servers = []
  try {
    const t0 = performance.now()
    const data = await seed(filename)
    console.log(`Seeded a group of ${VOTERS} members and two proposal polls with ${VOTERS} ballots each in ` +
      `${((performance.now() - t0) / 1000).toFixed(1)} s`)
    mkdirSync(join(here, "results"), { recursive: true })
    const profileArgs = PROFILE ? ["--cpu-prof", `--cpu-prof-dir=${join(here, "results")}`] : []
    servers.push(await startServer("convene", "convene-server.js", filename, profileArgs), await startServer("baseline", "votes-baseline.js", filename))
    const [convene, baseline] = servers
    const load = { start: loadavg()[0] }
    console.log(`Load average ${load.start.toFixed(2)} on ${availableParallelism()} CPUs` +
      (load.start > availableParallelism() ? " (busy machine: figures will be noisy)" : ""))

    console.log("First vote (member 0) on each side:")
    const vote0 = (server, pollId) => call(server, "POST", "/api/b2/stances", data.keys[0], { poll_id: pollId, option_scores: { [optionOf(0)]: 1 } })
    sameDocument("POST /api/b2/stances", await vote0(convene, data.polls.convene), await vote0(baseline, data.polls.baseline))

    console.log(`Casting the other ${VOTERS - 1} votes on each side, ${CONNECTIONS} in flight:`)
    const castC = await castVotes(convene, data.polls.convene, data, 1, filename)
    console.log(`  convene: ${castC.votes} votes in ${castC.seconds.toFixed(1)} s`)
    const castB = await castVotes(baseline, data.polls.baseline, data, 1, filename)
    console.log(`  baseline: ${castB.votes} votes in ${castB.seconds.toFixed(1)} s`)
    checkVotes(filename, data.polls)
    load.afterCast = loadavg()[0]

    console.log("Reading the voted polls:")
    const pathOf = (pollId) => `/api/b2/polls/${pollId}`
    const [readTextC, readTextB] = [
      await call(convene, "GET", pathOf(data.polls.convene), data.keys[0]),
      await call(baseline, "GET", pathOf(data.polls.baseline), data.keys[0])
    ]
    sameDocument("GET /api/b2/polls/{id}", readTextC, readTextB)
    const decided = JSON.parse(readTextC).polls[0].decided_voters_count
    if (decided !== VOTERS) throw new Error(`convene counts ${decided} votes, not ${VOTERS}`)
    const readC = await readFigures(convene, pathOf(data.polls.convene), data.keys[0])
    const readB = await readFigures(baseline, pathOf(data.polls.baseline), data.keys[0])
    console.log(`  one GET alone: convene ${readC.idleMs.toFixed(0)} ms, baseline ${readB.idleMs.toFixed(0)} ms`)
    load.end = loadavg()[0]

    const results = [
      { phase: `cast: POST /api/b2/stances (${castC.votes} votes)`, unit: "votes/s", convene: castC, baseline: castB, ratio: castC.perSec / castB.perSec },
      { phase: `read: GET /api/b2/polls/{id} (${VOTERS} ballots, ${readTextC.length} bytes)`, unit: "req/s", convene: readC, baseline: readB, ratio: readC.perSec / readB.perSec }
    ]
    const rows = [
      ["phase", "convene /s", "convene p99 ms", "baseline /s", "baseline p99 ms", "ratio"],
      ...results.map((r) => [
        r.phase, `${r.convene.perSec.toFixed(0)} ${r.unit}`, r.convene.p99Ms.toFixed(0), `${r.baseline.perSec.toFixed(0)} ${r.unit}`,
        r.baseline.p99Ms.toFixed(0), r.ratio.toFixed(2)
      ])
    ]
    console.log("\n" + table(rows))
    console.log(`(ratio = convene / baseline; ${CONNECTIONS} connections; load average ${load.start.toFixed(2)} at start, ` +
      `${load.afterCast.toFixed(2)} after casting, ${load.end.toFixed(2)} at the end, on ${availableParallelism()} CPUs)`)

    writeFileSync(join(here, "results", "votes.json"), JSON.stringify({
      date: new Date().toISOString(),
      node: process.version,
      cpus: availableParallelism(),
      cpuModel: cpus()[0]?.model,
      loadAverage: load,
      connections: CONNECTIONS,
      warmupSeconds: WARMUP,
      seconds: SECONDS,
      dataset: { members: VOTERS, polls: 2, ballotsPerPoll: VOTERS },
      results
    }, null, 2) + "\n")
  } finally {
    await Promise.all(servers.map(stopServer))
    rmSync(dir, { recursive: true, force: true })
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((e) => {
    console.error(e instanceof Error ? e.message : e)
    process.exitCode = 1
  })
}
