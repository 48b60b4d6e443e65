/** Mail that reaches convene (decisions §11): which messages are automatic, whose reply address a recipient is, which message a message is; pure. */
import { createHash } from "node:crypto"

/**
 * An automatic message (never posted): `Auto-Submitted` other than `no` (RFC 3834), Microsoft's and others'
 * auto-reply marks, a bulk or junk precedence, a delivery report (a bounce), or the empty return path of one.
 */
export const isAutomatic = (headers: ReadonlyMap<string, string>, from: string | null): boolean => {
  const h = (name: string) => (headers.get(name) ?? "").trim().toLowerCase()
  if (h("auto-submitted") !== "" && h("auto-submitted") !== "no") return true
  if (headers.has("x-autoreply") || headers.has("x-autorespond") || headers.has("x-auto-response-suppress") && /all|oof|autoreply/.test(h("x-auto-response-suppress"))) return true
  if (/^(bulk|junk|list|auto_reply)$/.test(h("precedence"))) return true
  if (h("content-type").startsWith("multipart/report")) return true
  if (h("return-path") === "<>") return true
  const sender = (from ?? "").toLowerCase()
  return /^(mailer-daemon|postmaster)@/.test(sender)
}

/** The token of a reply address `reply+TOKEN@host` on this server's reply host, else undefined. */
export const replyTokenOf = (address: string, replyHost: string): string | undefined => {
  const m = /^reply\+([A-Za-z0-9_-]{16,64})@(.+)$/i.exec(address.trim())
  return m !== null && m[2]!.toLowerCase() === replyHost.toLowerCase() ? m[1] : undefined
}

/**
 * What a message is recognised by when it comes again (decisions §5): its Message-ID, compared without angle
 * brackets and case (`<M5@X>` is `m5@x`); a message without one, by a hash of its sender, its Date header and its text.
 */
export const inboundKey = (mail: { readonly messageId: string | null; readonly from: string | null; readonly headers: ReadonlyMap<string, string>; readonly body: string }): string => {
  const id = (mail.messageId ?? "").trim().replace(/^<+|>+$/g, "").trim().toLowerCase()
  if (id !== "") return id.slice(0, 500)
  const hash = createHash("sha256").update(JSON.stringify([(mail.from ?? "").trim().toLowerCase(), (mail.headers.get("date") ?? "").trim(), mail.body]))
  return `sha256:${hash.digest("hex")}`
}
