import { Attachments, FileStorage, type FileStorageService, Scheduler, Store, type StoreService } from "@convene/core"
import { Duration, Effect, Fiber, Schedule } from "effect"
import { withLog } from "./observe/log.js"
import { silentTelemetry, type TelemetryService } from "./observe/telemetry.js"

export interface RunningScheduler {
  readonly stop: () => Promise<void>
}

/** The scheduler of the serve process (CONVENE_SCHEDULER_INTERVAL_MS, default 60 s). */
export const startScheduler = (store: StoreService, intervalMs = 60_000, telemetry: TelemetryService = silentTelemetry(), files?: FileStorageService): RunningScheduler => {
  const loop = Scheduler.schedulerLoop(intervalMs, (report) => telemetry.metrics?.schedulerRan(report))
  // uploads no record took within a day, with their bytes (decisions §14), beside the core's jobs
  const filesLoop = files === undefined ? Effect.never : Attachments.purgeUnattached().pipe(
    Effect.tap((purged) => purged.attachments + purged.blobs > 0 ? Effect.logInfo("unattached files purged", { ...purged }) : Effect.void),
    Effect.catchAllDefect((d) => Effect.logError("purging unattached files failed", { err: String(d) })),
    Effect.repeat(Schedule.spaced(Duration.millis(intervalMs))),
    Effect.provideService(FileStorage, files)
  )
  const fiber = Effect.runFork(Effect.zip(loop, filesLoop, { concurrent: true }).pipe(Effect.provideService(Store, store), withLog(telemetry.log)))
  return { stop: () => Effect.runPromise(Fiber.interrupt(fiber)).then(() => undefined) }
}
