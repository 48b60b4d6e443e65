/**
 * Mail delivery throughput: convene's mail worker draining an outbox of 2,000 invitations to a local SMTP
 * server (smtp-server), beside a bare nodemailer loop sending the same rendered messages with the same
 * concurrency and transport. Run by hand: `npx tsc -b && node bench/mail.js` (MAIL_BENCH_COUNT to change).
 */
import { makeConvene, Mail, Rules, Store } from "@convene/core"
import { mailSettingsFromEnv, startMailWorker, createMailTransport } from "@convene/http"
import { Effect } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { SMTPServer } from "smtp-server"

const COUNT = Number(process.env.MAIL_BENCH_COUNT ?? 2000)
const CONCURRENCY = 4
const BASE = "http://convene.test"

const smtpServer = async () => {
  let received = 0
  const server = new SMTPServer({ authOptional: true, disabledCommands: ["STARTTLS", "AUTH"], logger: false, onData: (stream, _s, cb) => { stream.on("end", () => { received++; cb() }); stream.resume() } })
  await new Promise((r) => server.listen(0, "127.0.0.1", r))
  return { url: `smtp://127.0.0.1:${server.server.address().port}`, received: () => received, close: () => new Promise((r) => server.close(r)) }
}

const dir = mkdtempSync(join(tmpdir(), "convene-mail-bench-"))
const convene = makeConvene({ filename: join(dir, "bench.db") })
const { user } = await convene.users.create({ email: "ada@example.org", name: "Ada" })
const { group } = await convene.groups.create({ name: "Bench", owner: user })
// the outbox, as invitations leave it: one transaction, the secrets made at send time
await convene.run(Effect.flatMap(Store, (store) => store.transaction(Effect.forEach(Array.from({ length: COUNT }, (_, i) => i), (i) =>
  store.mail.enqueue({ kind: "group_invitation", recipient_user_id: null, recipient_email: `p${i}@example.org`, subject: "Ada invited you to join Bench",
    body: "Ada invited you to join the group \"Bench\".", path: `/g/${group.key}`, group_id: group.id, actor_id: user.id, created_at: new Date().toISOString() })))))

const timed = async (name, run) => {
  const smtp = await smtpServer()
  const started = performance.now()
  await run(smtp)
  const ms = performance.now() - started
  await smtp.close()
  console.log(`${name}: ${COUNT} messages in ${(ms / 1000).toFixed(2)} s = ${(COUNT / (ms / 1000)).toFixed(0)} messages/s`)
  return COUNT / (ms / 1000)
}

const convenePerSec = await timed("convene worker", async (smtp) => {
  const worker = startMailWorker({ store: convene.store, settings: mailSettingsFromEnv({ SMTP_URL: smtp.url }, BASE), baseUrl: BASE, concurrency: CONCURRENCY, pollMs: 5 })
  while (smtp.received() < COUNT) await new Promise((r) => setTimeout(r, 5))
  await worker.stop()
})

const messages = (await convene.run(Mail.listMail(undefined, { limit: COUNT, offset: 0 })))
  .map((m) => Rules.renderMail(m, { baseUrl: BASE, from: "notifications@convene.test", name: "convene" }, "Ada"))
const barePerSec = await timed("bare nodemailer", async (smtp) => {
  const transport = createMailTransport(mailSettingsFromEnv({ SMTP_URL: smtp.url }, BASE), CONCURRENCY)
  let next = 0
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < messages.length) {
      const m = messages[next++]
      await transport.sendMail({ from: m.from, to: m.to, subject: m.subject, text: m.text, html: m.html, headers: m.headers, messageId: m.messageId })
    }
  }))
  transport.close()
})
console.log(`ratio convene / bare: ${(convenePerSec / barePerSec).toFixed(2)}`)
await convene.close()
rmSync(dir, { recursive: true, force: true })
