/**
 * Webhook messages: pure functions from an event's message to each format's JSON
 * (spec: Payload formats; Loomio's shapes in reference/loomio-domain.md §6).
 */
import { markdownToHtml } from "./markdown.js"
import type { Chatbot, EventKind, EventMessage, WebhookKind } from "../domain/webhooks.js"

export interface Site {
  /** BASE_URL without a trailing slash */
  readonly baseUrl: string
  readonly name: string
  readonly themeColor: string
}

export interface OutgoingRequest {
  readonly method: "POST" | "PUT"
  readonly url: string
  readonly body: Record<string, unknown>
}

/** Loomio's `notifications.without_title.<kind>` wording: who did what, in one line. */
export const headlineFor = (kind: EventKind, actor: string, pollType = "poll"): string => {
  switch (kind) {
    case "new_discussion": return `${actor} started a discussion`
    case "discussion_edited": return `${actor} edited a discussion`
    case "new_comment": return `${actor} commented`
    case "poll_created": return `${actor} started a ${pollType}`
    case "poll_edited": return `${actor} edited a ${pollType}`
    case "poll_closing_soon": return `A ${pollType} is closing soon`
    case "poll_expired": return `A ${pollType} has closed`
    case "poll_closed_by_user": return `${actor} closed a ${pollType}`
    case "poll_reopened": return `${actor} reopened a ${pollType}`
    case "outcome_created": return `${actor} shared an outcome`
    case "outcome_updated": return `${actor} updated an outcome`
    case "outcome_review_due": return `An outcome is due for review`
    case "stance_created": return `${actor} voted`
    case "stance_updated": return `${actor} changed their vote`
    case "discussion_moved": return `${actor} moved a discussion here`
    case "membership_requested": return `${actor} asked to join`
  }
}

const oneLine = (s: string) => s.replace(/\s+/g, " ").trim()
const escapeLinkText = (s: string) => s.replace(/([\\[\]])/g, "\\$1")
const link = (m: EventMessage, site: Site) => site.baseUrl + m.path

/** The one-line message with a link (markdown). */
export const markdownLine = (m: EventMessage, site: Site) =>
  `${oneLine(m.headline)}: [${escapeLinkText(oneLine(m.title))}](${link(m, site)})`

/** The whole message in markdown; only the headline line when `notification_only`. */
export const markdownText = (m: EventMessage, site: Site, notificationOnly: boolean) => {
  const parts = [markdownLine(m, site)]
  if (m.recipient_message) parts.push(m.recipient_message)
  if (!notificationOnly && m.body) parts.push(m.body)
  return parts.join("\n\n")
}

/** Slack mrkdwn: `<url|text>` links, `*bold*`. */
const slackText = (m: EventMessage, site: Site, notificationOnly: boolean) => {
  const title = oneLine(m.title).replace(/[<>|]/g, "")
  const parts = [`${oneLine(m.headline)}: <${link(m, site)}|${title}>`]
  if (m.recipient_message) parts.push(m.recipient_message)
  if (!notificationOnly && m.body) parts.push(m.body.replace(/\*\*(.+?)\*\*/g, "*$1*").replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, "<$2|$1>"))
  return parts.join("\n\n")
}

export const DISCORD_LIMIT = 1900
const TRUNCATED = "… (truncated)"

/**
 * Cuts text to at most `limit` characters (code points, so no multi-byte character is split) and never
 * inside a markdown link: a link that would be cut is dropped whole.
 */
export const truncateMarkdown = (text: string, limit = DISCORD_LIMIT): string => {
  const chars = Array.from(text)
  if (chars.length <= limit) return text
  const keep = limit - Array.from(TRUNCATED).length
  let cut = chars.slice(0, keep).join("")
  // a link whose "[...](...)" starts before the cut but ends after it is removed from its "["
  const links = /\[(?:[^\]\\]|\\.)*\]\([^)\s]*\)/g
  const open = cut.lastIndexOf("[")
  if (open >= 0) {
    links.lastIndex = 0
    let complete = false
    for (let m = links.exec(text); m !== null; m = links.exec(text)) {
      if (m.index === open) {
        complete = m.index + m[0].length <= cut.length
        break
      }
    }
    if (!complete) cut = cut.slice(0, open)
  }
  return cut.trimEnd() + TRUNCATED
}

/** The request to send for one event and one chatbot. */
export const renderDelivery = (chatbot: Chatbot, m: EventMessage, site: Site, txnId: string): OutgoingRequest => {
  const only = chatbot.notification_only
  if (chatbot.kind === "matrix") {
    const text = markdownText(m, site, only)
    const url = new URL(chatbot.server)
    url.pathname = `${url.pathname.replace(/\/$/, "")}/${encodeURIComponent(txnId)}`
    return {
      method: "PUT",
      url: url.toString(),
      body: { msgtype: "m.text", body: text, format: "org.matrix.custom.html", formatted_body: markdownToHtml(text) }
    }
  }
  return { method: "POST", url: chatbot.server, body: formatWebhook(chatbot.webhook_kind ?? "markdown", m, site, only) }
}

export const formatWebhook = (kind: WebhookKind, m: EventMessage, site: Site, notificationOnly: boolean): Record<string, unknown> => {
  switch (kind) {
    case "markdown":
      // the spec's markdown `text` is one line with a link
      return { text: markdownLine(m, site), icon_url: site.baseUrl, username: site.name }
    case "slack":
      return { text: slackText(m, site, notificationOnly) }
    case "discord":
      return { content: truncateMarkdown(markdownText(m, site, notificationOnly)), username: site.name }
    case "microsoft":
      return {
        "@type": "MessageCard",
        "@context": "http://schema.org/extensions",
        themeColor: site.themeColor,
        text: markdownText(m, site, notificationOnly),
        sections: []
      }
    case "webex":
      return { markdown: markdownText(m, site, notificationOnly) }
  }
}

/** The `chatbots/check` message: plain enough for every format that reads `text`. */
export const testMessage = (site: Site) => ({ text: `${site.name}: connection test successful` })
