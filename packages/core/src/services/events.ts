import { Effect } from "effect"
import type { Id } from "../domain/records.js"
import type { EventKind, EventMessage } from "../domain/webhooks.js"
import { Store } from "../ports/store.js"
import { nowIso } from "./common.js"

export interface NewEvent {
  readonly kind: EventKind
  /** null for threads outside any group: no group, no webhooks */
  readonly group_id: Id | null
  readonly actor_id: Id | null
  readonly eventable_type: string
  readonly eventable_id: Id
  readonly message: EventMessage
}

/**
 * Writes the event to the outbox and one delivery per chatbot of the group subscribed to its kind.
 * Call it inside the transaction of the change that causes the event: both commit, or neither does.
 */
export const publishEvent = Effect.fnUntraced(function*(e: NewEvent): Effect.fn.Return<void, never, Store> {
  if (e.group_id === null) return
  const store = yield* Store
  const now = yield* nowIso
  yield* store.events.publish(Object.assign({}, e, { group_id: e.group_id, created_at: now }))
})
