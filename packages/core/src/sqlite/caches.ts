import type Database from "better-sqlite3"

/**
 * Rows read on nearly every request that rarely change (a key's owner, a user's memberships), kept in this
 * process. An entry is trusted while nothing was committed since it was checked (`PRAGMA data_version`,
 * free to ask); after a commit, while the table's epoch in `cache_epochs` (migrations 015, 018: moved by a
 * trigger on any change to a row, from any process) stands still. Past `max` entries it starts again empty.
 * Read on the read connection's snapshot of committed data only: inside a write transaction the caller
 * reads the table itself.
 */
export const epochCache = <K, V>(epochName: string, max: number) => {
  const entries = new Map<K, V>()
  let stamp = ""
  let epoch = -1
  const fresh = (s: (sql: string) => Database.Statement) => {
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
  return {
    get: (s: (sql: string) => Database.Statement, key: K): V | undefined => {
      fresh(s)
      return entries.get(key)
    },
    set: (key: K, value: V) => {
      if (entries.size >= max) entries.clear()
      entries.set(key, value)
    }
  }
}
