/**
 * `convene mail`: the outbox (decisions §5): `list [--status]`; `test --to ADDRESS`, which sends one message
 * now and prints the SMTP server's answer or exactly what failed; `retry ID…|--dead`; `inbound FILE`, one received
 * reply handled by hand, and `digest [--now] [--user ID]`, the catch-up e-mails (decisions §11).
 */
import { Digest, Mail, MAIL_STATUSES, type MailStatus, Rules, type Users } from "@convene/core"
import { type Command, InvalidArgumentError } from "commander"
import { allPages, type CommonOptions, parseUserRef, registerRetry, withConvene } from "../common.js"
import { mailLine } from "../format.js"
import { io } from "../io.js"
import { readFileSync } from "node:fs"
import { CliError, errorMessage, EXIT_DOMAIN, makeOutput } from "../output.js"

const parseStatus = (value: string): MailStatus => {
  if ((MAIL_STATUSES as ReadonlyArray<string>).includes(value)) return value as MailStatus
  throw new InvalidArgumentError(`expected one of ${MAIL_STATUSES.join(", ")}`)
}

export const registerMail = (program: Command) => {
  const mail = program.command("mail").description("the mail outbox")

  mail.command("list")
    .description("show the mail outbox, oldest first")
    .option("--status <status>", `only ${MAIL_STATUSES.join("/")}`, parseStatus)
    .action((opts: CommonOptions & { status?: MailStatus }) =>
      withConvene(opts, async (c, out) => {
        const messages = await allPages((page) => c.run(Mail.listMail(opts.status, page)))
        out.emit(messages, messages.map(mailLine))
      }))

  mail.command("test")
    .description("send one message now through the configured transport and print the server's answer")
    .requiredOption("--to <address>", "where to send it")
    .action(async (opts: CommonOptions & { to: string }) => {
      const out = makeOutput(opts.json === true)
      try {
        if (!Rules.isEmail(Rules.normaliseEmail(opts.to))) throw new CliError(`${opts.to} is not an e-mail address`)
        const env = io().env
        const { baseUrlFromEnv, createMailTransport, mailSettingsFromEnv, sendMail } = await import("@convene/http")
        // the sender's default domain and the test message's link, as `serve` would make them
        const baseUrl = baseUrlFromEnv(env, { host: env.HOST || "127.0.0.1", port: Number(env.PORT || "3000") })
        const settings = mailSettingsFromEnv(env, baseUrl)
        if (settings === undefined) throw new CliError("no mail transport: set SMTP_URL (smtp://user:password@host:587) or SMTP_SERVER")
        const transport = createMailTransport(settings)
        const outcome = await sendMail(transport, settings, {
          from: { name: "convene", address: settings.from },
          to: opts.to,
          subject: "convene mail test",
          text: `This is a test message from convene at ${baseUrl}. Mail works.`,
          html: `<p>This is a test message from convene at ${baseUrl}. Mail works.</p>`,
          headers: { "Auto-Submitted": "auto-generated" },
          messageId: `<test-${Date.now()}@${new URL(baseUrl).hostname}>`
        })
        transport.close()
        if (!outcome.ok) throw new CliError(outcome.error)
        out.emit({ ok: true, to: opts.to, server: settings.target, from: settings.from, reply: outcome.reply },
          `sent to ${opts.to} via ${settings.target} from ${settings.from}: ${outcome.reply}`)
      } catch (e) {
        out.fail(e)
      }
    })

  mail.command("inbound")
    .description("handle one received message (a reply to a notification) from FILE, or - for standard input")
    .argument("<file>", "the raw message (RFC 5322), as a mail server stores it")
    .action((file: string, opts: CommonOptions) =>
      withConvene(opts, async (c, out) => {
        const { inboundFromEnv, inboundResultJson, receiveRaw } = await import("@convene/http")
        const settings = inboundFromEnv(io().env)
        if (settings === undefined) throw new CliError("replies by e-mail are off: set REPLY_HOSTNAME (the host of the reply addresses in notifications)")
        let raw: Buffer
        try {
          raw = file === "-" ? readFileSync(0) : readFileSync(file)
        } catch (e) {
          throw new CliError(`cannot read ${file}: ${(e as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : errorMessage(e)}`)
        }
        const outcome = inboundResultJson(await receiveRaw(c.store, settings.replyHost, raw))
        out.emit(outcome, Object.entries(outcome).map(([k, v]) => `${k}: ${v}`).join(", "))
        if (outcome.result !== "posted" && outcome.result !== "duplicate") io().exitCode = EXIT_DOMAIN
      }))

  mail.command("digest")
    .description("make the catch-up e-mails that are due now (serve makes them at 06:00 in each person's time zone)")
    .option("--now", "make them whatever the schedule says (each still covers what happened since the last)")
    .option("--user <id>", "this person only", parseUserRef)
    .action((opts: CommonOptions & { now?: boolean; user?: Users.UserRef }) =>
      withConvene(opts, async (c, out) => {
        const user = opts.user === undefined ? undefined : await c.users.show(opts.user)
        const made = await c.run(Digest.sendDigests({ now: opts.now === true, ...(user === undefined ? {} : { userId: user.user.id }) }))
        out.emit({ made }, made === 0 ? "no catch-up e-mail due (or nothing new to tell)" : `${made} catch-up e-mail${made === 1 ? "" : "s"} queued (convene mail list)`)
      }))

  registerRetry(mail, "retry", { one: "message", many: "messages", key: "retried" }, (c, ids) => c.run(Mail.retryMail(ids)))
}
