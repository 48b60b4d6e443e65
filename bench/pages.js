/**
 * The pages beside the API requests that read (or write) the same records (decisions §9: a page costs at most
 * 1.5× its API read; p99 ≤ 50 ms at 32 connections). One server on a seeded SQLite file: a group of 200
 * members with 20 discussions, a thread of 50 comments, a proposal with 200 ballots, a thread of 20 comments with a photo each
 * (previews made at upload: the page shows them, nothing is resized per request). Home is set beside the
 * latest threads (what it lists most of), a thread beside its items (the same records). Each pair is measured in
 * interleaved rounds (page, API, page, API …) with autocannon, 32 connections, and the table gives the
 * medians of the rounds and their ratio. The server measured runs in a child process (bench/convene-server.js) over the
 * seeded file, so autocannon does not share its event loop (a page's larger body would cost the page twice).
 * `npx tsc -b && node bench/pages.js` (BENCH_SECONDS, BENCH_ROUNDS, BENCH_ONLY: the pairs whose name holds it, or =NAME; BENCH_PROFILE=DIR:
 * the measured server writes a CPU profile there; BENCH_PAGES_ONLY=1: the pages alone, for a profile of pages only).
 */
import autocannon from "autocannon"
import { directoryStorage, makeConvene } from "@convene/core"
import { startServer } from "@convene/http"
import { startServer as startChild, stopServer } from "./harness.js"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const dir = mkdtempSync(join(tmpdir(), "convene-pages-bench-"))
const convene = makeConvene({ filename: join(dir, "bench.db") })
const server = await startServer({
  store: convene.store, port: 0, host: "127.0.0.1", files: directoryStorage(join(dir, "files")),
  settings: { b3ApiKey: undefined, baseUrl: "http://convene.test", maxBodyBytes: 1 << 20, version: "bench", explorePublicGroups: true }
})
const { user, apiKey } = await convene.users.create({ email: "ada@example.org", name: "Ada" })
const { group } = await convene.groups.create({ name: "Bench", owner: user })
const api = (path, body, key = apiKey) =>
  fetch(`${server.url}${path}`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify(body) }).then((r) => r.json())

const members = []
for (let i = 0; i < 199; i++) {
  const m = await convene.users.create({ email: `m${i}@example.org`, name: `Member ${i}` })
  await convene.members.add({ group, user: m.user })
  members.push(m)
}
let thread
for (let i = 0; i < 20; i++) thread = (await api("/api/b2/discussions", { group_id: group.id, title: `Discussion ${i}`, description: "Some **details**." })).discussions[0]
for (let i = 0; i < 50; i++) await api("/api/b2/comments", { discussion_id: thread.id, body: `Comment ${i} with a [link](https://example.org) and *emphasis*.` }, members[i].apiKey)
const poll = (await api("/api/b2/polls", { group_id: group.id, title: "Lunch?", poll_type: "proposal", closing_at: new Date(Date.now() + 86_400_000).toISOString() })).polls[0]
const choices = ["agree", "abstain", "disagree"]
for (const [i, m] of members.entries()) await api("/api/b2/stances", { poll_id: poll.id, option_scores: { [choices[i % 3]]: 1 } }, m.apiKey)
await api("/api/b2/stances", { poll_id: poll.id, option_scores: { agree: 1 } })

