/** Retry policy of webhook deliveries (decisions.md §1: exponential backoff, then dead). */
export const DEFAULT_RETRY_DELAYS_MS: ReadonlyArray<number> = [30_000, 120_000, 600_000, 3_600_000, 21_600_000]

export type AfterFailure = { readonly status: "failed"; readonly nextAttemptMs: number } | { readonly status: "dead" }

/** After the `attempts`-th failed attempt: retry after the next delay, or give up when none is left. */
export const afterFailure = (attempts: number, nowMs: number, delays: ReadonlyArray<number>): AfterFailure => {
  const delay = delays[attempts - 1]
  return delay === undefined ? { status: "dead" } : { status: "failed", nextAttemptMs: nowMs + delay }
}
