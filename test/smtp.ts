/**
 * A real SMTP server for mail tests (smtp-server), reading what it receives with mailparser. It can speak
 * plain SMTP, STARTTLS or implicit TLS with a test certificate made by openssl, require authentication,
 * refuse senders or recipients, or hang on DATA.
 */
import { execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { AddressInfo } from "node:net"
import { type ParsedMail, simpleParser } from "mailparser"
import { SMTPServer, type SMTPServerOptions } from "smtp-server"

/** A self-signed certificate for 127.0.0.1 and localhost, made once per test process. */
let cert: { key: Buffer; cert: Buffer } | undefined
export const testCertificate = () => {
  if (cert !== undefined) return cert
  const dir = mkdtempSync(join(tmpdir(), "convene-cert-"))
  try {
    execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=localhost",
      "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1", "-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem")], { stdio: "ignore" })
    cert = { key: readFileSync(join(dir, "key.pem")), cert: readFileSync(join(dir, "cert.pem")) }
    return cert
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

export interface SmtpBehaviour {
  /** "plain": no TLS at all; "starttls": upgrade offered; "tls": implicit TLS from the first byte */
  readonly mode?: "plain" | "starttls" | "tls"
  readonly auth?: { readonly user: string; readonly pass: string }
  /** answer to MAIL FROM / RCPT TO / DATA: undefined accepts; otherwise the code and text to refuse with */
  mailFrom?: (address: string) => { code: number; message: string } | undefined
  rcptTo?: (address: string) => { code: number; message: string } | undefined
  /** never answer DATA (the sender hangs until its timeout) */
  hang?: boolean
  /** runs once a message is received, before its 250 is sent (a test may stop the sender there) */
  beforeAccept?: (mail: ParsedMail) => void | Promise<void>
}

export interface TestSmtp {
  readonly port: number
  readonly url: string
  readonly received: Array<ParsedMail>
  /** DATA commands that began (accepted or not) */
  dataStarted: number
  readonly behaviour: SmtpBehaviour
  readonly waitFor: (n: number, ms?: number) => Promise<void>
  /** The first message to `address` received after the first `after` messages. */
  /** The first mail to `address` after the `after`-th received (and, given `matching`, the first such that matches). */
  readonly mailTo: (address: string, after: number, matching?: (mail: ParsedMail) => boolean) => Promise<ParsedMail>
  readonly close: () => Promise<void>
}

const refuse = (r: { code: number; message: string }) => Object.assign(new Error(r.message), { responseCode: r.code })

export const startSmtp = async (behaviour: SmtpBehaviour = {}): Promise<TestSmtp> => {
  const mode = behaviour.mode ?? "plain"
  const received: Array<ParsedMail> = []
  const state = { dataStarted: 0 }
  const options: SMTPServerOptions = {
    secure: mode === "tls",
    ...(mode === "plain" ? {} : testCertificate()),
    disabledCommands: [...(mode === "plain" ? ["STARTTLS"] : []), ...(behaviour.auth === undefined ? ["AUTH"] : [])],
    authOptional: behaviour.auth === undefined,
    logger: false,
    onAuth: (auth, _session, cb) =>
      auth.username === behaviour.auth?.user && auth.password === behaviour.auth?.pass
        ? cb(null, { user: auth.username })
        : cb(refuse({ code: 535, message: "5.7.8 Authentication credentials invalid" })),
    onMailFrom: (address, _session, cb) => {
      const r = behaviour.mailFrom?.(address.address)
      return r === undefined ? cb() : cb(refuse(r))
    },
    onRcptTo: (address, _session, cb) => {
      const r = behaviour.rcptTo?.(address.address)
      return r === undefined ? cb() : cb(refuse(r))
    },
    onData: (stream, _session, cb) => {
      state.dataStarted++
      if (behaviour.hang === true) {
        stream.resume()
        return // never answered
      }
      simpleParser(stream).then(async (mail) => {
        received.push(mail)
        await behaviour.beforeAccept?.(mail)
        cb()
      }, cb)
    }
  }
  const server = new SMTPServer(options)
  // a client that drops a TLS handshake (refusing our test certificate) is an expected event here
  server.on("error", () => {})
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.server.address() as AddressInfo).port
  return {
    port,
    url: `${mode === "tls" ? "smtps" : "smtp"}://127.0.0.1:${port}`,
    received,
    get dataStarted() {
      return state.dataStarted
    },
    set dataStarted(n: number) {
      state.dataStarted = n
    },
    behaviour,
    waitFor: async (n, ms = 10_000) => {
      const until = Date.now() + ms
      while (received.length < n) {
        if (Date.now() > until) throw new Error(`expected ${n} messages, received ${received.length}`)
        await new Promise((r) => setTimeout(r, 20))
      }
    },
    mailTo: async (address, after, matching = () => true) => {
      const end = Date.now() + 10_000
      for (;;) {
        const found = received.slice(after).find((m) => m.to !== undefined && !Array.isArray(m.to) && m.to.text === address && matching(m))
        if (found !== undefined) return found
        if (Date.now() > end) throw new Error(`no mail to ${address}`)
        await new Promise((r) => setTimeout(r, 20))
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}