// running the group (decisions §12): closed, so people ask to join; 20 requests waiting; the thread tagged and edited 5 times
const patch = (path, body) =>
  fetch(`${server.url}${path}`, { method: "PATCH", headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" }, body: JSON.stringify(body) })
await patch(`/api/b2/groups/${group.id}`, { group_privacy: "closed" })
for (let i = 0; i < 20; i++) {
  const asker = await convene.users.create({ email: `asker${i}@example.org`, name: `Asker ${i}` })
  await api(`/api/b2/groups/${group.id}/membership_requests`, { introduction: `I would like to help with item ${i}.` }, asker.apiKey)
}
for (const name of ["water", "garden", "tools"]) await api(`/api/b2/groups/${group.id}/tags`, { name })
for (let i = 0; i < 5; i++) await patch(`/api/b2/discussions/${thread.id}`, { title: `Discussion 19, edit ${i}`, tags: ["water", "garden"] })
const { group: other } = await convene.groups.create({ name: "Elsewhere", owner: user })
void other

// long threads (decisions §13): a page of a 5,000-item thread beside a whole 100-item thread (BENCH_LONG_THREAD=0: none)
const LONG = Number(process.env.BENCH_LONG_THREAD ?? 5000)
const seedThread = async (title, n) => {
  const d = (await api("/api/b2/discussions", { group_id: group.id, title })).discussions[0]
  const { Comments, loadAccess, Store: S } = await import("@convene/core")
  const { Effect: E } = await import("effect")
  await convene.run(E.flatMap(S, (store) => store.transaction(E.gen(function*() {
    const access = yield* loadAccess(user)
    for (let i = 0; i < n; i++) yield* Comments.createComment(access, d.id, { body: `Comment ${i} with a [link](https://example.org) and *emphasis*.` })
  }))))
  return d
}
const shortThread = LONG > 0 ? await seedThread("A hundred items", 100) : undefined
const longThread = LONG > 0 ? await seedThread("Five thousand items", LONG) : undefined

// files (decisions §14): a thread of 20 comments, each with a photo (its preview made at upload)
const { default: sharp } = await import("sharp")
const imageThread = (await api("/api/b2/discussions", { group_id: group.id, title: "Twenty photos" })).discussions[0]
for (let i = 0; i < 20; i++) {
  const photo = await sharp({ create: { width: 2000, height: 1500, channels: 3, background: { r: 10 * i, g: 120, b: 60 } } }).jpeg().toBuffer()
  const form = new FormData()
  form.append("file", new Blob([photo], { type: "image/jpeg" }), `photo-${i}.jpg`)
  const { attachment } = await fetch(`${server.url}/api/b2/attachments`, { method: "POST", headers: { authorization: `Bearer ${apiKey}` }, body: form }).then((r) => r.json())
  await api("/api/b2/comments", { discussion_id: imageThread.id, body: `Photo ${i}`, files: [attachment.signed_id] })
}

// a session as the sign-in pages make one (stored hashed), and its CSRF pair
const { Effect } = await import("effect")
const { Store } = await import("@convene/core")
const { randomBytes, createHash } = await import("node:crypto")
const token = randomBytes(24).toString("base64url")
const now = Date.now()
await convene.run(Effect.flatMap(Store, (s) => s.transaction(s.sessions.insert({
  token_hash: createHash("sha256").update(token).digest("hex"), user_id: user.id,
  created_at: new Date(now).toISOString(), last_seen_at: new Date(now).toISOString(), expires_at: new Date(now + 86_400_000).toISOString()
}))))
// the CSRF token the server binds to this session, as a browser gets it with its first page
const first = await fetch(`${server.url}/`, { headers: { cookie: `convene_session=${token}` } })
const csrf = /convene_csrf=([^;]+)/.exec(first.headers.getSetCookie().join("\n"))[1]
const page = { cookie: `convene_session=${token}; convene_csrf=${csrf}` }
const bearer = { authorization: `Bearer ${apiKey}` }
await server.close()
await convene.close()
process.env.FEATURES_EXPLORE_PUBLIC_GROUPS = "1"
process.env.BENCH_STORAGE_DIR = join(dir, "files")
const measured = await startChild("convene", "convene-server.js", join(dir, "bench.db"), process.env.BENCH_PROFILE ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [])

const PAIRS = [
  ["home", { path: "/", headers: page }, { path: "/api/b2/threads?limit=10", headers: bearer }],
  ["group", { path: `/g/${group.key}`, headers: page }, { path: `/api/b2/discussions?group_id=${group.id}`, headers: bearer }],
  ["thread, 50 comments", { path: `/d/${thread.key}`, headers: page }, { path: `/api/b2/threads/${thread.topic_id}/items`, headers: bearer }],
  ["poll, 200 ballots", { path: `/p/${poll.key}`, headers: page }, { path: `/api/b2/polls/${poll.key}`, headers: bearer }],
  ["group settings", { path: `/g/${group.key}/settings`, headers: page }, { path: `/api/b2/groups/${group.id}`, headers: bearer }],
  ["requests, 20 waiting", { path: `/g/${group.key}/requests`, headers: page }, { path: `/api/b2/groups/${group.id}/membership_requests`, headers: bearer }],
  ["invite, with the shareable link", { path: `/g/${group.key}/invite`, headers: page }, { path: `/api/b2/groups/${group.id}/join_link`, headers: bearer }],
  ["tags", { path: `/g/${group.key}/tags`, headers: page }, { path: `/api/b2/groups/${group.id}/tags`, headers: bearer }],
  ["group, ?tag=", { path: `/g/${group.key}?tag=water`, headers: page }, { path: `/api/b2/discussions?group_id=${group.id}`, headers: bearer }],
  ["edit thread", { path: `/d/${thread.key}/edit`, headers: page }, { path: `/api/b2/discussions/${thread.id}`, headers: bearer }],
  ["show edits, 5", { path: `/d/${thread.key}/edits`, headers: page }, { path: `/api/b2/discussions/${thread.id}/versions`, headers: bearer }],
  ["move thread", { path: `/d/${thread.key}/move`, headers: page }, { path: "/api/b2/groups", headers: bearer }],
  ["edit poll", { path: `/p/${poll.key}/edit`, headers: page }, { path: `/api/b2/polls/${poll.key}`, headers: bearer }],
  ["delete group", { path: `/g/${group.key}/delete`, headers: page }, { path: `/api/b2/groups/${group.id}`, headers: bearer }],
  ["explore", { path: "/explore", headers: page }, { path: "/api/b2/groups", headers: bearer }],
  ["thread, 20 photos", { path: `/d/${imageThread.key}`, headers: page }, { path: `/api/b2/threads/${imageThread.topic_id}/items`, headers: bearer }],
  ...(longThread === undefined ? [] : [[`thread of ${LONG} items (first page) beside a thread of 100 (ratio: long ÷ short cost)`,
    { path: `/d/${longThread.key}`, headers: page }, { path: `/d/${shortThread.key}`, headers: page }]]),
  ["vote POST", {
    path: `/p/${poll.key}/vote`, method: "POST", status: 303,
    headers: { ...page, "content-type": "application/x-www-form-urlencoded" }, body: `csrf=${csrf}&choice=agree&reason=`
  }, {
    path: "/api/b2/stances", method: "POST", status: 200,
    headers: { ...bearer, "content-type": "application/json" }, body: JSON.stringify({ poll_id: poll.id, option_scores: { agree: 1 } })
  }]
]

const run = async (t, duration) => {
  const r = await autocannon({ url: `${measured.url}${t.path}`, method: t.method ?? "GET", headers: t.headers, body: t.body, duration, connections: 32 })
  if (r.non2xx > 0 && (t.status ?? 200) === 200) throw new Error(`${t.path}: ${r.non2xx} answers were not 2xx`)
  if (r.errors > 0 || r.timeouts > 0) throw new Error(`${t.path}: ${r.errors} errors, ${r.timeouts} timeouts`)
  return r
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

const rows = []
// BENCH_ONLY=tags: the pairs whose name holds it (a profile of one page)
const only = process.env.BENCH_ONLY ?? ""
// BENCH_ONLY==name: that pair alone
for (const [name, pageTarget, apiTarget] of PAIRS.filter(([name]) => (only.startsWith("=") ? name === only.slice(1) : name.includes(only)))) {
  for (const t of [pageTarget, apiTarget]) {
    const check = await fetch(`${measured.url}${t.path}`, { method: t.method ?? "GET", headers: t.headers, body: t.body, redirect: "manual" })
    if (check.status !== (t.status ?? 200)) throw new Error(`${t.path} answered ${check.status}`)
    await run(t, 1)
  }
  const p = { rps: [], p99: [] }
  const a = { rps: [], p99: [] }
  for (let i = 0; i < ROUNDS; i++) {
    for (const [t, into] of process.env.BENCH_PAGES_ONLY === "1" ? [[pageTarget, p], [pageTarget, a]] : [[pageTarget, p], [apiTarget, a]]) {
      const r = await run(t, SECONDS)
      into.rps.push(r.requests.average)
      into.p99.push(r.latency.p99)
    }
  }
  rows.push({ name, page: median(p.rps), api: median(a.rps), pageP99: median(p.p99), apiP99: median(a.p99) })
}

console.log("| page | page req/s | API req/s | cost of the page (API ÷ page) | page p99 ms | API p99 ms |")
console.log("|---|---:|---:|---:|---:|---:|")
for (const r of rows) console.log(`| ${r.name} | ${r.page.toFixed(0)} | ${r.api.toFixed(0)} | ${(r.api / r.page).toFixed(2)}× | ${r.pageP99} | ${r.apiP99} |`)
await stopServer(measured)
rmSync(dir, { recursive: true, force: true })
