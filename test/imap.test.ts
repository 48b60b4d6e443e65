/**
 * Replies from an IMAP mailbox (decisions §11) against Debian's dovecot: unseen messages become comments and are
 * flagged \Seen; a message already handled (a crash before its flag) is not posted again; and `convene serve`
 * killed with SIGKILL while polling a mailbox posts each reply once after it restarts.
 */
import { imapTarget, mailSettingsFromEnv, startImapPoller, startMailWorker } from "@convene/http"
import { ImapFlow } from "imapflow"
import MailComposer from "nodemailer/lib/mail-composer/index.js"
import t from "tap"
import { holdCommentWrites, openSql, runBin, runHere, seedUser, spawnServe, startTestServer, tempDbFile } from "./helpers.js"
import { startImap } from "./imap.js"
import { startSmtp } from "./smtp.js"

t.setTimeout(120_000)
const REPLY_HOST = "reply.convene.test"
const imap = await startImap(["replies@convene.test", "served@convene.test"])
const smtp = await startSmtp()
t.teardown(smtp.close)

/** Puts a raw message in a mailbox, unseen (what an MX delivering to it does). */
const deliver = async (user: string, raw: Buffer) => {
  const target = imapTarget(imap.url(user))
  const client = new ImapFlow({ host: target.host, port: target.port, secure: false, auth: target.auth, logger: false })
  await client.connect()
  await client.append("INBOX", raw, [])
  await client.logout()
}
const flags = async (user: string) => {
  const target = imapTarget(imap.url(user))
  const client = new ImapFlow({ host: target.host, port: target.port, secure: false, auth: target.auth, logger: false })
  await client.connect()
  const lock = await client.getMailboxLock("INBOX")
  const seen: Array<boolean> = []
  for await (const m of client.fetch("1:*", { flags: true })) seen.push(m.flags?.has("\\Seen") ?? false)
  lock.release()
  await client.logout()
  return seen
}

/** Whether each message is still \Recent: no session has opened the mailbox since it came (read here without opening it so). */
const recent = async (user: string) => {
  const target = imapTarget(imap.url(user))
  const client = new ImapFlow({ host: target.host, port: target.port, secure: false, auth: target.auth, logger: false })
  await client.connect()
  const lock = await client.getMailboxLock("INBOX", { readOnly: true })
  const found: Array<boolean> = []
  for await (const m of client.fetch("1:*", { flags: true })) found.push(m.flags?.has("\\Recent") ?? false)
  lock.release()
  await client.logout()
  return found
}

const raw = (to: string, text: string, messageId: string) =>
  new MailComposer({ from: "bea@example.org", to, subject: "Re: Compost", text, messageId }).compile().build()

t.test("unseen messages become comments and are flagged seen; one handled before is not posted again", async (t) => {
  const s = await startTestServer({ baseUrl: "http://convene.test" })
  t.teardown(() => s.close())
  const worker = startMailWorker({ store: s.convene.store, settings: mailSettingsFromEnv({ SMTP_URL: smtp.url, REPLY_HOSTNAME: REPLY_HOST }, "http://convene.test", 2000)!, baseUrl: "http://convene.test", pollMs: 20 })
  t.teardown(() => worker.stop())
  const ada = await seedUser(s.convene, { name: "Ada", email: "ada@example.org" })
  const bea = await seedUser(s.convene, { name: "Bea", email: "bea@example.org" })
  const { group } = await s.convene.groups.create({ name: "Garden", owner: ada.user })
  await s.convene.members.add({ group, user: bea.user })
  const before = smtp.received.length
  const made = await s.as(ada.apiKey).post("api/b2/discussions", { json: { group_id: group.id, title: "Compost", recipient_audience: "group" } })
  const discussion = (made.body as unknown as { discussions: Array<{ id: number }> }).discussions[0]!
  const replyTo = (await smtp.mailTo("bea@example.org", before)).replyTo!.value[0]!.address!

  await deliver("replies@convene.test", await raw(replyTo, "By IMAP.", "<imap-1@example.org>"))
  const poller = startImapPoller({ store: s.convene.store, replyHost: REPLY_HOST, url: imap.url("replies@convene.test"), intervalMs: 60_000 })
  t.teardown(() => poller.stop())
  await poller.pollNow()
  const comments = () => s.sql<{ body: string; author_id: number }>("SELECT body, author_id FROM comments WHERE discussion_id = ? ORDER BY id", discussion.id)
  t.same(await comments(), [{ body: "By IMAP.", author_id: bea.user.id }])
  t.same(await flags("replies@convene.test"), [true], "flagged \\Seen once handled")

  // the same message again, unseen: as after a crash between the comment and the flag
  await deliver("replies@convene.test", await raw(replyTo, "By IMAP.", "<imap-1@example.org>"))
  t.equal(await poller.pollNow(), 1)
  t.equal((await comments()).length, 1, "posted once")
  t.same(await flags("replies@convene.test"), [true, true])
})

