/**
 * Replies from an IMAP mailbox (decisions §11), for hosts that cannot run an MX: every INBOUND_IMAP_INTERVAL_MS
 * the unseen messages of INBOUND_IMAP_URL's mailbox are fetched (`imapflow`), each handled by the core and
 * then flagged \Seen. A crash between the two leaves it unseen: the next poll handles it again and the core
 * finds its Message-ID already handled, so nothing is posted twice and nothing is lost.
 */
import type { StoreService } from "@convene/core"
import type { ImapFlow as Imap } from "imapflow"
import { createRequire } from "node:module"
import type { Log } from "../observe/log.js"
import { receiveRaw } from "./inbound.js"

/** Messages handled per poll at most (the rest wait for the next). */
const BATCH = 50

export interface ImapPoller {
  /** One poll now: resolves with how many messages were handled. */
  readonly pollNow: () => Promise<number>
  readonly stop: () => Promise<void>
}

/** The connection an `imaps://user:password@host:993/INBOX` URL names (the password URL-encoded). */
export const imapTarget = (url: string) => {
  const u = new URL(url)
  const secure = u.protocol === "imaps:"
  return {
    host: u.hostname,
    port: u.port === "" ? (secure ? 993 : 143) : Number(u.port),
    secure,
    auth: { user: decodeURIComponent(u.username), pass: decodeURIComponent(u.password) },
    mailbox: decodeURIComponent(u.pathname.replace(/^\//, "")) || "INBOX"
  }
}

let imapflow: { ImapFlow: typeof Imap } | undefined

/** A client for one session with the mailbox (connected by the caller); a dropped connection is reported by the call that used it, never as an unheard error event. */
const clientOf = (target: ReturnType<typeof imapTarget>) => {
  // required on first use: a server that polls no mailbox never holds the IMAP client
  const { ImapFlow } = (imapflow ??= createRequire(import.meta.url)("imapflow") as { ImapFlow: typeof Imap })
  const client = new ImapFlow({
    host: target.host, port: target.port, secure: target.secure, auth: target.auth, logger: false, disableAutoIdle: true, connectionTimeout: 10_000, greetingTimeout: 10_000
  })
  client.on("error", () => undefined)
  return client
}

/** What `convene doctor` says of the mailbox: it logs in and counts what waits, or says why it could not. */
export const checkImapMailbox = async (url: string): Promise<{ readonly ok: boolean; readonly message: string }> => {
  const target = imapTarget(url)
  const where = `${target.host}:${target.port}/${target.mailbox}`
  const client = clientOf(target)
  try {
    await client.connect()
    const status = await client.status(target.mailbox, { messages: true, unseen: true })
    return { ok: true, message: `${where} as ${target.auth.user}: ${status.unseen ?? 0} unseen of ${status.messages ?? 0}` }
  } catch (e) {
    const err = e as { authenticationFailed?: boolean; code?: string; message?: string; responseText?: string }
    const why = err.authenticationFailed ? `the login was refused (${err.responseText ?? "check the user and password"})` : err.code ?? err.responseText ?? err.message ?? String(e)
    return { ok: false, message: `cannot read ${where}: ${why}` }
  } finally {
    await client.logout().catch(() => undefined)
  }
}

export const startImapPoller = (options: { store: StoreService; replyHost: string; url: string; intervalMs: number; log?: Log }): ImapPoller => {
  const target = imapTarget(options.url)
  let stopped = false
  let running: Promise<number> | undefined
  let timer: NodeJS.Timeout | undefined

  const poll = async (): Promise<number> => {
    const client = clientOf(target)
    await client.connect()
    let handled = 0
    try {
      const lock = await client.getMailboxLock(target.mailbox)
      try {
        const unseen = (await client.search({ seen: false }, { uid: true })) || []
        for (const uid of unseen.slice(0, BATCH)) {
          if (stopped) break
          const message = await client.fetchOne(String(uid), { source: true }, { uid: true })
          if (message === false || message.source === undefined) continue
          const outcome = await receiveRaw(options.store, options.replyHost, message.source)
          // only once it is handled and committed: a crash before this leaves it for the next poll
          await client.messageFlagsAdd(String(uid), ["\\Seen"], { uid: true })
          options.log?.info({ inbound: "imap", outcome: outcome._tag }, "mail received")
          handled++
        }
      } finally {
        lock.release()
      }
    } finally {
      await client.logout().catch(() => undefined)
    }
    return handled
  }

  const pollNow = () => {
    running ??= poll().finally(() => {
      running = undefined
    })
    return running
  }
  const tick = () => {
    if (stopped) return
    pollNow().catch((e: unknown) => options.log?.warn({ inbound: "imap", error: String((e as Error).message ?? e) }, "imap poll failed"))
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, options.intervalMs)
      })
  }
  tick()
  return {
    pollNow,
    stop: async () => {
      stopped = true
      if (timer !== undefined) clearTimeout(timer)
      await running?.catch(() => undefined)
    }
  }
}
