/**
 * `node bench/reports-search.js`: the participation report and search at scale, convene beside a bare
 * node:http + better-sqlite3 baseline (bench/reports-search-baseline.js) that answers the same JSON (asserted
 * before measuring):
 *
 *   GET /api/b2/reports?section=users&group_ids=…   a group of 1,000 members, 500 polls, 125,000 ballots issued
 *                                                   and 100,000 votes cast, plus threads, comments, reactions and
 *                                                   outcomes, spread over the last 12 months (the default window)
 *   GET /api/b2/search?query=budget                 100,000 comments (1,000 threads of 100) in a public group
 *   GET /api/b2/search?query=budjet                 the same with a typo: no exact hit, the fuzzy pass finds "budget"
 *
 *   BENCH_SECONDS=10  BENCH_WARMUP_SECONDS=2  BENCH_CONNECTIONS=8
 *   BENCH_DB=/path/file.db   keep the seeded database there and reuse it on the next run (seeding takes minutes)
 *
 * Seeding goes through the core use cases (polls with their invitations, comments with their thread items) and,
 * for the 100,000 votes, through the Store port (casting issued ballots) inside batch transactions; afterwards
 * the report group's records are spread over 12 months with SQL. The convene server is bench/convene-server.js;
 * each server runs in its own child process, autocannon here. Results go to bench/results/reports-search.json.
 */
import { Comments, Discussions, loadAccess, makeConvene, Outcomes, Polls, Reactions, Store } from "@convene/core"
import { getBody, measure, startServer, stopServer } from "./harness.js"
import Database from "better-sqlite3"
import { Effect } from "effect"
import { deepStrictEqual } from "node:assert"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { availableParallelism, cpus, loadavg, tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const here = dirname(fileURLToPath(import.meta.url))
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10)
const WARMUP = Number(process.env.BENCH_WARMUP_SECONDS ?? 2)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 8)

const MEMBERS = 1_000
const POLLS = 500
const VOTERS_PER_POLL = 250
/** four in five issued ballots are cast: 500 × 200 = 100,000 votes */
const CAST_EVERY = 5
const REPORT_THREADS = 100
const REPORT_COMMENTS = 2_000
const OUTCOMES = 100
const SEARCH_THREADS = 1_000
const COMMENTS_PER_THREAD = 100
const SEARCH_AUTHORS = 50
const COUNTRIES = ["New Zealand", "France", "Germany", null, "Brazil", "Kenya", null, "Japan"]

/** A small deterministic PRNG (mulberry32), so every run seeds the same text. */
const prng = (seed) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

/** About 5,000 made-up words plus everyday ones; "budget" turns up in roughly one comment in 60. */
const COMMON = ("the of and to in is that for it as with was on be by this are at from or have an they which you were " +
  "meeting plan garden proposal members group decision vote agree council water street school park library community " +
  "schedule review report funding project team volunteer event spring summer autumn winter market").split(" ")
const SYLLABLES = "ka lo mi ne ru sa te vo bi da fe gu ha ji ko lu ma no pe qui ra si tu ve wo xa yo ze".split(" ")
const INVENTED = Array.from({ length: 5_000 }, (_, i) => SYLLABLES[i % 28] + SYLLABLES[Math.floor(i / 28) % 28] + SYLLABLES[Math.floor(i / 784) % 28] + "n")
const sentence = (rand, words) => {
  const out = []
  for (let i = 0; i < words; i++) {
    const r = rand()
    out.push(r < 0.0012 ? "budget" : r < 0.5 ? COMMON[Math.floor(rand() * COMMON.length)] : INVENTED[Math.floor(rand() * INVENTED.length)])
  }
  const s = out.join(" ")
  return s.charAt(0).toUpperCase() + s.slice(1) + "."
}

const future = () => new Date(Date.now() + 30 * 86_400_000).toISOString()

