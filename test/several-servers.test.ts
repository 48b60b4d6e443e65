/**
 * Several `convene serve` processes on one PostgreSQL database (the second pass only: CONVENE_TEST_PG): writes
 * through both, and every webhook event and mail is delivered once and every scheduled job runs once; a server
 * killed while holding outbox claims has them taken over after the lease; the database going away answers 503
 * and the server recovers when it returns, with no acknowledged write lost; an unreachable database at start
 * is named, exit 1.
 */
import { openConvene } from "@convene/core"
import got, { type Got } from "got"
import { join } from "node:path"
import t from "tap"
import { browserSession, openSql, PG, runBin, runHere, type ServeProcess, spawnServe, tempDbFile, until } from "./helpers.js"
import { matchExact } from "./match.js"
import { startReceiver } from "./receiver.js"
import { startSmtp } from "./smtp.js"

if (PG === undefined) throw new Error("several-servers.test runs in the PostgreSQL pass (CONVENE_TEST_PG)")
// servers started, killed and waited for one after another
t.setTimeout(180_000)

const client = (s: ServeProcess, key: string): Got =>
  got.extend({ prefixUrl: s.url, headers: { authorization: `Bearer ${key}` }, responseType: "json", throwHttpErrors: false, retry: { limit: 0 } })


/** A database with an administrator, a group, and the administrator's key. */
const seeded = async () => {
  const { filename } = tempDbFile()
  const convene = await openConvene({ database: filename })
  try {
    const { user, apiKey } = await convene.users.create({ email: "admin@example.org", name: "Admin", is_admin: true })
    const { group } = await convene.groups.create({ name: "Board", owner: user })
    return { filename, apiKey, group }
  } finally {
    await convene.close()
  }
}

t.test("two servers on one database: each webhook event and mail delivered once, each scheduled job run once", async (t) => {
  const receiver = await startReceiver()
  t.teardown(receiver.close)
  const smtp = await startSmtp()
  t.teardown(smtp.close)
  const { filename, apiKey, group } = await seeded()
  const env = { CONVENE_ALLOW_PRIVATE_WEBHOOKS: "1", CONVENE_SCHEDULER_INTERVAL_MS: "100", SMTP_URL: smtp.url }
  const [a, b] = await Promise.all([spawnServe(filename, env), spawnServe(filename, env)])
  t.teardown(() => Promise.all([a.stop(), b.stop()]))
  const A = client(a, apiKey)
  const B = client(b, apiKey)

  const bot = await A.post("api/b2/chatbots", {
    json: { group_id: group.id, name: "Hook", server: `${receiver.url}/hook`, event_kinds: ["new_discussion", "poll_expired"] }
  })
  t.equal(bot.statusCode, 200)

  // writes through both servers at once: discussions, invitations, and polls that close in a moment
  const via = (i: number) => (i % 2 === 0 ? A : B)
  // far enough ahead that the 36 writes, on a busy machine, reach the servers before it
  const closingAt = new Date(Date.now() + 3000).toISOString()
  const writes = await Promise.all([
    ...Array.from({ length: 20 }, (_, i) => via(i).post("api/b2/discussions", { json: { group_id: group.id, title: `Thread ${i}` } })),
    ...Array.from({ length: 10 }, (_, i) => via(i).post("api/b2/memberships", { json: { group_id: group.id, emails: [`person${i}@example.org`] } })),
    ...Array.from({ length: 6 }, (_, i) =>
      via(i).post("api/b2/polls", { json: { group_id: group.id, title: `Poll ${i}`, poll_type: "proposal", closing_at: closingAt } }))
  ])
  t.same(writes.map((w) => w.statusCode), writes.map(() => 200), "every write through either server succeeds")

  await receiver.waitFor(26, 30_000)
  await smtp.waitFor(10, 30_000)
  // long enough for a second delivery or a second run of a job, were there one
  await new Promise((r) => setTimeout(r, 1500))

  const titles = receiver.received.map((r) => String((r.body as { text?: string }).text))
  for (let i = 0; i < 20; i++) t.equal(titles.filter((x) => x.includes(`[Thread ${i}]`)).length, 1, `Thread ${i}'s event delivered once`)
  for (let i = 0; i < 6; i++) t.equal(titles.filter((x) => x.includes(`closed: [Poll ${i}]`)).length, 1, `Poll ${i} closed once`)
  t.equal(receiver.received.length, 26, "nothing else, nothing twice")
  const recipients = smtp.received.map((m) => (m.to as { text: string }).text)
  for (let i = 0; i < 10; i++) t.equal(recipients.filter((x) => x === `person${i}@example.org`).length, 1, `person${i}'s invitation mailed once`)
  t.equal(smtp.received.length, 10)

  const convene = await openConvene({ database: filename })
  t.teardown(() => convene.close())
  const db = convene.store
  const { Effect } = await import("effect")
  const deliveries = await Effect.runPromise(db.deliveries.list({}, { limit: 100, offset: 0 }))
  t.equal(deliveries.length, 26)
  t.ok(deliveries.every((d) => d.status === "done" && d.attempts === 1), "each delivery done at its first attempt")
  const mail = await Effect.runPromise(db.mail.list(undefined, { limit: 100, offset: 0 }))
  t.ok(mail.length === 10 && mail.every((m) => m.status === "sent" && m.attempts === 1), "each mail sent at its first attempt")
  const polls = await Effect.runPromise(db.polls.lapsed(new Date(Date.now() + 60_000).toISOString()))
  t.same(polls, [], "every poll closed")
})

