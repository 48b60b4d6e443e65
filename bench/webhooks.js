/**
 * `node bench/webhooks.js`: webhook delivery throughput to a local receiver, 10,000 events, convene's delivery
 * worker beside a bare delivery loop (both in this file, each run in its own child process):
 *
 *   drain     10,000 `new_comment` events are waiting in the outbox (one delivery each, to one markdown chatbot);
 *             the worker starts and the clock runs until the receiver has had 10,000 requests and every delivery
 *             row is `done` (the database is polled read-only every 20 ms): deliveries/s. At concurrency 8
 *             (convene's default) and 32.
 *   trickle   (concurrency 8) with the worker idle, 200 more events are published one by one, 25 ms apart, each in
 *             its own transaction, by this process: mean and p99 time from the event's created_at to its receipt.
 *
 *   BENCH_EVENTS=10000   BENCH_CONCURRENCY=8,32   BENCH_TRICKLE=200   BENCH_PROFILE=1 (CPU profile of convene's worker)
 *
 * convene: `startDeliveryWorker({ store, baseUrl: "http://127.0.0.1", allowPrivateWebhooks: true, concurrency })` from
 * @convene/http over `makeConvene({ filename })`'s store: claim transactions (due rows, their events and chatbots,
 * claimed_until written; one per tick, for as many deliveries as there are free slots), then per delivery the
 * destination checked, the body rendered (`Rules.renderDelivery`), the POST (got), and a record transaction (done).
 *
 * baseline: a bare loop with the same per-delivery work, minus the durable claim: `concurrency` async workers in one
 * process; each reads the next due delivery with its event and chatbot (one SELECT, an in-memory cursor instead of
 * a claimed_until lease), renders the same JSON body, POSTs it with node:http over a keep-alive agent (same headers),
 * and marks the row done (one UPDATE; same pragmas as convene: WAL, synchronous = FULL). Idle, it polls every 500 ms
 * like convene's worker. No retries: a failed POST fails the benchmark.
 *
 * The receiver (node:http, answers 204) runs in its own process and keeps every body; the benchmark asserts that
 * both sides delivered each event exactly once and sent byte-identical bodies. Each side starts from its own copy
 * of one seeded database (users, group and chatbot through the core, the events through `Events.publishEvent` in
 * batch transactions). Results go to bench/results/webhooks.json.
 */
import { Chatbots, Events, loadAccess, makeConvene, Store } from "@convene/core"
import Database from "better-sqlite3"
import { Effect } from "effect"
import { deepStrictEqual } from "node:assert"
import { fork } from "node:child_process"
import { createHash } from "node:crypto"
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import * as http from "node:http"
import { availableParallelism, cpus, loadavg, tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const here = dirname(fileURLToPath(import.meta.url))
const self = fileURLToPath(import.meta.url)
const EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000)
const CONCURRENCIES = (process.env.BENCH_CONCURRENCY ?? "8,32").split(",").map(Number)
const TRICKLE = Number(process.env.BENCH_TRICKLE ?? 200)
const TRICKLE_GAP_MS = 25
const PROFILE = process.env.BENCH_PROFILE === "1"
const BASE_URL = "http://127.0.0.1"
const POLL_MS = 500

/** The comment an event is about is in its path: the receiver reads the event's number back from the body. */
const pathOf = (i) => `/d/bench/comment/${i}`
const NUMBER = /\/d\/bench\/comment\/([0-9]+)\)/

// ---------------------------------------------------------------------------------------------------------------
// Child processes (this file, forked with a role)