const seed = async (filename) => {
  const c = makeConvene({ filename })
  const batch = (work) => c.run(Effect.flatMap(Store, (store) => store.transaction(work)))
  try {
    const owner = await c.users.create({ email: "bench@example.org", name: "Bench Owner", country: "New Zealand" })
    const assembly = (await c.groups.create({ name: "Assembly", owner: owner.user })).group
    const forum = (await c.groups.create({ name: "Forum", owner: owner.user, public: true })).group
    const people = [owner.user]
    for (let i = 1; i < MEMBERS; i++) {
      const { user } = await c.users.create({ email: `member${i}@example.org`, name: i % 23 === 0 ? null : `Member ${i}`, country: COUNTRIES[i % COUNTRIES.length] })
      await c.members.add({ group: assembly, user, delegate: i % 40 === 3 })
      if (i <= SEARCH_AUTHORS) await c.members.add({ group: forum, user })
      people.push(user)
    }
    const rand = prng(42)

    // 500 polls, each with 250 specified voters (a different stretch of the members), one in ten anonymous; 200 cast each
    await batch(Effect.gen(function*() {
      const store = yield* Store
      const access = yield* loadAccess(owner.user)
      const now = new Date().toISOString()
      for (let p = 0; p < POLLS; p++) {
        const start = (p * 37) % MEMBERS
        const voters = Array.from({ length: VOTERS_PER_POLL }, (_, k) => people[(start + k) % MEMBERS].id)
        const view = yield* Polls.createPoll(access, {
          group_id: assembly.id,
          title: `Poll ${p}: ${sentence(rand, 5)}`,
          poll_type: p % 4 === 0 ? "proposal" : "poll",
          ...(p % 4 === 0 ? {} : { options: ["alpha", "beta", "gamma"] }),
          closing_at: future(),
          specified_voters_only: true,
          anonymous: p % 10 === 9,
          recipient_user_ids: voters
        })
        const options = view.options.map((o) => o.id)
        const ballots = yield* store.stances.latestOf([view.poll.id])
        for (const [k, b] of ballots.entries()) {
          if (k % CAST_EVERY === CAST_EVERY - 1) continue
          yield* store.stances.update(b.id, {
            cast_at: now, reason: k % 20 === 0 ? sentence(rand, 8) : null, reason_format: "md",
            choices: new Map([[options[k % options.length], 1]]), updated_at: now
          })
        }
        if (p < OUTCOMES) {
          yield* Polls.closePoll(access, String(view.poll.id))
          yield* Outcomes.createOutcome(access, view.poll.id, { statement: sentence(rand, 10) })
        }
      }
    }))

    // the report group's threads, comments and reactions
    await batch(Effect.gen(function*() {
      const accesses = []
      for (const u of people.slice(0, 200)) accesses.push(yield* loadAccess(u))
      const threads = []
      for (let i = 0; i < REPORT_THREADS; i++) {
        threads.push((yield* Discussions.createDiscussion(accesses[i % accesses.length], { group_id: assembly.id, title: sentence(rand, 4) })).discussion)
      }
      for (let i = 0; i < REPORT_COMMENTS; i++) {
        const { comment } = yield* Comments.createComment(accesses[(i * 7) % accesses.length], threads[i % threads.length].id, { body: sentence(rand, 12) })
        if (i % 2 === 0) yield* Reactions.addReaction(accesses[(i * 11 + 1) % accesses.length], { reactable_type: "Comment", reactable_id: comment.id, reaction: "👍" })
      }
    }))

    // 100,000 comments in the public forum, in batches of one thread (100 comments)
    const authors = []
    await batch(Effect.gen(function*() {
      for (const u of people.slice(0, SEARCH_AUTHORS + 1)) authors.push(yield* loadAccess(u))
    }))
    for (let d = 0; d < SEARCH_THREADS; d += 50) {
      await batch(Effect.gen(function*() {
        for (let i = d; i < d + 50; i++) {
          const { discussion } = yield* Discussions.createDiscussion(authors[i % authors.length], {
            group_id: forum.id, title: sentence(rand, 5), description: sentence(rand, 20)
          })
          for (let k = 0; k < COMMENTS_PER_THREAD; k++) {
            yield* Comments.createComment(authors[(i + k) % authors.length], discussion.id, { body: sentence(rand, 8 + Math.floor(rand() * 30)) })
          }
        }
      }))
    }
    return { apiKey: owner.apiKey, assemblyId: assembly.id, forumId: forum.id }
  } finally {
    await c.close()
  }
}