t.test("sign-in rate limits count every server's attempts (they are rows of the shared database)", async (t) => {
  const { filename } = await seeded()
  const [a, b] = await Promise.all([spawnServe(filename), spawnServe(filename)])
  t.teardown(() => Promise.all([a.stop(), b.stop()]))
  const sessions = [browserSession(a.url), browserSession(b.url)]
  for (const s of sessions) t.equal((await s.get("/sign-in")).status, 200)
  // 5 codes an hour per address: asked for through one server, then the other
  const statuses: Array<number> = []
  for (let i = 0; i < 6; i++) statuses.push((await sessions[i % 2]!.post("/sign-in", { email: "admin@example.org" })).status)
  t.same(statuses, [200, 200, 200, 200, 200, 429], "the sixth is refused, whichever server counted the first five")
})

t.test("a server killed while holding claims: another takes them over after the lease, and delivers once", async (t) => {
  const smtp = await startSmtp({ hang: true })
  t.teardown(smtp.close)
  const { filename, apiKey, group } = await seeded()
  // an attempt may take 1 s, so a claim lasts 4 s (3 × timeout + 1 s)
  const env = { SMTP_URL: smtp.url, CONVENE_MAIL_TIMEOUT_MS: "1000" }
  const a = await spawnServe(filename, env)
  t.teardown(() => a.stop())
  const invited = await client(a, apiKey).post("api/b2/memberships", { json: { group_id: group.id, emails: ["late@example.org"] } })
  t.equal(invited.statusCode, 200)
  await until(() => smtp.dataStarted >= 1, "the first server to start sending", 20_000)
  t.equal(await a.stop("SIGKILL"), null, "killed mid-delivery")

  smtp.behaviour.hang = false
  const killedAt = Date.now()
  const b = await spawnServe(filename, env)
  t.teardown(() => b.stop())
  await smtp.waitFor(1, 20_000)
  t.ok(Date.now() - killedAt >= 2000, "taken over only once the claim lapsed")
  t.equal(smtp.received.length, 1)
  t.equal((smtp.received[0]!.to as { text: string }).text, "late@example.org")
  await new Promise((r) => setTimeout(r, 500))
  t.equal(smtp.received.length, 1, "delivered once")
})

