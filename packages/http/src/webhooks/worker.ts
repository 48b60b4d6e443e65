/**
 * The webhook delivery worker: claims due deliveries from the outbox, renders each for its chatbot,
 * checks the destination again at send time, sends, and records the outcome (retry with backoff, then dead).
 * At most `concurrency` requests are in flight, so one slow receiver never holds up the others.
 */
import { checkDestination, Deliveries, nodeUrlPolicy, Rules, Store, type StoreService, UrlPolicy } from "@convene/core"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { type OutboxWorker, startOutboxLoop } from "../outbox.js"
import { sendJson, WEBHOOK_TIMEOUT_MS } from "./send.js"
import { site } from "./site.js"
import { silentTelemetry, type TelemetryService } from "../observe/telemetry.js"

export interface WorkerOptions {
  readonly store: StoreService
  readonly baseUrl: string
  readonly allowPrivateWebhooks: boolean
  readonly concurrency?: number
  readonly pollMs?: number
  readonly retryDelaysMs?: ReadonlyArray<number>
  readonly timeoutMs?: number
  readonly telemetry?: TelemetryService
}

export type DeliveryWorker = OutboxWorker

export const startDeliveryWorker = (options: WorkerOptions): DeliveryWorker => {
  const concurrency = options.concurrency ?? 8
  const pollMs = options.pollMs ?? 200
  const retryDelays = options.retryDelaysMs ?? Rules.DEFAULT_RETRY_DELAYS_MS
  const timeoutMs = options.timeoutMs ?? WEBHOOK_TIMEOUT_MS
  // a claim outlives the longest possible attempt, so a live worker never loses its claim
  const leaseMs = timeoutMs * 4 + 10_000
  const policy = nodeUrlPolicy(options.allowPrivateWebhooks)
  const theSite = site(options.baseUrl)
  const { log, metrics } = options.telemetry ?? silentTelemetry()
  const run = <A>(effect: Effect.Effect<A, never, Store | UrlPolicy>) =>
    Effect.runPromise(effect.pipe(Effect.provideService(Store, options.store), Effect.provideService(UrlPolicy, policy)))

  const deliver = async (due: Deliveries.DueDelivery) => {
    const checked = await run(Effect.either(checkDestination(due.chatbot.server)))
    const outcome = checked._tag === "Left"
      ? { ok: false as const, status: null, error: `destination refused: ${checked.left}` }
      : await sendJson(checked.right, Rules.renderDelivery(due.chatbot, due.event.message, theSite, randomUUID()), timeoutMs)
    const result = await run(Deliveries.recordDelivery(due.delivery, outcome, retryDelays))
    metrics?.delivered("webhook", result)
    // the chatbot's address may carry a secret (a Slack or Matrix token in its path): it is not logged
    log[result === "done" ? "debug" : "info"](
      { delivery_id: due.delivery.id, chatbot_id: due.chatbot.id, event_kind: due.event.kind, result, status: outcome.status, ...(outcome.ok ? {} : { error: outcome.error }) },
      "webhook delivery"
    )
  }
  return startOutboxLoop({
    name: "webhook worker",
    log,
    concurrency,
    pollMs,
    claim: (free) => run(Deliveries.claimDeliveries(free, leaseMs)),
    deliver,
    nextDueMs: () => run(Deliveries.msUntilNextDue)
  })
}
