/**
 * The mail delivery worker: claims due messages from the outbox, renders each (rules/mail.ts), sends it over
 * SMTP and records the outcome: sent with the server's reply, or failed (tried again after 1 min, 5 min,
 * 30 min, 2 h, 12 h) and then dead with the SMTP error. A claim outlives the slowest attempt, so a live
 * worker never loses one; a worker that dies leaves claims that expire and are taken over.
 */
import { Mail, Rules, Store, type StoreService } from "@convene/core"
import { Effect } from "effect"
import { type OutboxWorker, startOutboxLoop } from "../outbox.js"
import { silentTelemetry, type TelemetryService } from "../observe/telemetry.js"
import { createMailTransport, explainSmtpError, type MailSettings, type MailTransport } from "./transport.js"

export interface MailWorkerOptions {
  readonly store: StoreService
  readonly settings: MailSettings
  readonly baseUrl: string
  readonly concurrency?: number
  readonly pollMs?: number
  readonly retryDelaysMs?: ReadonlyArray<number>
  /** the longest one attempt may take (the transport's own timeouts are set from the same number) */
  readonly timeoutMs?: number
  /** tests: a claim's lifetime */
  readonly leaseMs?: number
  readonly telemetry?: TelemetryService
}

export type MailWorker = OutboxWorker

/** Sends one rendered message now; the server's reply, or the failure in words. */
export const sendMail = async (transport: MailTransport, settings: MailSettings, mail: Rules.OutgoingMail): Promise<Mail.SendOutcome> => {
  try {
    const info = await transport.sendMail({
      from: mail.from,
      to: mail.to,
      subject: mail.subject,
      text: mail.text,
      html: mail.html,
      headers: mail.headers,
      messageId: mail.messageId,
      // a meeting's invitation: nodemailer sends it as a text/calendar part and as meeting.ics
      ...(mail.calendar === undefined ? {} : { icalEvent: { filename: "meeting.ics", method: "REQUEST", content: mail.calendar } })
    })
    if (info.rejected.length > 0) return { ok: false, error: explainSmtpError({ command: "RCPT TO", response: String(info.response) }, settings.target) }
    return { ok: true, reply: String(info.response) }
  } catch (e) {
    return { ok: false, error: explainSmtpError(e, settings.target) }
  }
}

export const startMailWorker = (options: MailWorkerOptions): MailWorker => {
  const concurrency = options.concurrency ?? 4
  const pollMs = options.pollMs ?? 1000
  const retryDelays = options.retryDelaysMs ?? Rules.MAIL_RETRY_DELAYS_MS
  const timeoutMs = options.timeoutMs ?? 30_000
  const leaseMs = options.leaseMs ?? timeoutMs * 3 + 1000
  const transport = createMailTransport(options.settings, concurrency)
  const site: Rules.MailSite = { baseUrl: options.baseUrl, from: options.settings.from, name: "convene" }
  const run = <A>(effect: Effect.Effect<A, never, Store>) => Effect.runPromise(Effect.provideService(effect, Store, options.store))
  const { log, metrics } = options.telemetry ?? silentTelemetry()

  let worker: OutboxWorker | undefined
  const deliver = async (due: Mail.DueMail) => {
    const outcome = await sendMail(transport, options.settings, Rules.renderMail(due.message, site, due.actorName, due.t))
    // shutting down: a failure is not recorded, the claim expires and the message is tried again
    if (worker?.stopped() === true && !outcome.ok) return
    const result = await run(Mail.recordMail(due.message, outcome, retryDelays))
    metrics?.delivered("mail", result)
    log[result === "sent" ? "debug" : "info"]({ mail_id: due.message.id, kind: due.message.kind, result, ...(outcome.ok ? {} : { error: outcome.error }) }, "mail delivery")
  }
  worker = startOutboxLoop({
    name: "mail worker",
    log,
    concurrency,
    pollMs,
    claim: (free) => run(Mail.claimMail(free, leaseMs, options.settings.replyHost)),
    deliver,
    nextDueMs: () => run(Mail.msUntilNextMail),
    onStopped: () => transport.close()
  })
  return worker
}
