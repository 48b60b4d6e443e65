/**
 * The SMTP transport (nodemailer), from the environment (decisions §5): `SMTP_URL` (`smtp://user:pass@host:587`
 * for STARTTLS, `smtps://…:465` for implicit TLS), else Loomio's `SMTP_SERVER`, `SMTP_PORT`, `SMTP_USERNAME`,
 * `SMTP_PASSWORD`, `SMTP_USE_SSL`, `SMTP_DOMAIN`, `SMTP_SSL_VERIFY_MODE`; `MAIL_FROM` is the sender. And the one
 * place where an SMTP failure becomes a sentence that says what went wrong and where.
 */
import { Rules } from "@convene/core"
import type Nodemailer from "nodemailer"
import { createRequire } from "node:module"
import type SMTPTransport from "nodemailer/lib/smtp-transport/index.js"

export interface MailSettings {
  readonly options: SMTPTransport.Options
  /** host:port, for messages */
  readonly target: string
  readonly from: string
  /** REPLY_HOSTNAME: a thread's notifications carry `Reply-To: reply+TOKEN@` it (decisions §11) */
  readonly replyHost?: string
}

const truthy = (v: string | undefined) => v !== undefined && /^(1|true|yes|on)$/i.test(v)

/** Where and how to connect, however the environment spelled it. */
interface Connection {
  readonly host: string
  /** undefined: the default of the mode (465 for implicit TLS, else 587) */
  readonly port: number | undefined
  readonly secure: boolean
  readonly user: string | undefined
  readonly pass: string | undefined
  /** the name given in EHLO */
  readonly name: string | undefined
  /** accept an unverified (self-signed) certificate */
  readonly insecure: boolean
  readonly requireTLS: boolean
}

/** `SMTP_URL`: smtp:// (STARTTLS) or smtps:// (implicit TLS), user and password in the URL, options as query parameters. */
const fromUrl = (raw: string): Connection => {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new Error("SMTP_URL is not a URL: write smtp://user:password@host:587 or smtps://user:password@host:465")
  }
  if (url.protocol !== "smtp:" && url.protocol !== "smtps:") throw new Error(`SMTP_URL must start with smtp:// or smtps:// (not ${url.protocol}//)`)
  const q = url.searchParams
  return {
    host: url.hostname,
    port: url.port === "" ? undefined : Number(url.port),
    secure: url.protocol === "smtps:",
    user: url.username === "" ? undefined : decodeURIComponent(url.username),
    pass: decodeURIComponent(url.password),
    name: q.get("name") ?? undefined,
    insecure: q.get("tls.rejectUnauthorized") === "false",
    requireTLS: truthy(q.get("requireTLS") ?? undefined)
  }
}

/** Loomio's variables. */
const fromLoomioVariables = (env: Readonly<Record<string, string | undefined>>): Connection => {
  const port = env.SMTP_PORT ? Number(env.SMTP_PORT) : undefined
  if (port !== undefined && (!Number.isInteger(port) || port < 1 || port > 65535)) throw new Error(`SMTP_PORT=${env.SMTP_PORT} is not a port number`)
  return {
    host: env.SMTP_SERVER!,
    port,
    secure: truthy(env.SMTP_USE_SSL),
    user: env.SMTP_USERNAME || undefined,
    pass: env.SMTP_PASSWORD ?? "",
    name: env.SMTP_DOMAIN || undefined,
    insecure: env.SMTP_SSL_VERIFY_MODE?.toLowerCase() === "none",
    requireTLS: false
  }
}

/**
 * The transport settings, or undefined when no transport is configured (mail then waits in the outbox).
 * One attempt may take `timeoutMs`, else CONVENE_MAIL_TIMEOUT_MS, else 30 seconds.
 */
export const mailSettingsFromEnv = (
  env: Readonly<Record<string, string | undefined>>,
  baseUrl: string,
  timeoutMs = Number(env.CONVENE_MAIL_TIMEOUT_MS) > 0 ? Number(env.CONVENE_MAIL_TIMEOUT_MS) : 30_000
): MailSettings | undefined => {
  const c = env.SMTP_URL ? fromUrl(env.SMTP_URL) : env.SMTP_SERVER ? fromLoomioVariables(env) : undefined
  if (c === undefined) return undefined
  const port = c.port ?? (c.secure ? 465 : 587)
  return {
    target: `${c.host}:${port}`,
    from: env.MAIL_FROM || Rules.defaultMailFrom(baseUrl),
    ...(env.REPLY_HOSTNAME?.trim() ? { replyHost: env.REPLY_HOSTNAME.trim().toLowerCase() } : {}),
    options: {
      host: c.host,
      port,
      secure: c.secure,
      ...(c.user === undefined ? {} : { auth: { user: c.user, pass: c.pass ?? "" } }),
      ...(c.name === undefined ? {} : { name: c.name }),
      ...(c.insecure ? { tls: { rejectUnauthorized: false } } : {}),
      ...(c.requireTLS ? { requireTLS: true } : {}),
      connectionTimeout: timeoutMs,
      greetingTimeout: timeoutMs,
      socketTimeout: timeoutMs
    }
  }
}

