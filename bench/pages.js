/**
 * Page latency: the poll page (/p/{key}, signed in by a session cookie) beside the same poll's API document
 * (/api/b2/polls/{key}) from the same server, 32 connections, autocannon. Run by hand:
 * `npx tsc -b && node bench/pages.js` (BENCH_SECONDS to change the measured seconds).
 */
import autocannon from "autocannon"
import { makeConvene } from "@convene/core"
import { startServer } from "@convene/http"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5)
const dir = mkdtempSync(join(tmpdir(), "convene-pages-bench-"))
const convene = makeConvene({ filename: join(dir, "bench.db") })
const { user, apiKey } = await convene.users.create({ email: "ada@example.org", name: "Ada" })
const { group } = await convene.groups.create({ name: "Bench", owner: user })
const server = await startServer({ store: convene.store, port: 0, host: "127.0.0.1", settings: { b3ApiKey: undefined, baseUrl: "http://convene.test", maxBodyBytes: 1 << 20, version: "bench" } })
const created = await fetch(`${server.url}/api/b2/polls`, {
  method: "POST",
  headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
  body: JSON.stringify({ group_id: group.id, title: "Lunch?", poll_type: "proposal", closing_at: new Date(Date.now() + 86_400_000).toISOString() })
})
const poll = (await created.json()).polls[0]
// a session as the sign-in pages make one (stored hashed)
const cookie = await (async () => {
  const { Effect } = await import("effect")
  const { Store } = await import("@convene/core")
  const { randomBytes, createHash } = await import("node:crypto")
  const token = randomBytes(24).toString("base64url")
  const now = Date.now()
  await convene.run(Effect.flatMap(Store, (s) => s.transaction(s.sessions.insert({
    token_hash: createHash("sha256").update(token).digest("hex"), user_id: user.id,
    created_at: new Date(now).toISOString(), last_seen_at: new Date(now).toISOString(), expires_at: new Date(now + 86_400_000).toISOString()
  }))))
  return `convene_session=${token}`
})()

const measure = async (name, path, headers) => {
  const check = await fetch(`${server.url}${path}`, { headers })
  if (check.status !== 200) throw new Error(`${path} answered ${check.status}`)
  await autocannon({ url: `${server.url}${path}`, duration: 1, connections: 32, headers })
  const r = await autocannon({ url: `${server.url}${path}`, duration: SECONDS, connections: 32, headers })
  console.log(`${name}: ${r.requests.average.toFixed(0)} req/s, p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms`)
  return r.requests.average
}
const page = await measure("poll page (HTML)", `/p/${poll.key}`, { cookie })
const api = await measure("poll document (API JSON)", `/api/b2/polls/${poll.key}`, { authorization: `Bearer ${apiKey}` })
console.log(`ratio page / API: ${(page / api).toFixed(2)}`)
await server.close()
await convene.close()
rmSync(dir, { recursive: true, force: true })
