import type Database from "better-sqlite3"
import type { Stmt } from "./db.js"

/**
 * Rows read on nearly every request that rarely change (a key's owner, a user's memberships, the people a
 * document names), kept in this process. An entry is trusted while nothing was committed since it was
 * checked (`PRAGMA data_version`, free to ask); after a commit, while the table's epoch in `cache_epochs`
 * (migrations 015, 018: moved by a trigger on any change to a row, from any process) stands still. Past
 * `max` entries it starts again empty.
 * The read connection is in a transaction only for its turn's shared snapshot of committed data.
 */
export const epochCache = <K, V>(epochName: string, max: number) => {
  const entries = new Map<K, V>()
  let stamp = ""
  let epoch = -1
  const fresh = (s: Stmt) => {
    // data_version moves with other connections' commits, total_changes() with this connection's own (an
    // in-memory database has one connection for both); one prepared statement for both
    const { v, n } = s(`SELECT (SELECT data_version FROM pragma_data_version) AS v, total_changes() AS n`).get() as { v: number; n: number }
    const now = `${v}:${n}`
    if (now === stamp) return
    stamp = now
    const current = (s(`SELECT value FROM cache_epochs WHERE name = ?`).get(epochName) as { value: number }).value
    if (current !== epoch) {
      entries.clear()
      epoch = current
    }
  }
  const get = (s: Stmt, key: K): V | undefined => {
    fresh(s)
    return entries.get(key)
  }
  return {
    /**
     * The answer for `key`: kept, or `load`'s. Inside a write transaction (its uncommitted writes are not
     * what the cache follows) `load` answers and nothing is kept.
     */
    through: <L extends V | undefined>(db: Database.Database, s: Stmt, key: K, load: () => L): V | L => {
      const writing = db.inTransaction && !db.readonly
      const cached = writing ? undefined : get(s, key)
      if (cached !== undefined) return cached
      const found = load()
      if (found !== undefined && !writing) {
        if (entries.size >= max) entries.clear()
        entries.set(key, found)
      }
      return found
    },
    /** `through` for many keys at once: the kept ones, and `load`'s answer for the others, in one call. */
    many: (db: Database.Database, s: Stmt, keys: ReadonlyArray<K>, load: (missing: ReadonlyArray<K>) => ReadonlyArray<readonly [K, V]>): Array<V> => {
      if (db.inTransaction && !db.readonly) return load([...new Set(keys)]).map(([, v]) => v)
      fresh(s)
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
