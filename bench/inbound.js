/**
 * Replies by e-mail (decisions §11): 2,000 replies sent with nodemailer (8 connections) to the SMTP listener,
 * each becoming a comment, beside the API's own comment rate (POST /api/b2/comments, 8 in flight) on the same
 * machine in the same run; and the time from the listener's 250 to the comment being readable over the API.
 * Run by hand: `npx tsc -b && node bench/inbound.js` (INBOUND_BENCH_COUNT to change).
 */
import { makeConvene, Store } from "@convene/core"
import { startInboundSmtp, startServer } from "@convene/http"
import { Effect } from "effect"
import got from "got"
import { createHash, randomBytes } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import nodemailer from "nodemailer"

const COUNT = Number(process.env.INBOUND_BENCH_COUNT ?? 2000)
const IN_FLIGHT = 8
const REPLY_HOST = "reply.convene.test"

const dir = mkdtempSync(join(tmpdir(), "convene-inbound-bench-"))
const convene = makeConvene({ filename: join(dir, "bench.db") })
const ada = await convene.users.create({ email: "ada@example.org", name: "Ada" })
const bea = await convene.users.create({ email: "bea@example.org", name: "Bea" })
const { group } = await convene.groups.create({ name: "Bench", owner: ada.user })
await convene.members.add({ group, user: bea.user })
const server = await startServer({ store: convene.store, port: 0, host: "127.0.0.1", settings: { b3ApiKey: undefined, baseUrl: "http://convene.test", maxBodyBytes: 1 << 20, version: "bench" } })
const api = got.extend({ prefixUrl: server.url, headers: { authorization: `Bearer ${bea.apiKey}` }, responseType: "json", retry: { limit: 0 } })
const thread = async (title) => (await got.post(`${server.url}/api/b2/discussions`, { headers: { authorization: `Bearer ${ada.apiKey}` }, json: { group_id: group.id, title }, responseType: "json" })).body.discussions[0]

// a reply address of Bea's for a thread, as the mail worker makes one
const addressFor = async (topicId) => {
  const token = randomBytes(24).toString("base64url")
  await convene.run(Effect.flatMap(Store, (store) => store.transaction(store.replyTokens.insert({
    token_hash: createHash("sha256").update(token).digest("hex"), user_id: bea.user.id, topic_id: topicId, comment_id: null, created_at: new Date().toISOString()
  }))))
  return `reply+${token}@${REPLY_HOST}`
}

const listener = await startInboundSmtp({ store: convene.store, replyHost: REPLY_HOST, host: "127.0.0.1", port: 0 })
const sender = nodemailer.createTransport({ host: "127.0.0.1", port: listener.port, secure: false, ignoreTLS: true, pool: true, maxConnections: IN_FLIGHT, maxMessages: Infinity })

const inParallel = async (n, one) => {
  let next = 0
  await Promise.all(Array.from({ length: IN_FLIGHT }, async () => {
    while (next < n) await one(next++)
  }))
}
const rate = async (name, run) => {
  const started = performance.now()
  await run()
  const s = (performance.now() - started) / 1000
  console.log(`${name}: ${COUNT} comments in ${s.toFixed(2)} s = ${(COUNT / s).toFixed(0)} comments/s`)
  return COUNT / s
}
const QUOTE = "\n\nOn Thu, 26 Nov 2026 at 10:00, Ada via convene <notifications@convene.test> wrote:\n> Ada started a discussion\n> Open in convene: http://convene.test/d/x\n\n-- \nBea"

// interleaved: API, SMTP, API, SMTP; each on a thread of its own
const rounds = Number(process.env.BENCH_ROUNDS ?? 2)
const apiRates = []
const smtpRates = []
for (let round = 0; round < rounds; round++) {
  const a = await thread(`API ${round}`)
  apiRates.push(await rate(`API POST /comments (round ${round + 1})`, () =>
    inParallel(COUNT, (i) => api.post("api/b2/comments", { json: { discussion_id: a.id, body: `Reply ${i}` } }))))
  const m = await thread(`Mail ${round}`)
  const to = await addressFor(m.topic_id)
  smtpRates.push(await rate(`replies through SMTP (round ${round + 1})`, () =>
    inParallel(COUNT, (i) => sender.sendMail({ from: "bea@example.org", to, subject: "Re: Mail", text: `Reply ${i}${QUOTE}`, messageId: `<r${round}-${i}@example.org>` }))))
  const n = (await api.get(`api/b2/discussions/${m.id}`)).body.discussions[0].items_count
  if (n < COUNT) throw new Error(`only ${n} of ${COUNT} replies became comments`)
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
console.log(`median: API ${median(apiRates).toFixed(0)}/s, SMTP ${median(smtpRates).toFixed(0)}/s, ratio SMTP / API ${(median(smtpRates) / median(apiRates)).toFixed(2)}`)

// from the 250 to the comment readable over the API, one reply at a time
const latencies = []
const l = await thread("Latency")
const to = await addressFor(l.topic_id)
for (let i = 0; i < 200; i++) {
  await sender.sendMail({ from: "bea@example.org", to, subject: "Re: Latency", text: `Timed ${i}`, messageId: `<t-${i}@example.org>` })
  const accepted = performance.now()
  while ((await api.get(`api/b2/discussions/${l.id}`)).body.discussions[0].items_count < i + 1) { /* read again */ }
  latencies.push(performance.now() - accepted)
}
latencies.sort((a, b) => a - b)
console.log(`250 → readable: median ${latencies[100].toFixed(2)} ms, p99 ${latencies[197].toFixed(2)} ms (the listener answers 250 after the commit)`)

sender.close()
await listener.close()
await server.close()
await convene.close()
rmSync(dir, { recursive: true, force: true })
