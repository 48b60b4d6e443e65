import { Effect } from "effect"
import type { Id, LiveEvent } from "../domain/records.js"
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

/**
 * Tells the live pages (decisions §13) where something happened: a thread, or one person's notifications. Call inside
 * the writing transaction: pages hear of it when the write commits, never of a write rolled back.
 */
export const tellLive = (kind: LiveEvent["kind"], where: { readonly group_id?: Id | null; readonly topic_id?: Id | null; readonly user_id?: Id | null }): Effect.Effect<void, never, Store> =>
  Effect.flatMap(Store, (store) =>
    Effect.flatMap(nowIso, (created_at) =>
      store.live.append({ kind, group_id: where.group_id ?? null, topic_id: where.topic_id ?? null, user_id: where.user_id ?? null, created_at })))
