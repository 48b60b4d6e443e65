/**
 * The SMTP transport (nodemailer), from the environment (decisions §5): `SMTP_URL` (`smtp://user:pass@host:587`
 * for STARTTLS, `smtps://…:465` for implicit TLS), else Loomio's `SMTP_SERVER`, `SMTP_PORT`, `SMTP_USERNAME`,
 * `SMTP_PASSWORD`, `SMTP_USE_SSL`, `SMTP_DOMAIN`, `SMTP_SSL_VERIFY_MODE`; `MAIL_FROM` is the sender. And the one
 * place where an SMTP failure becomes a sentence that says what went wrong and where.
 */
import { Rules } from "@convene/core"
import nodemailer from "nodemailer"
import type SMTPTransport from "nodemailer/lib/smtp-transport/index.js"

export interface MailSettings {
  readonly options: SMTPTransport.Options
  /** host:port, for messages */
  readonly target: string
  readonly from: string
}

const truthy = (v: string | undefined) => v !== undefined && /^(1|true|yes|on)$/i.test(v)

/**
 * The transport settings, or undefined when no transport is configured (mail then waits in the outbox).
 * One attempt may take `timeoutMs`, else CONVENE_MAIL_TIMEOUT_MS, else 30 seconds.
 */
export const mailSettingsFromEnv = (
  env: Readonly<Record<string, string | undefined>>,
  baseUrl: string,
  timeoutMs = Number(env.CONVENE_MAIL_TIMEOUT_MS) > 0 ? Number(env.CONVENE_MAIL_TIMEOUT_MS) : 30_000
): MailSettings | undefined => {
  const timeouts = { connectionTimeout: timeoutMs, greetingTimeout: timeoutMs, socketTimeout: timeoutMs }
  const from = env.MAIL_FROM || Rules.defaultMailFrom(baseUrl)
  if (env.SMTP_URL) {
    let url: URL
    try {
      url = new URL(env.SMTP_URL)
    } catch {
      throw new Error("SMTP_URL is not a URL: write smtp://user:password@host:587 or smtps://user:password@host:465")
    }
    if (url.protocol !== "smtp:" && url.protocol !== "smtps:") throw new Error(`SMTP_URL must start with smtp:// or smtps:// (not ${url.protocol}//)`)
    const secure = url.protocol === "smtps:"
    const port = url.port === "" ? (secure ? 465 : 587) : Number(url.port)
    const q = url.searchParams
    return {
      target: `${url.hostname}:${port}`,
      from,
      options: {
        host: url.hostname,
        port,
        secure,
        ...(url.username === "" ? {} : { auth: { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } }),
        ...(q.get("tls.rejectUnauthorized") === "false" ? { tls: { rejectUnauthorized: false } } : {}),
        ...(truthy(q.get("requireTLS") ?? undefined) ? { requireTLS: true } : {}),
        ...(q.get("name") ? { name: q.get("name")! } : {}),
        ...timeouts
      }
    }
  }
  if (env.SMTP_SERVER) {
    const secure = truthy(env.SMTP_USE_SSL)
    const port = env.SMTP_PORT ? Number(env.SMTP_PORT) : secure ? 465 : 587
    if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`SMTP_PORT=${env.SMTP_PORT} is not a port number`)
    return {
      target: `${env.SMTP_SERVER}:${port}`,
      from,
      options: {
        host: env.SMTP_SERVER,
        port,
        secure,
        ...(env.SMTP_USERNAME ? { auth: { user: env.SMTP_USERNAME, pass: env.SMTP_PASSWORD ?? "" } } : {}),
        ...(env.SMTP_DOMAIN ? { name: env.SMTP_DOMAIN } : {}),
        ...(env.SMTP_SSL_VERIFY_MODE?.toLowerCase() === "none" ? { tls: { rejectUnauthorized: false } } : {}),
        ...timeouts
      }
    }
  }
  return undefined
}

/** One transport per process, pooling its connections: one SMTP connection serves many messages. */
export const createMailTransport = (settings: MailSettings, maxConnections = 4) =>
  nodemailer.createTransport({ ...settings.options, pool: true, maxConnections, maxMessages: 100 })

export type MailTransport = ReturnType<typeof createMailTransport>

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