/** Required on first use: a server that sends no mail (no SMTP_URL) never holds nodemailer. */
let loaded: typeof Nodemailer | undefined
const nodemailer = () => (loaded ??= createRequire(import.meta.url)("nodemailer") as typeof Nodemailer)

/** One transport per process, pooling its connections: one SMTP connection serves many messages. */
export const createMailTransport = (settings: MailSettings, maxConnections = 4) =>
  nodemailer().createTransport({ ...settings.options, pool: true, maxConnections, maxMessages: 100 })

export type MailTransport = ReturnType<typeof createMailTransport>

/**
 * `doctor`: connects (and authenticates, when configured) without sending anything, and says what answered:
 * the server's greeting, or the failure in words.
 */
export const checkMailTransport = async (settings: MailSettings): Promise<{ ok: true; greeting: string } | { ok: false; error: string }> => {
  let greeting = ""
  // with `debug`, nodemailer hands each line the server sends to its logger; the first 220 line is the greeting
  const listen = (meta: { tnx?: string } | undefined, message: unknown) => {
    const line = String(message).trim()
    if (greeting === "" && meta?.tnx === "server" && /^220[ -]/.test(line)) greeting = line
  }
  const quiet = () => {}
  const logger = { level: quiet, trace: quiet, debug: listen, info: quiet, warn: quiet, error: quiet, fatal: quiet }
  const transport = nodemailer().createTransport({ ...settings.options, logger, debug: true })
  try {
    await transport.verify()
    return { ok: true, greeting: greeting || "the server accepted the connection" }
  } catch (e) {
    return { ok: false, error: explainSmtpError(e, settings.target) }
  } finally {
    transport.close()
  }
}

interface SmtpError {
  readonly code?: string
  readonly command?: string
  readonly response?: string
  readonly responseCode?: number
  readonly message?: string
}

/** What failed, in words an operator can act on (Loomio's self-hosters' largest complaint is silence). */
export const explainSmtpError = (e: unknown, target: string): string => {
  const err = (typeof e === "object" && e !== null ? e : { message: String(e) }) as SmtpError
  // OpenSSL's messages span lines; a log line or a CLI answer should not
  const message = (err.message ?? String(e)).replace(/\s+/g, " ").trim()
  const reply = err.response ? `: the server answered "${err.response.trim()}"` : ""
  if (/ECONNREFUSED/.test(message)) return `connection refused by ${target}: nothing listens there (check the SMTP host and port)`
  if (/ENOTFOUND|EAI_AGAIN/.test(message)) return `cannot find the SMTP host of ${target} (DNS)`
  if (err.code === "ETIMEDOUT") return `no answer from ${target} in time (${message}); check the port, the firewall, and smtp:// or smtps://`
  if (err.code === "ETLS" || /wrong version number|packet length too long|unknown protocol|certificate|self[- ]signed|TLS|SSL/i.test(message)) {
    return `TLS failed with ${target}: ${message}. Port 465 wants implicit TLS (smtps:// or SMTP_USE_SSL=true); ports 587 and 25 ` +
      "want STARTTLS (smtp://); a self-signed certificate needs ?tls.rejectUnauthorized=false (or SMTP_SSL_VERIFY_MODE=none)"
  }
  if (err.code === "EAUTH") return `authentication refused by ${target}${reply || `: ${message}`}`
  if (err.command === "MAIL FROM") return `sender refused by ${target}${reply} (check MAIL_FROM: the server may only accept its own domain)`
  if (err.command?.startsWith("RCPT TO") || (err.code === "EENVELOPE" && /recipient/i.test(message))) return `recipient refused by ${target}${reply}`
  if (err.code === "ECONNECTION" || err.code === "ESOCKET") return `the connection to ${target} failed: ${message}`
  if (err.responseCode !== undefined) return `${err.command ?? "the message"} refused by ${target}${reply}`
  return `${message} (${target})`
}
