import { Effect } from "effect"
import type { StoreService } from "../ports/store.js"
import { makeLiveListener, makePgRunner, makePool, migratePg } from "./db.js"
import { makeRepositories } from "../store/index.js"
import { pgClient } from "./client.js"
import { makeReportsRepo, makeSearchRepo } from "./reading.js"

export { isPostgresUrl, PgDatabaseError, pgRowTypes } from "./db.js"
export { migrations as pgMigrations } from "./migrations/index.js"

export interface PgStore extends StoreService {
  readonly close: () => Promise<void>
}

export interface PgStoreOptions {
  /** Connections this process keeps open at most for reads, and as many for writes (default 10 each). */
  readonly poolSize?: number
}

/** Connects to the database named by `url`, migrates it, and returns the Store over a connection pool. */
export const makePgStore = async (url: string, options: PgStoreOptions = {}): Promise<PgStore> => {
  const pool = makePool(url, options.poolSize)
  const writers = makePool(url, options.poolSize, 15_000)
  try {
    await migratePg(pool, url)
  } catch (e) {
    await Promise.all([pool.end(), writers.end()]).catch(() => undefined)
    throw e
  }
  const q = makePgRunner(pool, writers)
  const live = makeLiveListener(url)
  return {
    transaction: q.transaction,
    request: q.request,
    ping: Effect.catchAllDefect(Effect.map(q.get<{ ok: number }>("SELECT 1 AS ok"), (r) => r?.ok === 1), () => Effect.succeed(false)),
    listenLive: live.listen,
    ...makeRepositories(pgClient(q)),
    search: makeSearchRepo(q),
    reports: makeReportsRepo(q),
    close: () => Promise.all([live.close(), q.close()]).then(() => undefined)
  }
}
