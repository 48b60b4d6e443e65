/**
 * The loop both delivery workers run (webhooks and mail): claim what is due, hand each claimed item to
 * `deliver` with at most `concurrency` in flight, look again when one finishes or the next item falls
 * due, and on stop wait for what is in flight. Claims, recording and backoff are the core's.
 */
import type { Log } from "./observe/log.js"

export interface OutboxLoop<A> {
  readonly name: string
  readonly log: Log
  readonly concurrency: number
  readonly pollMs: number
  /** claims up to `free` due items */
  readonly claim: (free: number) => Promise<ReadonlyArray<A>>
  /** sends one item and records the outcome */
  readonly deliver: (item: A) => Promise<void>
  /** how long until the next item falls due (undefined: nothing waits); the loop sleeps at most pollMs */
  readonly nextDueMs?: () => Promise<number | undefined>
  /** called once the loop has stopped and nothing is in flight */
  readonly onStopped?: () => void
}

export interface OutboxWorker {
  /** Look for due items now (after a write) rather than at the next poll. */
  readonly kick: () => void
  /** Stops claiming; resolves when the items in flight have been recorded. */
  readonly stop: () => Promise<void>
  readonly stopped: () => boolean
}

export const startOutboxLoop = <A>(loop: OutboxLoop<A>): OutboxWorker => {
  const inFlight = new Set<Promise<void>>()
  let stopped = false
  let timer: NodeJS.Timeout | undefined
  let ticking = false
  /** the tick under way: its claim may still be on its way back from the database */
  let current: Promise<void> = Promise.resolve()

  const schedule = (ms: number) => {
    if (stopped) return
    if (timer) clearTimeout(timer)
    timer = setTimeout(() => void (current = tick()), ms)
    timer.unref()
  }

  const tick = async () => {
    if (stopped || ticking) return
    ticking = true
    let next = loop.pollMs
    try {
      const free = loop.concurrency - inFlight.size
      if (free > 0) {
        for (const item of await loop.claim(free)) {
          const p: Promise<void> = loop.deliver(item)
            .catch((e) => loop.log.error({ worker: loop.name, err: (e as Error).message }, "an outcome could not be recorded"))
            .finally(() => {
              inFlight.delete(p)
              schedule(0)
            })
          inFlight.add(p)
        }
      }
      const wait = loop.nextDueMs === undefined ? undefined : await loop.nextDueMs()
      if (wait !== undefined) next = Math.min(loop.pollMs, Math.max(wait, 10))
    } catch (e) {
      loop.log.error({ worker: loop.name, err: (e as Error).message }, "worker tick failed")
    } finally {
      ticking = false
      schedule(next)
    }
  }

  schedule(0)
  return {
    kick: () => schedule(0),
    stopped: () => stopped,
    stop: async () => {
      stopped = true
      if (timer) clearTimeout(timer)
      await current
      await Promise.allSettled([...inFlight])
      loop.onStopped?.()
    }
  }
}
