/**
 * Mail that reaches convene (decisions §11): replies to notifications, by any of three ways together — an SMTP
 * listener in `serve` (`smtp-server`), an IMAP mailbox polled (imap.ts), and `POST /inbound/mail` — plus
 * `convene mail inbound FILE`. Each raw message is parsed here (`mailparser`), the person's own words kept
 * (`email-reply-parser` removes quoted text and signatures), and handed to the core's one use case.
 */
import { Inbound, Rules, Store, type StoreService } from "@convene/core"
import { Effect } from "effect"
import type { AddressObject } from "mailparser"
import type { IncomingMessage, ServerResponse } from "node:http"
import type { Readable } from "node:stream"
import type { SMTPServer as SmtpServer } from "smtp-server"
import { readWithin } from "../body.js"
import type { Log } from "../observe/log.js"

type Env = Readonly<Record<string, string | undefined>>

/** The largest message any way in accepts. */
export const INBOUND_MAX_BYTES = 10 * 1024 * 1024

export interface InboundSettings {
  /** REPLY_HOSTNAME: notifications carry `Reply-To: reply+TOKEN@REPLY_HOSTNAME` */
  readonly replyHost: string
  /** INBOUND_SMTP_PORT (and INBOUND_SMTP_HOST, default 127.0.0.1): the listener in `serve` */
  readonly smtp?: { readonly host: string; readonly port: number }
  /** INBOUND_IMAP_URL (and INBOUND_IMAP_INTERVAL_MS, default 60000): a mailbox polled */
  readonly imap?: { readonly url: string; readonly intervalMs: number }
  /** INBOUND_MAIL_SECRET: `POST /inbound/mail` wants it as a bearer token; unset, that route is off */
  readonly secret?: string
}

const whole = (name: string, raw: string, min: number, max: number) => {
  const n = Number(raw)
  if (!Number.isInteger(n) || n < min || n > max) throw new Error(`${name}=${raw} is not a whole number from ${min} to ${max}`)
  return n
}

/** The inbound mail configuration, or undefined when replies by e-mail are off; a wrong one throws, naming the variable. */
export const inboundFromEnv = (env: Env): InboundSettings | undefined => {
  const replyHost = env.REPLY_HOSTNAME?.trim() ?? ""
  const ways = ["INBOUND_SMTP_PORT", "INBOUND_IMAP_URL", "INBOUND_MAIL_SECRET"].filter((n) => (env[n] ?? "").trim() !== "")
  if (replyHost === "") {
    if (ways.length > 0) throw new Error(`${ways.join(", ")} ${ways.length === 1 ? "is" : "are"} set, but REPLY_HOSTNAME is not: replies need an address to go to`)
    return undefined
  }
  if (!/^[A-Za-z0-9.-]+$/.test(replyHost) || !replyHost.includes(".")) throw new Error(`REPLY_HOSTNAME=${replyHost} is not a host name (e.g. reply.convene.example.org)`)
  const imapUrl = env.INBOUND_IMAP_URL?.trim()
  if (imapUrl) {
    let url: URL | undefined
    try {
      url = new URL(imapUrl)
    } catch { /* below */ }
    if (url === undefined || (url.protocol !== "imap:" && url.protocol !== "imaps:")) throw new Error(`INBOUND_IMAP_URL must be imaps://user:password@host:993/INBOX (or imap:// on a trusted network)`)
  }
  const secret = env.INBOUND_MAIL_SECRET?.trim()
  if (secret && secret.length < 16) throw new Error(`INBOUND_MAIL_SECRET has ${secret.length} characters; use at least 16`)
  return {
    replyHost: replyHost.toLowerCase(),
    ...(env.INBOUND_SMTP_PORT?.trim() ? { smtp: { host: env.INBOUND_SMTP_HOST?.trim() || "127.0.0.1", port: whole("INBOUND_SMTP_PORT", env.INBOUND_SMTP_PORT.trim(), 0, 65535) } } : {}),
    ...(imapUrl ? { imap: { url: imapUrl, intervalMs: env.INBOUND_IMAP_INTERVAL_MS?.trim() ? whole("INBOUND_IMAP_INTERVAL_MS", env.INBOUND_IMAP_INTERVAL_MS.trim(), 1000, 86_400_000) : 60_000 } } : {}),
    ...(secret ? { secret } : {})
  }
}

const addresses = (a: AddressObject | Array<AddressObject> | undefined): Array<string> =>
  (a === undefined ? [] : Array.isArray(a) ? a : [a]).flatMap((o) => o.value).map((v) => v.address ?? "").filter((x) => x !== "")

/**
 * A raw message as the core reads it. `envelope`: the recipients the SMTP transaction named (they win over the
 * headers, which a forwarding relay may not have rewritten).
 */
export const parseInbound = async (raw: Buffer | Readable, envelope: ReadonlyArray<string> = []): Promise<Inbound.InboundMail> => {
  // loaded by the first message: a server that takes no replies never holds the parsers
  const [{ simpleParser }, { default: EmailReplyParser }] = await Promise.all([import("mailparser"), import("email-reply-parser")])
  const parsed = await simpleParser(raw, { skipHtmlToText: false, skipImageLinks: true, skipTextToHtml: true })
  const headers = new Map<string, string>()
  for (const [k, v] of parsed.headers) headers.set(k.toLowerCase(), typeof v === "string" ? v : typeof v === "object" && v !== null && "value" in v ? String((v as { value: unknown }).value) : String(v))
  // a Delivered-To from the final mailbox names the reply address when the envelope is gone (IMAP, a provider's webhook)
  const delivered = parsed.headers.get("delivered-to")
  const text = parsed.text ?? (typeof parsed.html === "string" ? parsed.html.replace(/<[^>]+>/g, " ") : "")
  return {
    messageId: parsed.messageId?.replace(/^<|>$/g, "") ?? null,
    from: parsed.from?.value[0]?.address ?? null,
    recipients: [...envelope, ...(typeof delivered === "string" ? [delivered] : []), ...addresses(parsed.to), ...addresses(parsed.cc)],
    headers,
    body: new EmailReplyParser().parseReply(text.replace(/\r\n/g, "\n")).trim()
  }
}

