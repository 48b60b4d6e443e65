/**
 * Mail, pure: when a failed send is tried again (decisions §5: 1 min, 5 min, 30 min, 2 h, 12 h, then dead),
 * and what a message from the outbox looks like on the wire: both parts, the link to what it concerns, the
 * headers that keep auto-replies away, the sender shown as "<actor> via convene".
 */
import type { MailMessage } from "../domain/records.js"
import { escapeHtml, mailMarkdownToHtml } from "./markdown.js"

/** Notifications can be unsubscribed from (per group); invitations and sign-in codes cannot. */
const NOTIFICATIONS = new Set([
  "new_discussion", "discussion_edited", "comment_replied_to", "poll_created", "poll_edited", "poll_closing_soon", "outcome_review_due", "outcome_created",
  "new_comment", "stance_created", "user_mentioned"
])
export const isNotification = (kind: string): boolean => NOTIFICATIONS.has(kind)

export const MAIL_RETRY_DELAYS_MS: ReadonlyArray<number> = [60_000, 300_000, 1_800_000, 7_200_000, 43_200_000]

export interface MailSite {
  /** BASE_URL, links are made from it */
  readonly baseUrl: string
  /** MAIL_FROM, the address every message is sent from */
  readonly from: string
  readonly name: string
}

export interface OutgoingMail {
  readonly from: { readonly name: string; readonly address: string }
  readonly to: string
  readonly subject: string
  readonly text: string
  readonly html: string
  readonly headers: Readonly<Record<string, string>>
  /** the same for every attempt at one message, so a receiver can spot a repeat after a crash */
  readonly messageId: string
  /** a calendar invitation, sent as `meeting.ics` (RFC 5545, METHOD:REQUEST) */
  readonly calendar?: string
}

/** MAIL_FROM's default: notifications@ the host of BASE_URL. */
export const defaultMailFrom = (baseUrl: string): string => {
  // a BASE_URL that is not a URL is warned about at start (configWarnings); mail still gets a sender
  const host = URL.canParse(baseUrl) ? new URL(baseUrl).hostname : ""
  return `notifications@${host || "localhost"}`
}


/** The catalog words a message's frame needs (core/src/messages), in its recipient's language. */
type MailWord = "mail.action.group_invitation" | "mail.action.thread_invitation" | "mail.action.vote" | "mail.action.outcome_review_due" | "mail.action.open" | "mail.stop" | "mail.replyHint" | "mail.lang"
export type MailWords = (key: MailWord) => string

/** The words of the button that leads to what a message concerns. */
const ACTION: Readonly<Record<string, MailWord>> = {
  group_invitation: "mail.action.group_invitation",
  thread_invitation: "mail.action.thread_invitation",
  poll_invitation: "mail.action.vote",
  poll_created: "mail.action.vote",
  poll_edited: "mail.action.vote",
  poll_closing_soon: "mail.action.vote",
  poll_reminder: "mail.action.vote",
  outcome_review_due: "mail.action.outcome_review_due"
}

/**
 * A message as it is sent: its secrets made; for a notification the path that unsubscribes from its group, and
 * the address a reply goes to (`reply+TOKEN@REPLY_HOSTNAME`) when replies by e-mail are on.
 */
export type SendableMail = MailMessage & { readonly unsubscribePath?: string; readonly replyTo?: string }

export const renderMail = (m: SendableMail, site: MailSite, actorName: string | null, t: MailWords): OutgoingMail => {
  const link = m.path === null ? null : new URL(m.path, site.baseUrl).toString()
  const unsubscribe = m.unsubscribePath === undefined ? undefined : new URL(m.unsubscribePath, site.baseUrl).toString()
  const action = t(ACTION[m.kind] ?? "mail.action.open")
  const stop = t("mail.stop")
  const hint = m.replyTo === undefined ? undefined : t("mail.replyHint")
  const text = (link === null ? m.body : `${m.body}\n\n${action}: ${link}\n`) +
    (hint === undefined ? "" : `\n${hint}\n`) +
    (unsubscribe === undefined ? "" : `\n${stop}: ${unsubscribe}\n`)
  const button = link === null
    ? ""
    : `<p><a href="${escapeHtml(link)}" style="display:inline-block;padding:8px 16px;background:#2d5b8a;color:#fff;text-decoration:none;border-radius:4px">${escapeHtml(action)}</a></p>`
  // the language and a title, for screen readers reading the HTML part
  const html = `<!doctype html><html lang="${escapeHtml(t("mail.lang"))}"><head><meta charset="utf-8"><title>${escapeHtml(m.subject)}</title></head>` +
    `<body style="font-family:sans-serif;line-height:1.5">${mailMarkdownToHtml(m.body)}${button}` +
    (hint === undefined ? "" : `<p>${escapeHtml(hint)}</p>`) +
    `<p style="color:#666;font-size:small">${escapeHtml(site.name)}` +
    (unsubscribe === undefined ? "" : ` · <a href="${escapeHtml(unsubscribe)}">${escapeHtml(stop)}</a>`) +
    `</p></body></html>`
  return {
    from: { name: actorName === null ? site.name : `${actorName} via ${site.name}`, address: site.from },
    to: m.recipient_email,
    subject: m.subject,
    text,
    html,
    headers: {
      "Auto-Submitted": "auto-generated",
      "X-Auto-Response-Suppress": "OOF, AutoReply",
      Precedence: "bulk",
      // RFC 8058 one-click: mail clients POST "List-Unsubscribe=One-Click" to the link
      ...(unsubscribe === undefined ? {} : { "List-Unsubscribe": `<${unsubscribe}>`, "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" }),
      ...(m.replyTo === undefined ? {} : { "Reply-To": m.replyTo })
    },
    messageId: `<outbox-${m.id}.${m.created_at.replace(/[^0-9]/g, "")}@${new URL(site.baseUrl).hostname}>`,
    ...(m.calendar == null ? {} : { calendar: m.calendar })
  }
}
