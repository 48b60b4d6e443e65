import type { Effect } from "effect"
import type { Id, Page } from "../domain/records.js"
import type { OutboxOps } from "./outbox.js"
import type { Chatbot, Delivery, DeliveryStatus, EventKind, WebhookEvent } from "../domain/webhooks.js"

export interface ChatbotsRepo {
  readonly byId: (id: Id) => Effect.Effect<Chatbot | undefined>
  readonly ofGroup: (groupId: Id) => Effect.Effect<ReadonlyArray<Chatbot>>
  readonly insert: (c: Omit<Chatbot, "id" | "updated_at">) => Effect.Effect<Chatbot>
  readonly update: (id: Id, patch: Partial<Omit<Chatbot, "id" | "group_id" | "author_id" | "created_at">> & { updated_at: string }) => Effect.Effect<void>
  /** Deleting a chatbot deletes its undelivered deliveries with it. */
  readonly delete: (id: Id) => Effect.Effect<void>
}

export interface EventsRepo {
  /** The event, and one delivery (due at its time) for each chatbot of its group subscribed to its kind. */
  readonly publish: (e: Omit<WebhookEvent, "id">) => Effect.Effect<WebhookEvent>
  readonly byIds: (ids: ReadonlyArray<Id>) => Effect.Effect<ReadonlyArray<WebhookEvent>>
}

export interface DeliveryFilter {
  readonly group_id?: Id
  readonly status?: DeliveryStatus
}

export interface DeliveriesRepo extends OutboxOps {
  /** Marks up to `limit` due deliveries as claimed until `until` and returns them (oldest first). */
  readonly claimDue: (now: string, until: string, limit: number) => Effect.Effect<ReadonlyArray<Delivery>>
  readonly record: (
    id: Id,
    patch: Pick<Delivery, "status" | "attempts" | "next_attempt_at" | "last_status" | "last_error" | "delivered_at">
  ) => Effect.Effect<void>
  readonly byId: (id: Id) => Effect.Effect<Delivery | undefined>
  readonly list: (filter: DeliveryFilter, page: Page) => Effect.Effect<ReadonlyArray<Delivery & { group_id: Id; event_kind: EventKind }>>
}
