import { Scheduler, Store, type StoreService } from "@convene/core"
import { Effect, Fiber } from "effect"

export interface RunningScheduler {
  readonly stop: () => Promise<void>
}

/** The scheduler of the serve process (CONVENE_SCHEDULER_INTERVAL_MS, default 60 s). */
export const startScheduler = (store: StoreService, intervalMs = 60_000): RunningScheduler => {
  const fiber = Effect.runFork(Scheduler.schedulerLoop(intervalMs).pipe(Effect.provideService(Store, store)))
  return { stop: () => Effect.runPromise(Fiber.interrupt(fiber)).then(() => undefined) }
}