/** Spreads the report group's records over the last 12 months (search documents follow through their triggers). */
const spreadOverYear = (filename, assemblyId) => {
  const db = new Database(filename)
  const when = (id) => `strftime('%Y-%m-%dT%H:%M:%fZ', 'now', 'start of month', '-' || (${id} % 12) || ' months', '+' || (${id} % 27) || ' days', '+9 hours')`
  const inAssembly = `(SELECT id FROM topics WHERE group_id = ${assemblyId})`
  db.transaction(() => {
    db.exec(`UPDATE polls SET created_at = ${when("id")} WHERE topic_id IN ${inAssembly}`)
    db.exec(`UPDATE topics SET created_at = ${when("topicable_id")} WHERE group_id = ${assemblyId} AND topicable_type = 'Poll'`)
    db.exec(`UPDATE stances SET created_at = ${when("poll_id")} WHERE poll_id IN (SELECT id FROM polls WHERE topic_id IN ${inAssembly})`)
    db.exec(`UPDATE outcomes SET created_at = ${when("poll_id")} WHERE poll_id IN (SELECT id FROM polls WHERE topic_id IN ${inAssembly})`)
    db.exec(`UPDATE discussions SET created_at = ${when("id")} WHERE topic_id IN ${inAssembly}`)
    db.exec(`UPDATE comments SET created_at = ${when("id")} WHERE discussion_id IN (SELECT id FROM discussions WHERE topic_id IN ${inAssembly})`)
    db.exec(`UPDATE reactions SET created_at = ${when("id")} WHERE topic_id IN ${inAssembly}`)
  })()
  const counts = db.prepare(`SELECT
      (SELECT count(*) FROM memberships WHERE group_id = ${assemblyId} AND revoked_at IS NULL) AS members,
      (SELECT count(*) FROM polls WHERE topic_id IN ${inAssembly}) AS polls,
      (SELECT count(*) FROM stances WHERE latest = 1 AND poll_id IN (SELECT id FROM polls WHERE topic_id IN ${inAssembly})) AS ballots,
      (SELECT count(*) FROM stances WHERE latest = 1 AND cast_at IS NOT NULL AND poll_id IN (SELECT id FROM polls WHERE topic_id IN ${inAssembly})) AS votes,
      (SELECT count(*) FROM comments) AS comments,
      (SELECT count(*) FROM search_documents) AS documents,
      (SELECT count(*) FROM search_words) AS words`).get()
  db.close()
  return counts
}

const figures = (server, path, apiKey) =>
  measure(server.url + path, apiKey, { connections: CONNECTIONS, warmup: WARMUP, seconds: SECONDS })

const main = async () => {
  const keep = process.env.BENCH_DB
  const dir = keep === undefined ? mkdtempSync(join(tmpdir(), "convene-bench-rs-")) : undefined
  const filename = keep ?? join(dir, "bench.db")
  const sidecar = `${filename}.json`
  const servers = []
  try {
    let data
    if (keep !== undefined && existsSync(filename) && existsSync(sidecar)) {
      data = JSON.parse(readFileSync(sidecar, "utf8"))
      console.log(`Reusing ${filename}: ${JSON.stringify(data.counts)}`)
    } else {
      const t0 = performance.now()
      data = await seed(filename)
      data.counts = spreadOverYear(filename, data.assemblyId)
      console.log(`Seeded ${JSON.stringify(data.counts)} in ${((performance.now() - t0) / 1000).toFixed(1)} s`)
      if (keep !== undefined) writeFileSync(sidecar, JSON.stringify(data))
    }
    servers.push(await startServer("convene", "convene-server.js", filename), await startServer("baseline", "reports-search-baseline.js", filename))
    const [convene, baseline] = servers
    const endpoints = [
      `/api/b2/reports?section=users&group_scope=custom&group_ids=${data.assemblyId}`,
      "/api/b2/search?query=budget",
      "/api/b2/search?query=budjet"
    ]
    const results = []
    for (const path of endpoints) {
      const [a, b] = await Promise.all([getBody(convene.url + path, data.apiKey), getBody(baseline.url + path, data.apiKey)])
      deepStrictEqual(JSON.parse(b), JSON.parse(a), `the baseline must answer what convene answers for ${path}`)
      const c = await figures(convene, path, data.apiKey)
      const bl = await figures(baseline, path, data.apiKey)
      results.push({ endpoint: `GET ${path}`, responseBytes: a.length, convene: c, baseline: bl, ratio: c.reqPerSec / bl.reqPerSec })
      console.log(`GET ${path} (${a.length} bytes, same JSON): convene ${c.reqPerSec.toFixed(1)} req/s p50 ${c.p50Ms} ms p99 ${c.p99Ms} ms; ` +
        `baseline ${bl.reqPerSec.toFixed(1)} req/s p50 ${bl.p50Ms} ms p99 ${bl.p99Ms} ms; ratio ${(c.reqPerSec / bl.reqPerSec).toFixed(2)}`)
    }
    mkdirSync(join(here, "results"), { recursive: true })
    writeFileSync(join(here, "results", "reports-search.json"), JSON.stringify({
      date: new Date().toISOString(),
      node: process.version,
      cpus: availableParallelism(),
      cpuModel: cpus()[0]?.model,
      loadAverage: loadavg()[0],
      connections: CONNECTIONS,
      warmupSeconds: WARMUP,
      seconds: SECONDS,
      dataset: data.counts,
      results
    }, null, 2) + "\n")
  } finally {
    await Promise.all(servers.map(stopServer))
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
  }
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e)
  process.exitCode = 1
})