/** The receiver: answers 204 and keeps each body by event number; reports to the parent on request. */
const receiver = () => {
  let bodies = new Map()
  let arrivals = new Map()
  let requests = 0
  let expect = Infinity
  const server = http.createServer((req, res) => {
    const chunks = []
    req.on("data", (c) => chunks.push(c))
    req.on("end", () => {
      const at = Date.now()
      const body = Buffer.concat(chunks).toString("utf8")
      const n = Number(NUMBER.exec(body)?.[1] ?? -1)
      requests++
      if (!arrivals.has(n)) arrivals.set(n, at)
      bodies.set(n, `${req.method} ${req.url} ${req.headers["content-type"]} ${req.headers["user-agent"]}\n${body}`)
      res.writeHead(204)
      res.end()
      if (requests === expect) process.send({ reached: requests, at })
    })
  })
  server.listen(0, "127.0.0.1", () => process.send({ url: `http://127.0.0.1:${server.address().port}/hook` }))
  process.on("message", (m) => {
    if (m.type === "reset") {
      bodies = new Map()
      arrivals = new Map()
      requests = 0
      expect = m.expect
      process.send({ reset: true })
    } else if (m.type === "report") {
      const digest = createHash("sha256")
      for (const n of [...bodies.keys()].sort((a, b) => a - b)) digest.update(`${n}\n${bodies.get(n)}\n`)
      process.send({
        report: { requests, distinct: bodies.size, digest: digest.digest("hex"), sample: bodies.get(1), arrivals: [...arrivals] }
      })
    } else if (m.type === "stop") server.close(() => process.exit(0))
  })
  process.on("disconnect", () => process.exit(0))
}

/** convene's worker over the database file, started on "go". */
const conveneWorker = async (filename, concurrency) => {
  const { startDeliveryWorker } = await import("@convene/http")
  const c = makeConvene({ filename, allowPrivateWebhooks: true })
  let worker
  process.on("message", async (m) => {
    if (m === "go") worker = startDeliveryWorker({ store: c.store, baseUrl: BASE_URL, allowPrivateWebhooks: true, concurrency })
    if (m === "stop") {
      await worker?.stop()
      await c.close()
      process.exit(0)
    }
  })
  process.send({ ready: true })
}

/** The bare loop: `concurrency` workers reading the next due delivery, POSTing it, marking it done. */
const baselineWorker = (filename, concurrency) => {
  const db = new Database(filename, { fileMustExist: true })
  db.pragma("busy_timeout = 5000")
  db.pragma("journal_mode = WAL")
  db.pragma("synchronous = FULL")
  db.pragma("foreign_keys = ON")
  const next = db.prepare(`
    SELECT d.id, d.attempts, e.message, c.server, c.kind, c.webhook_kind
    FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id JOIN chatbots c ON c.id = d.chatbot_id
    WHERE d.id > ? AND d.status = 'pending' AND d.next_attempt_at <= ? ORDER BY d.id LIMIT 1`)
  const done = db.prepare(`UPDATE webhook_deliveries SET status = 'done', attempts = ?, last_status = ?, last_error = NULL,
                           delivered_at = ?, claimed_until = NULL WHERE id = ?`)
  const failed = db.prepare(`UPDATE webhook_deliveries SET status = 'failed', attempts = ?, last_status = ?, last_error = ? WHERE id = ?`)
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency })
  // convene's markdown line (Rules.markdownLine) and markdown payload (Rules.formatWebhook)
  const oneLine = (s) => s.replace(/\s+/g, " ").trim()
  const render = (m) => ({
    text: `${oneLine(m.headline)}: [${oneLine(m.title).replace(/([\\[\]])/g, "\\$1")}](${BASE_URL}${m.path})`,
    icon_url: BASE_URL,
    username: "convene"
  })
  const post = (url, body) =>
    new Promise((resolve) => {
      const req = http.request(url, {
        method: "POST", agent, timeout: 5000,
        headers: { "content-type": "application/json; charset=utf-8", "user-agent": "convene-webhooks", "content-length": Buffer.byteLength(body) }
      }, (res) => {
        res.resume()
        res.on("end", () => resolve({ status: res.statusCode, error: null }))
      })
      req.on("timeout", () => req.destroy(new Error("timeout")))
      req.on("error", (e) => resolve({ status: null, error: e.message }))
      req.end(body)
    })
  let cursor = 0
  let stopped = false
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
  const loop = async () => {
    while (!stopped) {
      const row = next.get(cursor, new Date().toISOString())
      if (row === undefined) {
        await sleep(POLL_MS)
        continue
      }
      cursor = row.id
      if (row.kind !== "webhook" || row.webhook_kind !== "markdown") throw new Error("the baseline renders markdown webhooks only")
      const r = await post(row.server, JSON.stringify(render(JSON.parse(row.message))))
      if (r.status !== null && r.status >= 200 && r.status < 300) done.run(row.attempts + 1, r.status, new Date().toISOString(), row.id)
      else {
        failed.run(row.attempts + 1, r.status, r.error ?? `HTTP ${r.status}`, row.id)
        console.error(`baseline delivery ${row.id} failed: ${r.error ?? r.status}`)
      }
    }
  }
  let loops = []
  process.on("message", async (m) => {
    if (m === "go") loops = Array.from({ length: concurrency }, loop)
    if (m === "stop") {
      stopped = true
      await Promise.allSettled(loops)
      agent.destroy()
      db.close()
      process.exit(0)
    }
  })
  process.send({ ready: true })
}

