import type { Effect } from "effect"
import type { Id } from "../domain/records.js"

/** What waits in an outbox: for metrics, `doctor` and the start-up check. */
export interface OutboxBacklog {
  /** pending or failed (to be tried again) */
  readonly waiting: number
  readonly dead: number
  /** when the oldest waiting item was queued (null: nothing waits) */
  readonly oldest_waiting_at: string | null
}

/** What the webhook and mail outboxes share. */
export interface OutboxOps {
  /** Makes failed or dead items due now (all dead ones when `ids` is undefined); returns how many. */
  readonly retry: (ids: ReadonlyArray<Id> | undefined, now: string) => Effect.Effect<number>
  /** The earliest time an item becomes due, for the worker's sleep. */
  readonly nextDueAt: () => Effect.Effect<string | undefined>
  readonly backlog: () => Effect.Effect<OutboxBacklog>
}
