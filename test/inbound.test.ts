/**
 * Replies by e-mail (decisions §11): a thread's notification carries `Reply-To: reply+TOKEN@REPLY_HOSTNAME`;
 * a reply sent (with nodemailer) to the SMTP listener, posted to `POST /inbound/mail` or handed to
 * `convene mail inbound` becomes a comment by that person, quoted text and signature gone, answering the
 * comment the mail was about; the same message twice posts once; a forged sender, an auto-reply and a bounce
 * post nothing; a closed thread and a lost membership get a short mail saying why.
 */
import { Memberships } from "@convene/core"
import { mailSettingsFromEnv, startInboundSmtp, startMailWorker } from "@convene/http"
import got from "got"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import nodemailer from "nodemailer"
import MailComposer from "nodemailer/lib/mail-composer/index.js"
import t from "tap"
import { runHere, startTestServer } from "./helpers.js"
import { startSmtp } from "./smtp.js"

const BASE = "http://convene.test"
const REPLY_HOST = "reply.convene.test"
const SECRET = "inbound-secret-of-the-tests-0123"

const smtp = await startSmtp()
const s = await startTestServer({ baseUrl: BASE, inbound: { replyHost: REPLY_HOST, secret: SECRET } })
const worker = startMailWorker({
  store: s.convene.store,
  settings: mailSettingsFromEnv({ SMTP_URL: smtp.url, REPLY_HOSTNAME: REPLY_HOST }, BASE, 2000)!,
  baseUrl: BASE,
  pollMs: 20
})
const listener = await startInboundSmtp({ store: s.convene.store, replyHost: REPLY_HOST, host: "127.0.0.1", port: 0 })
t.teardown(async () => {
  await listener.close()
  await worker.stop()
  await s.close()
  await smtp.close()
})
const sender = nodemailer.createTransport({ host: "127.0.0.1", port: listener.port, secure: false, ignoreTLS: true })

const ada = await s.convene.users.create({ email: "ada@example.org", name: "Ada", username: "ada" })
const bea = await s.convene.users.create({ email: "bea@example.org", name: "Bea", username: "bea" })
const { group } = await s.convene.groups.create({ name: "Garden", owner: ada.user })
await s.convene.members.add({ group, user: bea.user })
const A = s.as(ada.apiKey)

const comments = async (discussionId: number) =>
  s.sql<{ id: number; author_id: number; body: string; parent_id: number | null }>("SELECT id, author_id, body, parent_id FROM comments WHERE discussion_id = ? ORDER BY id", discussionId)

/** A thread Bea is told of; her notification's Reply-To. */
const threadForBea = async (title: string) => {
  const before = smtp.received.length
  const made = await A.post("api/b2/discussions", { json: { group_id: group.id, title, recipient_audience: "group" } })
  t.equal(made.statusCode, 200)
  const discussion = (made.body as unknown as { discussions: Array<{ id: number; key: string }> }).discussions[0]!
  const mail = await smtp.mailTo("bea@example.org", before)
  return { discussion, replyTo: (mail.replyTo?.value[0]?.address ?? "") as string, mail }
}

const reply = (to: string, text: string, extra: { from?: string; messageId?: string; headers?: Record<string, string> } = {}) =>
  sender.sendMail({ from: extra.from ?? "Bea <bea@example.org>", to, subject: "Re: a thread", text, ...(extra.messageId ? { messageId: extra.messageId } : {}), ...(extra.headers ? { headers: extra.headers } : {}) })

const QUOTED = "\n\nOn Thu, 26 Nov 2026 at 10:00, Ada via convene <notifications@convene.test> wrote:\n> Ada started a discussion: Compost\n> Open in convene: http://convene.test/d/x\n"

t.test("a reply through the SMTP listener becomes Bea's comment, without the quote or the signature; the same message twice posts once", async (t) => {
  const { discussion, replyTo, mail } = await threadForBea("Compost")
  t.match(replyTo, new RegExp(`^reply\\+[A-Za-z0-9_-]{32}@${REPLY_HOST.replace(/\./g, "\\.")}$`), "the notification's Reply-To")
  t.match(mail.text, /Reply to this e-mail to comment in the discussion\./)
  const tokens = await s.sql<{ token_hash: string }>("SELECT token_hash FROM reply_tokens")
  t.notOk(tokens.some((r) => replyTo.includes(r.token_hash)), "the address's token is stored hashed")

  const sent = await reply(replyTo, `Let's start on Saturday.${QUOTED}\n-- \nBea\nSent from my phone`, { messageId: "<bea-1@example.org>" })
  t.match(sent.response, /^250/)
  const [c] = await comments(discussion.id)
  t.match(c, { author_id: bea.user.id, parent_id: null, body: "Let's start on Saturday." }, "her words only")

  await reply(replyTo, "Let's start on Saturday.", { messageId: "<bea-1@example.org>" })
  t.equal((await comments(discussion.id)).length, 1, "the same Message-ID is posted once")
})