// ---------------------------------------------------------------------------------------------------------------
// The benchmark

const message = (i) => ({
  headline: `Voter ${i % 97} commented`,
  title: "Spring planting [draft]",
  path: pathOf(i),
  body: `Comment ${i}: let us plant the beans after the last frost.`,
  recipient_message: null
})

/** Seeds the template database: an admin, a group, a markdown chatbot to the receiver, then the events. */
const seed = async (filename, receiverUrl) => {
  const c = makeConvene({ filename, allowPrivateWebhooks: true })
  try {
    const { user } = await c.users.create({ email: "bench@example.org", name: "Bench Owner" })
    const { group } = await c.groups.create({ name: "Allotments", owner: user })
    const chatbot = await c.run(Effect.flatMap(loadAccess(user), (access) =>
      Chatbots.createChatbot(access, group.id, {
        name: "Local receiver", kind: "webhook", webhook_kind: "markdown", server: receiverUrl, event_kinds: ["new_comment"]
      })))
    for (let from = 1; from <= EVENTS; from += 1000) {
      await c.run(Effect.flatMap(Store, (store) =>
        store.transaction(Effect.gen(function*() {
          for (let i = from; i < Math.min(from + 1000, EVENTS + 1); i++) {
            yield* Events.publishEvent({
              kind: "new_comment", group_id: group.id, actor_id: user.id, eventable_type: "Comment", eventable_id: i, message: message(i)
            })
          }
        }))))
    }
    return { user, group, chatbot }
  } finally {
    await c.close()
  }
}

const forkRole = (role, args = [], execArgv = []) => fork(self, [role, ...args], { execArgv })
const nextMessage = (child, test = () => true) =>
  new Promise((resolve, reject) => {
    const onMessage = (m) => {
      if (!test(m)) return
      child.off("message", onMessage)
      child.off("exit", onExit)
      resolve(m)
    }
    const onExit = (code) => reject(new Error(`child exited with ${code}`))
    child.on("message", onMessage)
    child.once("exit", onExit)
  })
const stopChild = (child, how = "stop") =>
  new Promise((resolve) => (child.exitCode !== null ? resolve() : (child.once("exit", resolve), child.send(how))))

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]

