/**
 * What a runner remembers of a request's (PostgreSQL) or a turn's (SQLite) reads, once it has decided where a read may
 * be remembered (`into`; undefined: nowhere, as inside a transaction). Both runners remember alike (store/client.ts
 * `remembered`, `rememberBeside`). "Kept" means what Loomio means by it (not discarded), never this.
 */
import { Effect } from "effect"

type Remembered = Map<string, unknown>

/** The answer remembered under `key`, else `read`'s, remembered. */
export const rememberedRead = <A>(into: Remembered | undefined, key: string, read: Effect.Effect<A>): Effect.Effect<A> => {
  if (into === undefined) return read
  if (into.has(key)) return Effect.succeed(into.get(key) as A)
  return Effect.tap(read, (value) => void into.set(key, value))
}

/** Values read beside another, each remembered unless one is already. */
export const rememberEntries = (into: Remembered | undefined, entries: () => ReadonlyArray<readonly [string, unknown]>): Effect.Effect<void> => {
  if (into !== undefined) for (const [key, value] of entries()) if (!into.has(key)) into.set(key, value)
  return Effect.void
}