t.test("convene serve with INBOUND_IMAP_URL, killed with SIGKILL mid-poll: each reply posted once", async (t) => {
  const { filename } = tempDbFile()
  const env = { REPLY_HOSTNAME: REPLY_HOST, INBOUND_IMAP_URL: imap.url("served@convene.test"), INBOUND_IMAP_INTERVAL_MS: "1000", SMTP_URL: smtp.url, BASE_URL: "http://convene.test" }
  let served = await spawnServe(filename, env)
  // whichever server runs when the test ends (also when it fails early) is stopped
  t.teardown(() => served.stop())
  const admin = served.adminKey!
  const api = (await import("got")).default.extend({ prefixUrl: served.url, headers: { authorization: `Bearer ${admin}` }, responseType: "json", throwHttpErrors: false })
  // the administrator's own group and thread; replies come from the administrator's address
  const db = await openSql(filename)
  t.teardown(db.close)
  await db.sql("UPDATE users SET email = 'bea@example.org' WHERE id = 1")
  t.equal((await runHere(["groups", "create", "--name", "G", "--owner", "1", "--db", filename])).code, 0)
  const made = await api.post("api/b2/discussions", { json: { group_id: 1, title: "Served" } })
  const discussion = (made.body as unknown as { discussions: Array<{ id: number; topic_id: number }> }).discussions[0]!
  // a reply address made as the mail worker makes one (a token per person and thread, stored hashed)
  const { createHash, randomBytes } = await import("node:crypto")
  const token = randomBytes(24).toString("base64url")
  await db.sql("INSERT INTO reply_tokens (token_hash, user_id, topic_id, comment_id, created_at) VALUES (?, 1, ?, NULL, ?)",
    createHash("sha256").update(token).digest("hex"), discussion.topic_id, new Date().toISOString())
  const to = `reply+${token}@${REPLY_HOST}`
  const count = async () => Number((await db.sql<{ n: number }>("SELECT count(*) AS n FROM comments WHERE discussion_id = ?", discussion.id))[0]!.n)
  const waitFor = async (what: string, done: () => Promise<boolean>) => {
    const until = Date.now() + 20_000
    while (!(await done())) {
      if (Date.now() > until) throw new Error(`waited 20 s for ${what}`)
      await new Promise((r) => setTimeout(r, 20))
    }
  }
  // the first reply posted and flagged; then the server is stopped mid-poll at a point the test holds: it has
  // taken the other four from the mailbox (their \Recent flag gone) while their comments' writes are held back
  await deliver("served@convene.test", await raw(to, "Reply 0", "<served-0@example.org>"))
  await waitFor("the first reply's comment", async () => (await count()) === 1)
  await waitFor("the first reply's \\Seen", async () => (await flags("served@convene.test")).every((x) => x))
  const held = await holdCommentWrites(filename)
  t.teardown(() => held.release())
  for (let i = 1; i < 5; i++) await deliver("served@convene.test", await raw(to, `Reply ${i}`, `<served-${i}@example.org>`))
  await waitFor("the server's poll to take the other four", async () => (await recent("served@convene.test")).every((x) => !x))
  await new Promise((r) => setTimeout(r, 300))
  await served.stop("SIGKILL")
  t.equal(await count(), 1, "at the kill: one reply posted, four taken from the mailbox and not")
  t.same(await flags("served@convene.test"), [true, false, false, false, false], "at the kill: four still unseen")
  await held.release()
  served = await spawnServe(filename, env)
  const end = Date.now() + 20_000
  while ((await flags("served@convene.test")).some((seen) => !seen) && Date.now() < end) await new Promise((r) => setTimeout(r, 100))
  t.same((await db.sql<{ body: string }>("SELECT body FROM comments WHERE discussion_id = ? ORDER BY body", discussion.id)).map((r) => r.body),
    ["Reply 0", "Reply 1", "Reply 2", "Reply 3", "Reply 4"], "each reply once")
  t.ok((await flags("served@convene.test")).every((x) => x), "every message flagged in the end")
})

t.test("convene doctor logs in to the mailbox and says what waits, or why it could not", async (t) => {
  // the database check is not this test's: doctor reads the mailbox whatever the database says
  const { filename } = tempDbFile()
  const report = async (url: string) => {
    const r = await runHere(["doctor", "--json", "--db", filename], { REPLY_HOSTNAME: REPLY_HOST, INBOUND_IMAP_URL: url })
    return (JSON.parse(r.stdout) as { checks: Array<{ check: string; status: string; message: string }> }).checks.find((c) => c.check === "inbound mail")
  }
  t.match(await report(imap.url("replies@convene.test")), { status: "ok", message: /^127\.0\.0\.1:\d+\/INBOX as replies@convene\.test: \d+ unseen of \d+$/ })
  t.match(await report(imap.url("replies@convene.test").replace(/:[^:@]+@/, ":wrong@")), { status: "fail", message: /cannot read 127\.0\.0\.1:\d+\/INBOX: the login was refused/ })
})
