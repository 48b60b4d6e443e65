/**
 * Live pages (decisions §13: a live update reaches a connected page within 1 s at p99 with 1,000 open streams on one
 * server; an idle stream costs at most 20 KB of server memory). The server measured runs in a child process over a
 * seeded SQLite file; this process opens BENCH_STREAMS (1,000) streams of one signed-in member, measures the
 * server's RSS (/proc) with none and with all of them open and idle, then posts BENCH_WRITES (20) comments one after
 * another and times each from the moment it is sent until each stream has its event. The same is done against a bare
 * `node:http` server with the same fan-out and nothing checked (bench/live-baseline.js).
 * `npx tsc -b && node bench/live.js`
 */
import { readFileSync, rmSync } from "node:fs"
import * as http from "node:http"
import { join } from "node:path"
import { seedOneThread, startServer, stopServer } from "./harness.js"

const STREAMS = Number(process.env.BENCH_STREAMS ?? 1000)
const WRITES = Number(process.env.BENCH_WRITES ?? 20)
const seed = await seedOneThread("live")
// a session as the sign-in pages make one (stored hashed)
const { openConvene, Store } = await import("@convene/core")
const { Effect } = await import("effect")
const { randomBytes, createHash } = await import("node:crypto")
const token = randomBytes(24).toString("base64url")
{
  const c = await openConvene({ database: seed.filename })
  const now = Date.now()
  const { default: Db } = await import("better-sqlite3")
  const look = new Db(seed.filename, { readonly: true })
  const user = look.prepare("SELECT id FROM users WHERE email = 'ada@example.org'").get()
  look.close()
  await c.run(Effect.flatMap(Store, (s) => s.transaction(s.sessions.insert({
    token_hash: createHash("sha256").update(token).digest("hex"), user_id: user.id,
    created_at: new Date(now).toISOString(), last_seen_at: new Date(now).toISOString(), expires_at: new Date(now + 86_400_000).toISOString()
  }))))
  await c.close()
}

const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity })
const rssKb = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))[1])
const sleep = (ms) => new Promise((r) => setTimeout(r, ms))
const percentile = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))]

/** Opens `n` streams; each calls `onEvent(id)` for every event it receives. */
const openStreams = async (url, n, onEvent) => {
  const requests = []
  for (let i = 0; i < n; i++) {
    await new Promise((resolve, reject) => {
      const req = http.get(`${url}/live`, { agent, headers: { cookie: `convene_session=${token}` } }, (res) => {
        if (res.statusCode !== 200) return reject(new Error(`/live answered ${res.statusCode}`))
        res.setEncoding("utf8")
        let buffer = ""
        res.on("data", (chunk) => {
          buffer += chunk
          let end
          while ((end = buffer.indexOf("\n\n")) >= 0) {
            const id = /^id: (\d+)$/m.exec(buffer.slice(0, end))
            buffer = buffer.slice(end + 2)
            if (id !== null) onEvent(i, Number(id[1]))
          }
        })
        resolve()
      })
      req.on("error", reject)
      requests.push(req)
    })
  }
  return () => requests.forEach((r) => r.destroy())
}

const measure = async (name, script, write) => {
  const server = await startServer(name, script, seed.filename)
  try {
    // warm: a few writes with no stream open
    for (let i = 0; i < 5; i++) await write(server.url)
    await sleep(1000)
    const idle = rssKb(server.child.pid)
    const arrivals = new Map()
    const close = await openStreams(server.url, STREAMS, (stream, id) => {
      const at = arrivals.get(id)
      if (at !== undefined && !at.got.has(stream)) {
        at.got.add(stream)
        at.ms.push(performance.now() - at.sent)
      }
    })
    await sleep(2000)
    const open = rssKb(server.child.pid)
    const latencies = []
    for (let w = 0; w < WRITES; w++) {
      const sent = performance.now()
      const pending = { sent, got: new Set(), ms: [] }
      const id = await write(server.url, (eventId) => arrivals.set(eventId, pending))
      arrivals.set(id, pending)
      for (let wait = 0; pending.got.size < STREAMS && wait < 500; wait++) await sleep(10)
      if (pending.got.size < STREAMS) throw new Error(`${name}: write ${w} reached ${pending.got.size} of ${STREAMS} streams`)
      latencies.push(...pending.ms)
    }
    close()
    return { name, perStreamKb: (open - idle) / STREAMS, idleMb: idle / 1024, openMb: open / 1024, p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: Math.max(...latencies) }
  } finally {
    await stopServer(server)
  }
}

// convene: a comment through the API; its live event's id is the newest (read after, as the stream may be faster)
const { default: Database } = await import("better-sqlite3")
const reader = new Database(seed.filename, { readonly: true })
// the newest id of a table (0 before the baseline has made its table)
const newest = (table) => {
  try {
    return reader.prepare(`SELECT coalesce(max(id), 0) AS id FROM ${table}`).get().id
  } catch {
    return 0
  }
}
const conveneWrite = async (url, announce) => {
  const before = newest("live_events")
  // events arriving before the POST answers are filed under the next id
  announce?.(before + 1)
  const r = await fetch(`${url}/api/b2/comments`, {
    method: "POST", headers: { authorization: `Bearer ${seed.apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ discussion_id: seed.discussion.id, body: "Live!" })
  })
  if (r.status !== 200) throw new Error(`comment: ${r.status}`)
  return newest("live_events")
}
const bareWrite = async (url, announce) => {
  announce?.(newest("bare_events") + 1)
  return (await (await fetch(`${url}/write`, { method: "POST" })).json()).id
}

const convene = await measure("convene", "convene-server.js", conveneWrite)
const bare = await measure("bare node:http", "live-baseline.js", bareWrite)
reader.close()

console.log(`${STREAMS} open streams, ${WRITES} writes, each timed from its POST to its event on every stream`)
console.log("| server | RSS idle MB | RSS with streams MB | per idle stream KB | p50 ms | p99 ms | max ms |")
console.log("|---|---:|---:|---:|---:|---:|---:|")
for (const r of [convene, bare]) console.log(`| ${r.name} | ${r.idleMb.toFixed(1)} | ${r.openMb.toFixed(1)} | ${r.perStreamKb.toFixed(1)} | ${r.p50.toFixed(1)} | ${r.p99.toFixed(1)} | ${r.max.toFixed(1)} |`)
console.log(`convene ÷ bare: p99 ${(convene.p99 / bare.p99).toFixed(2)}×, memory per stream ${(convene.perStreamKb / bare.perStreamKb).toFixed(2)}×`)
rmSync(seed.dir, { recursive: true, force: true })
