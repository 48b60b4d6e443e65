/**
 * What a runner keeps of a request's (PostgreSQL) or a turn's (SQLite) reads, once it has decided where a read may
 * be kept (`into`; undefined: nowhere, as inside a transaction). Both runners keep alike (store/client.ts `kept`,
 * `keepBeside`).
 */
import { Effect } from "effect"

type Kept = Map<string, unknown>

/** The kept answer under `key`, else `read`'s, kept. */
export const keptRead = <A>(into: Kept | undefined, key: string, read: Effect.Effect<A>): Effect.Effect<A> => {
  if (into === undefined) return read
  if (into.has(key)) return Effect.succeed(into.get(key) as A)
  return Effect.tap(read, (value) => void into.set(key, value))
}

/** Values read beside another, each kept unless one is already. */
export const keepEntries = (into: Kept | undefined, entries: () => ReadonlyArray<readonly [string, unknown]>): Effect.Effect<void> => {
  if (into !== undefined) for (const [key, value] of entries()) if (!into.has(key)) into.set(key, value)
  return Effect.void
}