t.test("a reply to a comment's notification answers that comment", async (t) => {
  const { discussion } = await threadForBea("Seeds")
  const B = s.as(bea.apiKey)
  const first = await B.post("api/b2/comments", { json: { discussion_id: discussion.id, body: "Which seeds?" } })
  const beaComment = (first.body as unknown as { comments: Array<{ id: number }> }).comments[0]!.id
  const before = smtp.received.length
  const answer = await A.post("api/b2/comments", { json: { discussion_id: discussion.id, body: "Tomatoes.", parent_id: beaComment } })
  const adaComment = (answer.body as unknown as { comments: Array<{ id: number }> }).comments[0]!.id
  const mail = await smtp.mailTo("bea@example.org", before)
  t.match(mail.subject, /Ada replied to your comment in: Seeds/)
  await reply(mail.replyTo!.value[0]!.address!, `And beans!${QUOTED}`)
  const last = (await comments(discussion.id)).at(-1)!
  t.match(last, { author_id: bea.user.id, body: "And beans!", parent_id: adaComment })
})

t.test("a standalone poll's mail has no reply address (no thread to comment in); a poll in a thread has one", async (t) => {
  const B = s.as(bea.apiKey)
  const closing = new Date(Date.now() + 3 * 86_400_000).toISOString()
  const outcomeMail = async (json: object) => {
    const poll = await A.post("api/b2/polls", { json: { ...json, title: "Lunch?", poll_type: "proposal", closing_at: closing } })
    const id = (poll.body as unknown as { polls: Array<{ id: number }> }).polls[0]!.id
    t.equal((await B.post("api/b2/stances", { json: { poll_id: id, option_scores: { agree: 1 } } })).statusCode, 200)
    t.equal((await A.post(`api/b2/polls/${id}/close`)).statusCode, 200)
    const before = smtp.received.length
    t.equal((await A.post("api/b2/outcomes", { json: { poll_id: id, statement: "Lunch it is." } })).statusCode, 200)
    return smtp.mailTo("bea@example.org", before)
  }
  const alone = await outcomeMail({ group_id: group.id })
  t.match(alone.subject, /shared the outcome of: Lunch\?/)
  t.equal(alone.replyTo, undefined, "standalone: no Reply-To")
  t.notMatch(alone.text, /Reply to this e-mail/)
  const { discussion } = await threadForBea("Lunches")
  const inThread = await outcomeMail({ discussion_id: discussion.id })
  t.match(inThread.replyTo?.value[0]?.address, /^reply\+/, "in a thread: a reply becomes a comment there")
})

t.test("forged senders, auto-replies and bounces post nothing; a closed thread gets a mail saying why", async (t) => {
  const { discussion, replyTo } = await threadForBea("Tools")
  await reply(replyTo, "I am Bea, honestly", { from: "Mallory <mallory@example.org>" })
  await reply(replyTo, "I am out of the office until Monday.", { headers: { "Auto-Submitted": "auto-replied" } })
  await reply(replyTo, "Delivery failed", { from: "MAILER-DAEMON@example.org" })
  t.same(await comments(discussion.id), [], "nothing posted")
  t.same(
    (await s.sql<{ outcome: string }>("SELECT outcome FROM inbound_messages ORDER BY outcome")).map((r) => r.outcome),
    ["posted:1", "posted:4"],
    "only what had an effect is remembered (the two posted before): a forged or automatic message leaves no row"
  )
  t.equal((await A.post(`api/b2/discussions/${discussion.id}/close`)).statusCode, 200)
  const before = smtp.received.length
  await reply(replyTo, "One more thing")
  const refusal = await smtp.mailTo("bea@example.org", before)
  t.match(refusal.subject, /Your reply was not posted: Tools/)
  t.match(refusal.text, /the discussion is closed/)
  t.match(refusal.html, /^<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Your reply was not posted: Tools<\/title>/, "an HTML part with its language and title, beside the text part")
  t.same(await comments(discussion.id), [], "still nothing posted")
})

t.test("a lost membership: nothing posted, and a mail saying why", async (t) => {
  const cy = await s.convene.users.create({ email: "cy@example.org", name: "Cy", username: "cy" })
  await s.convene.members.add({ group, user: cy.user })
  const before = smtp.received.length
  const made = await A.post("api/b2/discussions", { json: { group_id: group.id, title: "Fences", recipient_audience: "group" } })
  const discussion = (made.body as unknown as { discussions: Array<{ id: number }> }).discussions[0]!
  const replyTo = (await smtp.mailTo("cy@example.org", before)).replyTo!.value[0]!.address!
  await s.convene.run(Memberships.removeMember(group, cy.user))
  const after = smtp.received.length
  await reply(replyTo, "Count me in", { from: "cy@example.org" })
  const refusal = await smtp.mailTo("cy@example.org", after)
  t.match(refusal.text, /you can no longer comment in this discussion/)
  t.same(await comments(discussion.id), [])
})

