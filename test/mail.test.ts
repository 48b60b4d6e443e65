/**
 * Mail delivery against a real SMTP server (smtp-server, read with mailparser): the outbox is drained by
 * the worker with both parts, the link and the headers; STARTTLS and implicit TLS with a test certificate;
 * refusals retried with backoff, then dead with the SMTP error; `convene mail` list, test and retry; and a
 * server killed mid-delivery loses nothing and sends nothing twice.
 */
import { Mail } from "@convene/core"
import { mailSettingsFromEnv, type MailWorker, startMailWorker } from "@convene/http"
import { spawn } from "node:child_process"
import { createHash } from "node:crypto"
import t from "tap"
import { BIN, childEnv, runHere, seedUser, startTestServer, type TestServer, until } from "./helpers.js"
import { matchExact } from "./match.js"
import { startSmtp, type TestSmtp } from "./smtp.js"

const BASE = "http://convene.test"

const cli = (args: ReadonlyArray<string>, env: Record<string, string> = {}) => runHere(args, { BASE_URL: BASE, ...env })

const worker = (s: TestServer, url: string, extra: { retryDelaysMs?: ReadonlyArray<number>; leaseMs?: number; timeoutMs?: number } = {}): MailWorker =>
  startMailWorker({
    store: s.convene.store,
    settings: mailSettingsFromEnv({ SMTP_URL: url }, BASE, extra.timeoutMs ?? 2000)!,
    baseUrl: BASE,
    pollMs: 20,
    ...extra
  })

const outbox = async (s: TestServer) =>
  (await s.sql<{ id: number; status: string; attempts: number; last_error: string | null; server_reply: string | null; kind: string; recipient_email: string }>(
    "SELECT * FROM mail_outbox ORDER BY id"
  ))


/** A group with an administrator who invites a new address: one invitation in the outbox. */
const invite = async (s: TestServer, address: string) => {
  const ada = await seedUser(s.convene, { name: "Ada Lovelace" })
  const { group } = await s.convene.groups.create({ name: "Garden Club", owner: ada.user })
  const res = await s.as(ada.apiKey).post("api/b2/memberships", { json: { group_id: group.id, emails: [address] } })
  if (res.statusCode !== 200) throw new Error(JSON.stringify(res.body))
  return { ada, group }
}

t.test("the worker drains the outbox: both parts, the link, the headers, the server's reply recorded", async (t) => {
  const smtp = await startSmtp()
  const s = await startTestServer()
  t.teardown(async () => { await s.close(); await smtp.close() })
  const { group } = await invite(s, "bob@example.org")
  matchExact(t, (await outbox(s)), [{ kind: "group_invitation", status: "pending", attempts: 0 }], "recorded in the writing transaction, waiting")
  const w = worker(s, smtp.url)
  t.teardown(w.stop)
  await smtp.waitFor(1)
  const mail = smtp.received[0]!
  t.equal(mail.subject, "Ada Lovelace invited you to join Garden Club")
  t.same(mail.from?.value, [{ address: "notifications@convene.test", name: "Ada Lovelace via convene" }])
  t.equal(mail.to && !Array.isArray(mail.to) ? mail.to.text : "", "bob@example.org")
  t.equal(mail.headers.get("auto-submitted"), "auto-generated")
  const link = /Accept invitation: (http:\/\/convene\.test\/invitations\/([A-Za-z0-9_-]{32}))\n/.exec(mail.text ?? "")
  t.ok(link, "the text part carries the invitation link")
  t.match(mail.html, `<a href="${link![1]}"`, "and so does the HTML part")
  t.match(mail.text, /Garden Club/)
  const [row] = (await s.sql<{ token_hash: string; group_id: number }>("SELECT token_hash, group_id FROM invitation_tokens"))
  t.equal(row!.token_hash, createHash("sha256").update(link![2]!).digest("hex"), "only the token's hash is stored")
  t.equal(row!.group_id, group.id)
  t.notOk(JSON.stringify((await s.sql("SELECT * FROM mail_outbox"))).includes(link![2]!), "the token is not at rest in the outbox")
  t.match(mail.messageId, /^<outbox-\d+\.\d+@convene\.test>$/)
  await until(async () => (await outbox(s))[0]!.status === "sent")
  t.match((await outbox(s))[0], { status: "sent", attempts: 1, last_error: null, server_reply: /^250/ })
  const listed = await cli(["mail", "list", "--status", "sent", "--json", "--db", s.filename])
  matchExact(t, JSON.parse(listed.stdout), [{ kind: "group_invitation", status: "sent", server_reply: /^250/ }])
  await new Promise((r) => setTimeout(r, 200))
  t.equal(smtp.received.length, 1, "sent once")
})

