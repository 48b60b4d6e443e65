/**
 * Rows read on nearly every request that rarely change (a key's owner, a user's memberships, the people a
 * document names), cached in this process. An entry is trusted while the table's epoch in `cache_epochs` (moved
 * by a trigger on any change to a row, from any process) stands still, as the reading connection sees it
 * (`SqlClient.epochs`, read once per snapshot). Past `max` entries it starts again empty. Where the client
 * answers no epochs (inside a write transaction, or a store that keeps none) every answer is read.
 */
import { Effect } from "effect"
import type { SqlClient } from "./client.js"

export interface EpochCache<K, V> {
  /** The answer for `key`: cached, or `load`'s (cached when found). */
  readonly through: <L extends V | undefined>(key: K, load: Effect.Effect<L>) => Effect.Effect<V | L>
  /** `through` for many keys at once: the cached ones, and `load`'s answer for the others. */
  readonly many: (keys: ReadonlyArray<K>, load: (missing: ReadonlyArray<K>) => Effect.Effect<ReadonlyArray<readonly [K, V]>>) => Effect.Effect<Array<V>>
}

export const epochCache = <K, V>(client: SqlClient, epochName: string, max: number): EpochCache<K, V> => {
  const entries = new Map<K, V>()
  let epoch: number | undefined = -1
  /**
   * The epoch the caller read, when entries may be used now (emptied when it moved); undefined when they may not.
   * A row loaded under one epoch is cached only if the entries still follow that epoch when it arrives: a read may
   * wait (PostgreSQL), meanwhile another request may have read a later epoch, and an older row filed under
   * the later epoch would be trusted until the next change.
   */
  const usable = Effect.map(client.epochs, (epochs) => {
    if (epochs === undefined) return undefined
    const current = epochs.get(epochName)
    if (current !== epoch) {
      entries.clear()
      epoch = current
    }
    return { at: current }
  })
  const stillAt = (at: { at: number | undefined }) => at.at === epoch
  return {
    through: <L extends V | undefined>(key: K, load: Effect.Effect<L>) =>
      Effect.flatMap(usable, (at): Effect.Effect<V | L> => {
        if (at === undefined) return load
        const cached = entries.get(key)
        if (cached !== undefined) return Effect.succeed(cached)
        return Effect.tap(load, (found) => {
          if (found === undefined || !stillAt(at)) return
          if (entries.size >= max) entries.clear()
          entries.set(key, found as V)
        })
      }),
    many: (keys, load) =>
      Effect.flatMap(usable, (at) => {
        const unique = [...new Set(keys)]
        if (at === undefined) return Effect.map(load(unique), (found) => found.map(([, v]) => v))
        const out: Array<V> = []
        const missing: Array<K> = []
        for (const key of unique) {
          const v = entries.get(key)
          if (v === undefined) missing.push(key)
          else out.push(v)
        }
        if (missing.length === 0) return Effect.succeed(out)
        return Effect.map(load(missing), (found) => {
          const keep = stillAt(at)
          if (keep && entries.size + missing.length > max) entries.clear()
          for (const [k, v] of found) {
            if (keep) entries.set(k, v)
            out.push(v)
          }
          return out
        })
      })
  }
}