t.test("an address to nobody is refused at RCPT; the listener relays nothing", async (t) => {
  await t.rejects(reply("someone@example.org", "hi"), { responseCode: 550 } as never)
  await t.rejects(reply(`reply+${"x".repeat(32)}@elsewhere.example.org`, "hi"), { responseCode: 550 } as never)
})

t.test("POST /inbound/mail: the raw message with the secret; and convene mail inbound FILE", async (t) => {
  const { discussion, replyTo } = await threadForBea("Water")
  const raw = await new MailComposer({ from: "bea@example.org", to: replyTo, subject: "Re: Water", text: `Rain barrels.${QUOTED}`, messageId: "<bea-http@example.org>" }).compile().build()
  const post = (body: Buffer, secret = SECRET) =>
    got.post(`${s.url}/inbound/mail`, { body, headers: { authorization: `Bearer ${secret}`, "content-type": "message/rfc822" }, throwHttpErrors: false, retry: { limit: 0 } })
  t.equal((await post(raw, "wrong-secret-wrong-secret")).statusCode, 401)
  t.same(await comments(discussion.id), [])
  const ok = await post(raw)
  t.equal(ok.statusCode, 200)
  t.match(JSON.parse(ok.body), { outcome: { result: "posted" } })
  t.equal((await comments(discussion.id))[0]!.body, "Rain barrels.")
  t.match(JSON.parse((await post(raw)).body), { outcome: { result: "duplicate" } })
  t.equal((await post(Buffer.alloc(0))).statusCode, 400)

  const other = await new MailComposer({ from: "bea@example.org", to: replyTo, subject: "Re: Water", text: "And a pump.", messageId: "<bea-cli@example.org>" }).compile().build()
  const file = join(s.filename.startsWith("postgres") ? "/tmp" : s.filename.replace(/\/[^/]+$/, ""), `reply-${process.pid}.eml`)
  writeFileSync(file, other)
  const { code, stdout } = await runHere(["mail", "inbound", file, "--json", "--db", s.filename], { REPLY_HOSTNAME: REPLY_HOST })
  t.equal(code, 0)
  t.match(JSON.parse(stdout), { result: "posted" })
  t.same((await comments(discussion.id)).map((c) => c.body), ["Rain barrels.", "And a pump."])
})

t.test("a Message-ID is compared without brackets or case; a message without one is known by its sender, date and text", async (t) => {
  const { discussion, replyTo } = await threadForBea("Seeds")
  await reply(replyTo, "Tomatoes first.", { messageId: "<m5@x.example.org>" })
  await reply(replyTo, "Tomatoes first.", { messageId: "<M5@X.EXAMPLE.ORG>" })
  t.same((await comments(discussion.id)).map((c) => c.body), ["Tomatoes first."], "<M5@X> after <m5@x> posts once")

  const post = (body: Buffer) =>
    got.post(`${s.url}/inbound/mail`, { body, headers: { authorization: `Bearer ${SECRET}`, "content-type": "message/rfc822" }, throwHttpErrors: false, retry: { limit: 0 } })
  /** a raw message with no Message-ID header at all */
  const withoutId = async (text: string, date: string) => {
    const built = (await new MailComposer({ from: "bea@example.org", to: replyTo, subject: "Re: Seeds", text, date }).compile().build()).toString()
    const raw = built.replace(/^Message-ID:.*\r\n/im, "")
    t.notMatch(raw, /^Message-ID:/im)
    return Buffer.from(raw)
  }
  const date = "Sun, 29 Nov 2026 09:00:00 +0000"
  t.match(JSON.parse((await post(await withoutId("Then beans.", date))).body), { outcome: { result: "posted" } })
  t.match(JSON.parse((await post(await withoutId("Then beans.", date))).body), { outcome: { result: "duplicate" } }, "the same message again")
  t.match(JSON.parse((await post(await withoutId("Then peas.", date))).body), { outcome: { result: "posted" } }, "another text is another message")
  t.same((await comments(discussion.id)).map((c) => c.body), ["Tomatoes first.", "Then beans.", "Then peas."])
})

t.test("a reply longer than a comment may be is not posted, and a mail says why", async (t) => {
  const { discussion, replyTo } = await threadForBea("Long")
  const before = smtp.received.length
  // 1.5 MiB of words: within the listener's message limit, over a comment's (the API's 1 MiB)
  await reply(replyTo, "word ".repeat(300_000), { messageId: "<long@example.org>" })
  const refusal = await smtp.mailTo("bea@example.org", before)
  t.match(refusal.text, /it is longer than a comment may be \(1 MiB\)/)
  t.same(await comments(discussion.id), [], "nothing posted")
})