t.test("STARTTLS and implicit TLS with a test certificate; a TLS mismatch says so", async (t) => {
  for (const mode of ["starttls", "tls"] as const) {
    const smtp = await startSmtp({ mode })
    const s = await startTestServer()
    await invite(s, `tls-${mode}@example.org`)
    const strict = worker(s, smtp.url, { retryDelaysMs: [60_000] })
    await until(async () => (await outbox(s))[0]!.attempts === 1)
    await strict.stop()
    t.match((await outbox(s))[0], { status: "failed", last_error: /TLS failed with 127\.0\.0\.1:\d+: .*(self[- ]signed|certificate)/ }, `${mode}: an unknown certificate is refused and said so`)
    await s.convene.run(Mail.retryMail([(await outbox(s))[0]!.id]))
    const relaxed = worker(s, `${smtp.url}?tls.rejectUnauthorized=false`)
    await smtp.waitFor(1)
    await until(async () => (await outbox(s))[0]!.status === "sent")
    await relaxed.stop()
    t.equal(smtp.received[0]!.subject, "Ada Lovelace invited you to join Garden Club", `${mode}: delivered over TLS`)
    await s.close()
    await smtp.close()
  }
  const plain = await startSmtp()
  t.teardown(plain.close)
  const wrong = await cli(["mail", "test", "--to", "x@example.org"], { SMTP_URL: `smtps://127.0.0.1:${plain.port}`, CONVENE_MAIL_TIMEOUT_MS: "2000" })
  t.equal(wrong.code, 1)
  t.match(wrong.stderr, /TLS failed with 127\.0\.0\.1:\d+: .*Port 465 wants implicit TLS/, "implicit TLS against a plain server")
})

t.test("refusals are retried with backoff, then dead with the SMTP error; retry sends them again", async (t) => {
  let refuseRcpt = true
  const smtp = await startSmtp({ rcptTo: () => (refuseRcpt ? { code: 550, message: "5.1.1 No such mailbox here" } : undefined) })
  const s = await startTestServer()
  t.teardown(async () => { await s.close(); await smtp.close() })
  await invite(s, "nobody@example.org")
  const w = worker(s, smtp.url, { retryDelaysMs: [30, 30] })
  await until(async () => (await outbox(s))[0]!.status === "dead")
  await w.stop()
  t.match((await outbox(s))[0], { status: "dead", attempts: 3, last_error: /recipient refused by 127\.0\.0\.1:\d+: the server answered "550 5\.1\.1 No such mailbox here"/ })
  t.equal(smtp.received.length, 0)
  const dead = await cli(["mail", "list", "--status", "dead", "--db", s.filename])
  t.match(dead.stdout, /^mail 1 .* group_invitation to=nobody@example\.org dead attempts=3: .* error=recipient refused .*550/m)
  refuseRcpt = false
  const retried = await cli(["mail", "retry", "--dead", "--db", s.filename])
  t.match(retried.stdout, /^1 message will be sent again/)
  const again = worker(s, smtp.url)
  t.teardown(again.stop)
  await smtp.waitFor(1)
  await until(async () => (await outbox(s))[0]!.status === "sent")
  t.match((await outbox(s))[0], { status: "sent", attempts: 4, last_error: null })
  t.equal((await cli(["mail", "retry", "--db", s.filename])).code, 2, "retry needs ids or --dead")
})