/** One side at one concurrency, on its own copy of the template database. */
const runSide = async ({ side, concurrency, template, dir, recv, trickle }) => {
  const filename = join(dir, `${side}-${concurrency}.db`)
  copyFileSync(template, filename)
  const profileArgs = PROFILE && side === "convene" ? ["--cpu-prof", `--cpu-prof-dir=${join(here, "results")}`] : []
  const child = forkRole(side, [filename, String(concurrency)], profileArgs)
  let probe
  try {
    await nextMessage(child, (m) => m.ready)
    // read-only, opened once the child has the file open in WAL mode
    probe = new Database(filename, { readonly: true, fileMustExist: true })
    const doneCount = probe.prepare(`SELECT count(*) FROM webhook_deliveries WHERE status = 'done'`).pluck()
    const notDone = probe.prepare(`SELECT status, count(*) AS n FROM webhook_deliveries WHERE status != 'done' GROUP BY status`)
    recv.send({ type: "reset", expect: EVENTS })
    await nextMessage(recv, (m) => m.reset)
    const received = nextMessage(recv, (m) => m.reached !== undefined)
    const t0 = Date.now()
    child.send("go")
    const { at: receivedAt } = await received
    let doneAt
    while (doneAt === undefined) {
      if (doneCount.get() >= EVENTS) doneAt = Date.now()
      else await sleep(20)
      if (Date.now() - t0 > 600_000) throw new Error(`${side}: not done after 10 minutes: ${JSON.stringify(notDone.all())}`)
    }
    const seconds = (Math.max(doneAt, receivedAt) - t0) / 1000
    const result = { side, concurrency, deliveries: EVENTS, seconds, perSec: EVENTS / seconds, receivedSeconds: (receivedAt - t0) / 1000 }

    if (trickle) {
      // the worker is idle now: events arrive one at a time, as they would from people commenting
      const c = makeConvene({ filename, allowPrivateWebhooks: true })
      try {
        for (let k = 1; k <= TRICKLE; k++) {
          const i = EVENTS + k
          await c.run(Effect.flatMap(Store, (store) =>
            store.transaction(Events.publishEvent({
              kind: "new_comment", group_id: trickle.groupId, actor_id: trickle.userId, eventable_type: "Comment", eventable_id: i, message: message(i)
            }))))
          await sleep(TRICKLE_GAP_MS)
        }
      } finally {
        await c.close()
      }
      const t1 = Date.now()
      while (doneCount.get() < EVENTS + TRICKLE) {
        if (Date.now() - t1 > 60_000) throw new Error(`${side}: trickle not delivered after a minute: ${JSON.stringify(notDone.all())}`)
        await sleep(20)
      }
    }
    await stopChild(child)
    recv.send({ type: "report" })
    const { report } = await nextMessage(recv, (m) => m.report !== undefined)
    const total = EVENTS + (trickle ? TRICKLE : 0)
    if (report.requests !== total || report.distinct !== total) {
      throw new Error(`${side}: the receiver got ${report.requests} requests for ${report.distinct} events, expected ${total} once each`)
    }
    if (trickle) {
      const created = new Map(probe.prepare(`SELECT eventable_id, created_at FROM webhook_events WHERE eventable_id > ?`).all(EVENTS)
        .map((r) => [r.eventable_id, Date.parse(r.created_at)]))
      const lat = report.arrivals.filter(([n]) => n > EVENTS).map(([n, at]) => at - created.get(n)).sort((a, b) => a - b)
      result.trickle = { events: lat.length, meanMs: lat.reduce((a, b) => a + b, 0) / lat.length, p50Ms: percentile(lat, 50), p99Ms: percentile(lat, 99) }
    }
    result.digest = report.digest
    result.sample = report.sample
    return result
  } finally {
    probe?.close()
    await stopChild(child)
  }
}

