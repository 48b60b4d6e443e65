import type Database from "better-sqlite3"
import type { Runner, Stmt } from "./db.js"

/**
 * Rows read on nearly every request that rarely change (a key's owner, a user's memberships, the people a
 * document names), kept in this process. An entry is trusted while the table's epoch in `cache_epochs`
 * (migrations 015, 018: moved by a trigger on any change to a row, from any process) stands still, as the
 * reading connection sees it: within the turn's shared snapshot the epochs are read once, for every cache
 * (db.ts `epochs`). Past `max` entries it starts again empty.
 */
export const epochCache = <K, V>(epochsOf: Runner["epochs"], epochName: string, max: number) => {
  const entries = new Map<K, V>()
  let epoch: number | undefined = -1
  const fresh = (db: Database.Database, s: Stmt) => {
    const current = epochsOf(db, s).get(epochName)
    if (current !== epoch) {
      entries.clear()
      epoch = current
    }
  }
  const get = (db: Database.Database, s: Stmt, key: K): V | undefined => {
    fresh(db, s)
    return entries.get(key)
  }
  // a write transaction's uncommitted rows are not what the cache follows
  const writing = (db: Database.Database) => db.inTransaction && !db.readonly
  return {
    /**
     * The answer for `key`: kept, or `load`'s. Inside a write transaction (its uncommitted writes are not
     * what the cache follows) `load` answers and nothing is kept.
     */
    through: <L extends V | undefined>(db: Database.Database, s: Stmt, key: K, load: () => L): V | L => {
      const inWrite = writing(db)
      const cached = inWrite ? undefined : get(db, s, key)
      if (cached !== undefined) return cached
      const found = load()
      if (found !== undefined && !inWrite) {
        if (entries.size >= max) entries.clear()
        entries.set(key, found)
      }
      return found
    },
    /** `through` for many keys at once: the kept ones, and `load`'s answer for the others, in one call. */
    many: (db: Database.Database, s: Stmt, keys: ReadonlyArray<K>, load: (missing: ReadonlyArray<K>) => ReadonlyArray<readonly [K, V]>): Array<V> => {
      if (writing(db)) return load([...new Set(keys)]).map(([, v]) => v)
      fresh(db, s)
      const out: Array<V> = []
      const missing: Array<K> = []
      for (const key of new Set(keys)) {
        const v = entries.get(key)
        if (v === undefined) missing.push(key)
        else out.push(v)
      }
      if (missing.length === 0) return out
      if (entries.size + missing.length > max) entries.clear()
      for (const [k, v] of load(missing)) {
        entries.set(k, v)
        out.push(v)
      }
      return out
    }
  }
}
