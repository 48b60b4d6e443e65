/**
 * A test server whose mail is delivered to a real SMTP server (the people, sign-in and mail tests), and the
 * sign-in mail a person receives: its code and its one-time link.
 */
import { mailSettingsFromEnv, startMailWorker } from "@convene/http"
import type { ParsedMail } from "mailparser"
import { browserSession, startTestServer, type TestServer } from "./helpers.js"
import { startSmtp, type TestSmtp } from "./smtp.js"

export const BASE = "http://convene.test"

export interface MailedServer {
  readonly s: TestServer
  readonly smtp: TestSmtp
  readonly close: () => Promise<void>
}

/** A test server (settings as startTestServer's), its mail worker, and the SMTP server the worker sends to. */
export const startMailedServer = async (settings: Parameters<typeof startTestServer>[0] = {}): Promise<MailedServer> => {
  const smtp = await startSmtp()
  const s = await startTestServer(settings)
  const worker = startMailWorker({ store: s.convene.store, settings: mailSettingsFromEnv({ SMTP_URL: smtp.url }, BASE, 2000)!, baseUrl: BASE, pollMs: 20 })
  return {
    s,
    smtp,
    close: async () => {
      await worker.stop()
      await s.close()
      await smtp.close()
    }
  }
}

/** The path of the link a mail carries (to this test server's BASE_URL). */
export const linkIn = (mail: ParsedMail) => new URL(/(http:\/\/convene\.test\/\S+)/.exec(mail.text ?? "")![1]!).pathname

/** Asks for a sign-in mail for the address (from client address `from`, when given) and reads its code and link. */
export const signInMail = async ({ s, smtp }: MailedServer, email: string, from?: string) => {
  const b = browserSession(s.url, from === undefined ? {} : { from })
  await b.get("/sign-in")
  const before = smtp.received.length
  const asked = await b.post("/sign-in", { email })
  if (asked.status !== 200) throw new Error(`asking for a sign-in mail for ${email}: ${asked.status}`)
  const mail = await smtp.mailTo(email, before)
  return { code: /\b(\d{6})\b/.exec(mail.subject ?? "")![1]!, link: linkIn(mail) }
}