t.test("a temporary refusal (451) is retried and the message sent once", async (t) => {
  let tries = 0
  const smtp = await startSmtp({ mailFrom: () => (++tries < 3 ? { code: 451, message: "4.7.1 Try again later" } : undefined) })
  const s = await startTestServer()
  t.teardown(async () => { await s.close(); await smtp.close() })
  await invite(s, "later@example.org")
  const w = worker(s, smtp.url, { retryDelaysMs: [20, 20, 20] })
  t.teardown(w.stop)
  await smtp.waitFor(1)
  await until(async () => (await outbox(s))[0]!.status === "sent")
  t.match((await outbox(s))[0], { status: "sent", attempts: 3 })
  await new Promise((r) => setTimeout(r, 200))
  t.equal(smtp.received.length, 1)
})

t.test("a server that never answers: the attempt times out, is recorded as failed with why, and is retried", async (t) => {
  const smtp = await startSmtp({ hang: true })
  const s = await startTestServer()
  t.teardown(async () => { await s.close(); await smtp.close() })
  await invite(s, "slow@example.org")
  const w = worker(s, smtp.url, { timeoutMs: 300, retryDelaysMs: [60_000] })
  await until(async () => (await outbox(s))[0]!.attempts === 1)
  await w.stop()
  t.match((await outbox(s))[0], { status: "failed", last_error: /no answer from 127\.0\.0\.1:\d+ in time|connection to .* failed/ })
  t.match((await s.sql("SELECT next_attempt_at > created_at AS later FROM mail_outbox"))[0], { later: 1 }, "tried again later")
})

