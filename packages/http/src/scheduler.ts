import { Scheduler, Store, type StoreService } from "@convene/core"
import { Effect, Fiber } from "effect"
import { withLog } from "./observe/log.js"
import { silentTelemetry, type TelemetryService } from "./observe/telemetry.js"

export interface RunningScheduler {
  readonly stop: () => Promise<void>
}

/** The scheduler of the serve process (CONVENE_SCHEDULER_INTERVAL_MS, default 60 s). */
export const startScheduler = (store: StoreService, intervalMs = 60_000, telemetry: TelemetryService = silentTelemetry()): RunningScheduler => {
  const loop = Scheduler.schedulerLoop(intervalMs, (report) => telemetry.metrics?.schedulerRan(report))
  const fiber = Effect.runFork(loop.pipe(Effect.provideService(Store, store), withLog(telemetry.log)))
  return { stop: () => Effect.runPromise(Fiber.interrupt(fiber)).then(() => undefined) }
}