t.test("the database going away: 503 while it is gone, then the server recovers; no acknowledged write is lost", async (t) => {
  // a cluster of this test's own: stopping the suite's would stop every other test
  const { startCluster } = (await import(join(process.cwd(), "scripts/pg-cluster.mjs"))) as {
    startCluster: () => Promise<{ url: string; stop: () => void; down: () => void; up: () => void }>
  }
  const cluster = await startCluster()
  t.teardown(() => cluster.stop())
  // also when the file is ended early (a timeout): the cluster is a process of its own
  process.once("exit", () => cluster.stop())
  const url = `${cluster.url}/postgres`
  const s = await spawnServe(url)
  t.teardown(() => s.stop())
  const A = client(s, s.adminKey!)
  t.equal((await runHere(["groups", "create", "--name", "G", "--owner", "1", "--db", url])).code, 0)
  const write = (title: string) => A.post("api/b2/discussions", { json: { group_id: 1, title } })
  const made = await write("Before")
  t.equal(made.statusCode, 200)
  const id = (made.body as unknown as { discussions: Array<{ id: number }> }).discussions[0]!.id

  // a transaction of this process holding its connection between statements when the database goes: the
  // connection's error must be heard (unheard, it ends the process: this test file would crash)
  const inProcess = await openConvene({ database: url })
  const { Effect } = await import("effect")
  let heldOpen!: () => void
  const holding = new Promise<void>((r) => (heldOpen = r))
  const held = inProcess.run(inProcess.store.transaction(Effect.zipRight(Effect.sync(() => heldOpen()), Effect.sleep("1 second"))))
  await holding

  cluster.down()
  t.rejects(held, "the held transaction fails; the process goes on")
  const [refused, read, health] = await Promise.all([
    write("While down"),
    A.get(`api/b2/discussions/${id}`),
    got(`${s.url}/healthz`, { throwHttpErrors: false, retry: { limit: 0 } })
  ])
  t.equal(refused.statusCode, 503, "a write while the database is gone")
  t.equal(read.statusCode, 503, "a read while the database is gone")
  t.equal(health.statusCode, 503, "/healthz says so")
  t.match(refused.body, { error: String })

  await held.catch(() => undefined)
  await inProcess.close().catch(() => undefined)
  cluster.up()
  await until(async () => (await got(`${s.url}/healthz`, { throwHttpErrors: false, retry: { limit: 0 } })).statusCode === 200, "healthz to recover", 20_000)
  t.equal((await A.get(`api/b2/discussions/${id}`)).statusCode, 200, "the server recovered; the acknowledged write is there")
  t.equal((await write("After")).statusCode, 200, "writes work again")
  // every discussion, whatever its id (a crashed server's sequences resume past the values it had logged)
  const db = await openSql(url)
  t.teardown(db.close)
  t.same((await db.sql<{ title: string }>("SELECT title FROM discussions ORDER BY title")).map((r) => r.title), ["After", "Before"], "nothing of the refused write")
})

t.test("an unreachable database at start: named by host and port, exit 1", async (t) => {
  const r = await runBin(["serve", "--port", "0", "--db", "postgres://convene@127.0.0.1:1/convene"])
  t.equal(r.code, 1)
  t.match(r.stderr, /cannot connect to the database at 127\.0\.0\.1:1\/convene/)
  t.notMatch(r.stderr, /at .*\.js:\d+/, "a message, not a stack")
})

t.test("the operator's commands on a PostgreSQL URL: doctor reads it; backup and restore say what to use instead", async (t) => {
  const { filename, apiKey } = await seeded()
  t.ok(apiKey)
  const doctor = await runHere(["doctor", "--json", "--db", filename])
  const report = JSON.parse(doctor.stdout) as { checks: Array<{ check: string; status: string; message: string }> }
  t.match(report.checks.find((c) => c.check === "database"), { status: "ok", message: /^127\.0\.0\.1:\d+\/t_\w+: schema version 18, reachable$/ })
  t.match(report.checks.find((c) => c.check === "webhook outbox"), { status: "ok", message: "0 waiting, none dead" })
  t.notMatch(doctor.stdout + doctor.stderr, /convene@/, "no credentials of the URL in what it prints")
  const gone = await runHere(["doctor", "--json", "--db", "postgres://convene@127.0.0.1:1/x"])
  t.equal(gone.code, 1)
  t.match(JSON.parse(gone.stdout).checks[0], { check: "database", status: "fail", message: /cannot connect to the database at 127\.0\.0\.1:1\/x/ })

  const backup = await runHere(["backup", "--to", "/tmp/never-written.db", "--db", filename])
  t.equal(backup.code, 1)
  t.match(backup.stderr, /pg_dump/)
  const restore = await runHere(["restore", "/tmp/never-read.db", "--db", filename])
  t.equal(restore.code, 1)
  t.match(restore.stderr, /pg_restore/)
  const listed = await runHere(["users", "list", "--json", "--db", filename])
  t.equal(listed.code, 0, "the other commands work on it")
  matchExact(t, JSON.parse(listed.stdout), [{ email: "admin@example.org" }])
  const fromEnv = await runBin(["users", "list", "--json"], { DATABASE_URL: filename })
  t.equal(fromEnv.code, 0, "DATABASE_URL names the database when CONVENE_DB is unset")
  matchExact(t, JSON.parse(fromEnv.stdout), [{ email: "admin@example.org" }])
  const preferred = await runBin(["users", "list", "--json"], { CONVENE_DB: filename, DATABASE_URL: "postgres://convene@127.0.0.1:1/x" })
  t.equal(preferred.code, 0, "CONVENE_DB comes before DATABASE_URL")
})