t.test("convene mail test says what answered, or exactly what failed", async (t) => {
  const ok = await startSmtp()
  const auth = await startSmtp({ auth: { user: "mailer", pass: "right" } })
  const sender = await startSmtp({ mailFrom: () => ({ code: 553, message: "5.7.1 Sender address rejected: not owned by you" }) })
  const rcpt = await startSmtp({ rcptTo: () => ({ code: 550, message: "5.1.1 User unknown" }) })
  t.teardown(async () => { for (const x of [ok, auth, sender, rcpt]) await x.close() })
  const env = (url: string) => ({ SMTP_URL: url, CONVENE_MAIL_TIMEOUT_MS: "2000" })

  const sent = await cli(["mail", "test", "--to", "ops@example.org"], env(ok.url))
  t.equal(sent.code, 0, sent.stderr)
  t.match(sent.stdout, /^sent to ops@example\.org via 127\.0\.0\.1:\d+ from notifications@convene\.test: 250 /)
  await ok.waitFor(1)
  t.equal(ok.received[0]!.subject, "convene mail test")

  const closed = await startSmtp()
  const closedPort = closed.port
  await closed.close()
  const refused = await cli(["mail", "test", "--to", "ops@example.org"], env(`smtp://127.0.0.1:${closedPort}`))
  t.equal(refused.code, 1)
  t.match(refused.stderr, new RegExp(`^error: connection refused by 127\\.0\\.0\\.1:${closedPort}: nothing listens there`))

  const badAuth = await cli(["mail", "test", "--to", "ops@example.org"], env(`smtp://mailer:wrong@127.0.0.1:${auth.port}`))
  t.match(badAuth.stderr, /authentication refused by 127\.0\.0\.1:\d+: the server answered "535 5\.7\.8 Authentication credentials invalid"/)
  const goodAuth = await cli(["mail", "test", "--to", "ops@example.org"], { SMTP_SERVER: "127.0.0.1", SMTP_PORT: String(auth.port), SMTP_USERNAME: "mailer", SMTP_PASSWORD: "right", CONVENE_MAIL_TIMEOUT_MS: "2000" })
  t.equal(goodAuth.code, 0, `Loomio's SMTP_* variables work: ${goodAuth.stderr}`)

  const badSender = await cli(["mail", "test", "--to", "ops@example.org", "--json"], { ...env(sender.url), MAIL_FROM: "someone@elsewhere.example" })
  t.match(badSender.stderr, /sender refused by .*553 5\.7\.1 Sender address rejected.*check MAIL_FROM/)
  t.equal(badSender.stdout, "", "nothing on stdout with --json when it fails")
  const badRcpt = await cli(["mail", "test", "--to", "ops@example.org"], env(rcpt.url))
  t.match(badRcpt.stderr, /recipient refused by .*550 5\.1\.1 User unknown/)

  const none = await cli(["mail", "test", "--to", "ops@example.org"])
  t.match(none.stderr, /no mail transport: set SMTP_URL/)
  t.equal((await cli(["mail", "test", "--to", "not-an-address"], env(ok.url))).code, 1)
  t.match((await cli(["mail", "test", "--to", "x@example.org"], { SMTP_URL: "http://nope" })).stderr, /SMTP_URL must start with smtp:\/\/ or smtps:\/\//)
})

/** A real `convene serve` on the test's database, sending its mail to `smtp` (1 s per attempt), to be killed by the test. */
const sendingServer = (s: TestServer, smtp: TestSmtp) => {
  const child = spawn(process.execPath, [BIN, "serve", "--port", "0", "--db", s.filename], {
    env: childEnv({ SMTP_URL: smtp.url, BASE_URL: BASE, CONVENE_MAIL_TIMEOUT_MS: "1000" }),
    stdio: "ignore"
  })
  return { child, exited: new Promise((resolve) => child.once("exit", resolve)) }
}

t.test("a server killed after the SMTP 250 but before recording it: the message waits out the claim's lease, then goes again", async (t) => {
  const smtp = await startSmtp()
  const s = await startTestServer()
  t.teardown(async () => { await s.close(); await smtp.close() })
  await invite(s, "twice@example.org")
  const { child, exited } = sendingServer(s, smtp)
  // the server is stopped once the message is in, before its 250 goes out, and killed after: it never records the send
  let receivedAt = 0
  smtp.behaviour.beforeAccept = () => {
    receivedAt = Date.now()
    child.kill("SIGSTOP")
  }
  await smtp.waitFor(1, 20_000)
  smtp.behaviour.beforeAccept = undefined
  await new Promise((r) => setTimeout(r, 100))
  child.kill("SIGKILL")
  await exited
  const [row] = await s.sql<{ status: string; attempts: number; claimed_until: string | null; sent_at: string | null }>("SELECT status, attempts, claimed_until, sent_at FROM mail_outbox")
  t.match(row, { status: "pending", attempts: 0, sent_at: null }, "the send was never recorded")
  const lease = Date.parse(row!.claimed_until ?? "")
  t.ok(lease > Date.now(), "the dead server's claim still holds")
  // the claim was taken before the message went out: its lease (3 timeouts and a second) ends within 4 s of that
  t.ok(lease - receivedAt <= 4000 && lease - receivedAt >= 2000, `the lease is the worker's (${lease - receivedAt} ms left when the message arrived)`)
  const w = worker(s, smtp.url, { timeoutMs: 1000 })
  t.teardown(w.stop)
  await smtp.waitFor(2, 15_000)
  t.ok(Date.now() >= lease, "sent again only once the lease ended")
  await until(async () => (await outbox(s))[0]!.status === "sent")
  t.match((await outbox(s))[0], { status: "sent", attempts: 1 }, "then recorded: at least once, never lost")
  await new Promise((r) => setTimeout(r, 300))
  t.equal(smtp.received.length, 2, "and not a third time")
})

t.test("a server killed mid-delivery loses nothing and sends nothing twice", async (t) => {
  const smtp = await startSmtp({ hang: true })
  const s = await startTestServer()
  t.teardown(async () => { await s.close(); await smtp.close() })
  await invite(s, "patient@example.org")
  // a real `convene serve` on the same database sends the message and is killed while the server hangs on DATA
  const { child, exited } = sendingServer(s, smtp)
  await until(() => smtp.dataStarted === 1, "the first message's data", 20_000)
  child.kill("SIGKILL")
  await exited
  t.match((await outbox(s))[0], { status: "pending", attempts: 0 }, "the claimed message is still waiting")
  smtp.behaviour.hang = false
  const w = worker(s, smtp.url, { timeoutMs: 1000 })
  t.teardown(w.stop)
  await smtp.waitFor(1, 15_000)
  await until(async () => (await outbox(s))[0]!.status === "sent")
  await new Promise((r) => setTimeout(r, 300))
  t.equal(smtp.received.length, 1, "received once, after the dead server's claim expired")
  t.match((await outbox(s))[0], { status: "sent", attempts: 1 })
})
