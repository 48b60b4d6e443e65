/** The webhook delivery queue: claim due deliveries, record outcomes with retry and backoff, inspect state. */
import { Clock, Effect } from "effect"
import type { Id, Page } from "../domain/records.js"
import type { Chatbot, Delivery, DeliveryStatus, EventKind, WebhookEvent } from "../domain/webhooks.js"
import type { DeliveryFilter } from "../ports/webhooks.js"
import { Store } from "../ports/store.js"
import { afterFailure } from "../rules/deliveries.js"

export interface DueDelivery {
  readonly delivery: Delivery
  readonly event: WebhookEvent
  readonly chatbot: Chatbot
}

const iso = (ms: number) => new Date(ms).toISOString()

/**
 * Claims up to `limit` due deliveries for `leaseMs`. A claim that is never recorded (the process died
 * mid-send) expires and the delivery is tried again: at least once, never twice on purpose.
 */
export const claimDeliveries = Effect.fnUntraced(function*(limit: number, leaseMs: number): Effect.fn.Return<ReadonlyArray<DueDelivery>, never, Store> {
  const store = yield* Store
  const now = yield* Clock.currentTimeMillis
  return yield* store.transaction(Effect.gen(function*() {
    const claimed = yield* store.deliveries.claimDue(iso(now), iso(now + leaseMs), limit)
    const events = new Map((yield* store.events.byIds([...new Set(claimed.map((d) => d.event_id))])).map((e) => [e.id, e]))
    const out: Array<DueDelivery> = []
    for (const delivery of claimed) {
      const chatbot = yield* store.chatbots.byId(delivery.chatbot_id)
      const event = events.get(delivery.event_id)
      if (chatbot !== undefined && event !== undefined) out.push({ delivery, event, chatbot })
    }
    return out
  }))
})

export type DeliveryOutcome =
  | { readonly ok: true; readonly status: number }
  | { readonly ok: false; readonly status: number | null; readonly error: string }

export const recordDelivery = Effect.fnUntraced(function*(
  delivery: Delivery,
  outcome: DeliveryOutcome,
  retryDelaysMs: ReadonlyArray<number>
): Effect.fn.Return<DeliveryStatus | "gone", never, Store> {
  const store = yield* Store
  const now = yield* Clock.currentTimeMillis
  const attempts = delivery.attempts + 1
  return yield* store.transaction(Effect.gen(function*() {
    // the chatbot may have been deleted meanwhile (its deliveries went with it)
    if ((yield* store.deliveries.byId(delivery.id)) === undefined) return "gone" as const
    if (outcome.ok) {
      yield* store.deliveries.record(delivery.id, {
        status: "done", attempts, next_attempt_at: delivery.next_attempt_at, last_status: outcome.status, last_error: null, delivered_at: iso(now)
      })
      return "done" as const
    }
    const next = afterFailure(attempts, now, retryDelaysMs)
    yield* store.deliveries.record(delivery.id, {
      status: next.status,
      attempts,
      next_attempt_at: next.status === "failed" ? iso(next.nextAttemptMs) : delivery.next_attempt_at,
      last_status: outcome.status,
      last_error: outcome.error.slice(0, 500),
      delivered_at: null
    })
    return next.status
  }))
})

/** `convene webhooks redeliver`: failed or dead deliveries by id, or every dead one, due now. */
export const redeliver = Effect.fnUntraced(function*(ids: ReadonlyArray<Id> | undefined) {
  const store = yield* Store
  const now = iso(yield* Clock.currentTimeMillis)
  return yield* store.transaction(store.deliveries.retry(ids, now))
})

export const deliveryBacklog = Effect.flatMap(Store, (s) => s.deliveries.backlog())

export const listDeliveries = (filter: DeliveryFilter, page: Page) => Effect.flatMap(Store, (s) => s.deliveries.list(filter, page))

/** Milliseconds until the next delivery is due (undefined: none waiting). */
export const msUntilNextDue = Effect.gen(function*() {
  const store = yield* Store
  const at = yield* store.deliveries.nextDueAt()
  if (at === undefined) return undefined
  return Math.max(0, Date.parse(at) - (yield* Clock.currentTimeMillis))
})

export type { Id }

/** A delivery as listed, with its event's group and kind. */
export type DeliveryRow = Delivery & { readonly group_id: Id; readonly event_kind: EventKind }