const table = (rows) => {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)))
  return rows.map((r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ")).join("\n")
}

const main = async () => {
  const dir = mkdtempSync(join(tmpdir(), "convene-bench-webhooks-"))
  mkdirSync(join(here, "results"), { recursive: true })
  const recv = forkRole("receiver")
  try {
    const { url } = await nextMessage(recv, (m) => m.url !== undefined)
    const template = join(dir, "template.db")
    const t0 = performance.now()
    const seeded = await seed(template, url)
    console.log(`Seeded ${EVENTS} new_comment events for one markdown chatbot (${url}) in ${((performance.now() - t0) / 1000).toFixed(1)} s`)
    const load = { start: loadavg()[0] }
    console.log(`Load average ${load.start.toFixed(2)} on ${availableParallelism()} CPUs` +
      (load.start > availableParallelism() ? " (busy machine: figures will be noisy)" : ""))

    const results = []
    for (const concurrency of CONCURRENCIES) {
      const trickle = concurrency === CONCURRENCIES[0] && TRICKLE > 0 ? { groupId: seeded.group.id, userId: seeded.user.id } : undefined
      const pair = {}
      for (const side of ["convene", "baseline"]) {
        pair[side] = await runSide({ side, concurrency, template, dir, recv, trickle })
        console.log(`  ${side}, concurrency ${concurrency}: ${EVENTS} deliveries in ${pair[side].seconds.toFixed(1)} s` +
          (pair[side].trickle ? `; trickle: mean ${pair[side].trickle.meanMs.toFixed(0)} ms from event to receipt` : ""))
      }
      try {
        deepStrictEqual(pair.baseline.digest, pair.convene.digest)
      } catch {
        console.error(`convene sent:\n${pair.convene.sample}\nthe baseline sent:\n${pair.baseline.sample}`)
        throw new Error("the baseline's requests differ from convene's")
      }
      results.push({ concurrency, convene: pair.convene, baseline: pair.baseline, ratio: pair.convene.perSec / pair.baseline.perSec })
    }
    console.log("  every event delivered exactly once on each side, with byte-identical requests (method, path, headers, body)")
    load.end = loadavg()[0]

    const rows = [["phase", "convene", "baseline", "ratio"]]
    for (const r of results) {
      rows.push([`drain ${EVENTS} deliveries, concurrency ${r.concurrency} (deliveries/s)`, r.convene.perSec.toFixed(0), r.baseline.perSec.toFixed(0), r.ratio.toFixed(2)])
    }
    for (const r of results.filter((x) => x.convene.trickle)) {
      const [c, b] = [r.convene.trickle, r.baseline.trickle]
      rows.push([`trickle ${TRICKLE} events 25 ms apart: event → receipt mean ms`, c.meanMs.toFixed(0), b.meanMs.toFixed(0), (c.meanMs / b.meanMs).toFixed(2)])
      rows.push([`trickle ${TRICKLE} events 25 ms apart: event → receipt p99 ms`, c.p99Ms.toFixed(0), b.p99Ms.toFixed(0), (c.p99Ms / b.p99Ms).toFixed(2)])
    }
    console.log("\n" + table(rows))
    console.log(`(ratio = convene / baseline; load average ${load.start.toFixed(2)} at start, ${load.end.toFixed(2)} at the end, on ${availableParallelism()} CPUs)`)

    for (const r of results) for (const s of [r.convene, r.baseline]) delete s.sample
    writeFileSync(join(here, "results", "webhooks.json"), JSON.stringify({
      date: new Date().toISOString(),
      node: process.version,
      cpus: availableParallelism(),
      cpuModel: cpus()[0]?.model,
      loadAverage: load,
      events: EVENTS,
      trickle: { events: TRICKLE, gapMs: TRICKLE_GAP_MS },
      results
    }, null, 2) + "\n")
  } finally {
    await stopChild(recv, { type: "stop" })
    rmSync(dir, { recursive: true, force: true })
  }
}

const [role, ...args] = process.argv.slice(2)
if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const run = role === "receiver"
    ? async () => receiver()
    : role === "convene"
    ? () => conveneWorker(args[0], Number(args[1]))
    : role === "baseline"
    ? async () => baselineWorker(args[0], Number(args[1]))
    : main
  run().catch((e) => {
    console.error(e instanceof Error ? e.message : e)
    process.exitCode = 1
  })
}