/** Parses and handles one raw message. */
export const receiveRaw = async (store: StoreService, replyHost: string, raw: Buffer | Readable, envelope: ReadonlyArray<string> = []) =>
  Effect.runPromise(Effect.provideService(Inbound.receiveReply(await parseInbound(raw, envelope), replyHost), Store, store))

export interface InboundListener {
  readonly port: number
  readonly close: () => Promise<void>
}

/**
 * The SMTP listener: it takes only `reply+…@REPLY_HOSTNAME` recipients (550 for any other: it relays nothing),
 * 10 MB at most, no authentication (the reply address and the sender are the credentials), and answers 250 once
 * the message is handled and committed; an error answers 451, and the sending server tries again.
 */
export const startInboundSmtp = async (options: { store: StoreService; replyHost: string; host: string; port: number; log?: Log }): Promise<InboundListener> => {
  const { SMTPServer } = await import("smtp-server")
  const server: SmtpServer = new SMTPServer({
    authOptional: true,
    disabledCommands: ["AUTH", "STARTTLS"],
    size: INBOUND_MAX_BYTES,
    banner: "convene replies",
    logger: false,
    onRcptTo: (address, _session, callback) => {
      if (Rules.replyTokenOf(address.address, options.replyHost) !== undefined) return callback()
      return callback(Object.assign(new Error(`5.1.1 <${address.address}>: no such reply address here`), { responseCode: 550 }))
    },
    onData: (stream, session, callback) => {
      const envelope = session.envelope.rcptTo.map((r) => r.address)
      const chunks: Array<Buffer> = []
      stream.on("data", (c: Buffer) => chunks.push(c))
      stream.once("end", () => {
        // a message over the size limit was cut short: refused, never handled
        if ((stream as Readable & { sizeExceeded?: boolean }).sizeExceeded) return callback(Object.assign(new Error("5.3.4 message too big"), { responseCode: 552 }))
        receiveRaw(options.store, options.replyHost, Buffer.concat(chunks), envelope).then(
        (outcome) => {
          options.log?.info({ inbound: "smtp", outcome: outcome._tag }, "mail received")
          callback()
        },
        (e: unknown) => {
          options.log?.warn({ inbound: "smtp", error: String(e) }, "mail not handled")
          callback(Object.assign(new Error("4.3.0 try again later"), { responseCode: 451 }))
        }
      )
      })
    }
  })
  server.on("error", (e) => options.log?.warn({ inbound: "smtp", error: String(e) }, "smtp listener error"))
  return new Promise((resolve, reject) => {
    server.once("error", reject)
    server.listen(options.port, options.host, () => {
      const address = server.server.address()
      resolve({
        port: typeof address === "object" && address !== null ? address.port : options.port,
        close: () => new Promise<void>((r) => server.close(() => r()))
      })
    })
  })
}

/**
 * `POST /inbound/mail` for relays and providers: the raw message as the body, `Authorization: Bearer
 * INBOUND_MAIL_SECRET`, 10 MB at most. A handled message answers 200 with what became of it (a provider retries
 * anything else); the route is off (404) without the secret.
 */
export const makeInboundRoute = (store: StoreService, settings: InboundSettings | undefined) =>
  (req: IncomingMessage, res: ServerResponse): void => {
    const answer = (status: number, body: object, headers: Record<string, string> = {}) => {
      res.writeHead(status, { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", ...headers })
      res.end(JSON.stringify(body))
    }
    if (settings?.secret === undefined) return void (req.resume(), answer(404, { error: "Not found" }))
    if (req.method !== "POST") return void (req.resume(), answer(405, { error: "Use POST with the raw message as the body" }, { allow: "POST" }))
    const given = /^Bearer (.+)$/i.exec(req.headers.authorization ?? "")?.[1] ?? ""
    if (!Rules.secretsEqual(given, settings.secret)) {
      req.resume()
      return answer(401, { error: "Missing or wrong INBOUND_MAIL_SECRET bearer token" }, { "www-authenticate": "Bearer" })
    }
    readWithin(req, INBOUND_MAX_BYTES, (read) => {
      if (read._tag === "TooLarge") return answer(413, { error: `The message is over ${INBOUND_MAX_BYTES / 1024 / 1024} MB` })
      if (read._tag === "Failed") return answer(400, { error: "The message could not be read" })
      const raw = read.body
      if (raw.length === 0) return answer(400, { error: "The body must be the raw message (RFC 5322)" })
      receiveRaw(store, settings.replyHost, raw).then(
        (outcome) => answer(200, { outcome: inboundResultJson(outcome) }),
        () => answer(503, { error: "The message could not be handled now; send it again later" }, { "retry-after": "30" })
      )
    })
  }

/** What became of an inbound message (not a poll's outcome), as the HTTP route and `convene mail inbound` print it. */
export const inboundResultJson = (o: Inbound.InboundOutcome) => {
  switch (o._tag) {
    case "Posted":
      return { result: "posted", comment_id: o.commentId }
    case "Refused":
      return { result: "refused", reason: o.reason }
    case "Duplicate":
      return { result: "duplicate", first: o.outcome }
    default:
      return { result: o._tag.replace(/[A-Z]/g, (c, i: number) => (i === 0 ? c.toLowerCase() : `_${c.toLowerCase()}`)) }
  }
}
