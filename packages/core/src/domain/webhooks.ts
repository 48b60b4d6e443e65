import { Schema } from "effect"
import { Id as IdField, model, NullId, Stamp } from "./model.js"
import type { Id } from "./records.js"

/** The subscribable event kinds (spec: Events). */
export const EVENT_KINDS = [
  "new_discussion",
  "discussion_edited",
  "new_comment",
  "poll_created",
  "poll_edited",
  "poll_closing_soon",
  "poll_expired",
  "poll_closed_by_user",
  "poll_reopened",
  "outcome_created",
  "outcome_updated",
  "outcome_review_due",
  "stance_created",
  "stance_updated",
  // beyond the spec's list (decisions §12): a thread moved to another group, and a request to join
  "discussion_moved",
  "membership_requested"
] as const
export type EventKind = (typeof EVENT_KINDS)[number]

export const CHATBOT_KINDS = ["webhook", "matrix"] as const
export type ChatbotKind = (typeof CHATBOT_KINDS)[number]

export const WEBHOOK_KINDS = ["markdown", "slack", "discord", "microsoft", "webex"] as const
export type WebhookKind = (typeof WEBHOOK_KINDS)[number]

export const Chatbot = model("Chatbot", {
  id: IdField,
  group_id: IdField,
  author_id: NullId,
  name: Schema.String,
  kind: Schema.Literal(...CHATBOT_KINDS),
  /** null for matrix, which has its own message format */
  webhook_kind: Schema.NullOr(Schema.Literal(...WEBHOOK_KINDS)),
  server: Schema.String,
  event_kinds: Schema.Array(Schema.Literal(...EVENT_KINDS)),
  notification_only: Schema.Boolean,
  created_at: Stamp,
  updated_at: Stamp
})
export type Chatbot = typeof Chatbot.Type

/**
 * What an event says, composed when the event happens (inside the writing transaction) from what the
 * group's audience may see: anonymous voters are never named, hidden results never included.
 * Formats (markdown, slack …) are applied at delivery time.
 */
export interface EventMessage {
  /** One line of plain text: who did what, e.g. "Ada started a discussion". */
  readonly headline: string
  /** Title of the affected discussion or poll, linked to `path`. */
  readonly title: string
  /** Path of the affected content below BASE_URL, e.g. "/d/Ab12Cd34". */
  readonly path: string
  /** Markdown body (comment text, poll details, vote reason …), left out when notification_only. */
  readonly body: string | null
  /** The actor's message to recipients, if any (plain text). */
  readonly recipient_message: string | null
}

export interface WebhookEvent {
  readonly id: Id
  readonly kind: EventKind
  readonly group_id: Id
  readonly actor_id: Id | null
  readonly eventable_type: string
  readonly eventable_id: Id
  readonly message: EventMessage
  readonly created_at: string
}

/** pending: waiting for its first attempt; failed: waiting to retry; dead: gave up; done: delivered. */
export const DELIVERY_STATUSES = ["pending", "failed", "dead", "done"] as const
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number]

export interface Delivery {
  readonly id: Id
  readonly event_id: Id
  readonly chatbot_id: Id
  readonly status: DeliveryStatus
  readonly attempts: number
  readonly next_attempt_at: string
  readonly claimed_until: string | null
  readonly last_status: number | null
  readonly last_error: string | null
  readonly delivered_at: string | null
  readonly created_at: string
}
