import { Effect } from "effect"
import type { StoreService } from "../ports/store.js"
import { makePgRunner, makePool, migratePg } from "./db.js"
import { makePollOptionsRepo, makePollsRepo, makeStancesRepo, makeOutcomesRepo } from "./polls.js"
import { makeChatbotsRepo, makeDeliveriesRepo, makeEventsRepo, makeMailRepo, makePeopleRepos } from "./outboxes.js"
import { makeReportsRepo, makeSearchRepo } from "./reading.js"
import {
  makeCommentsRepo,
  makeDiscussionsRepo,
  makeGroupsRepo,
  makeItemsRepo,
  makeMembershipsRepo,
  makeReactionsRepo,
  makeReadersRepo,
  makeTopicsRepo,
  makeUsersRepo
} from "./records.js"

export { isPostgresUrl, PgDatabaseError } from "./db.js"

export interface PgStore extends StoreService {
  readonly close: () => Promise<void>
}

export interface PgStoreOptions {
  /** Connections this process keeps open at most (default 10). */
  readonly poolSize?: number
}

/** Connects to the database named by `url`, migrates it, and returns the Store over a connection pool. */
export const makePgStore = async (url: string, options: PgStoreOptions = {}): Promise<PgStore> => {
  const pool = makePool(url, options.poolSize)
  // an idle connection that breaks (the server restarted) is dropped by the pool; without a listener it would crash the process
  pool.on("error", () => undefined)
  try {
    await migratePg(pool, url)
  } catch (e) {
    await pool.end().catch(() => undefined)
    throw e
  }
  const q = makePgRunner(pool)
  return {
    transaction: q.transaction,
    ping: Effect.catchAllDefect(Effect.map(q.get<{ ok: number }>("SELECT 1 AS ok"), (r) => r?.ok === 1), () => Effect.succeed(false)),
    users: makeUsersRepo(q),
    groups: makeGroupsRepo(q),
    memberships: makeMembershipsRepo(q),
    mail: makeMailRepo(q),
    ...makePeopleRepos(q),
    topics: makeTopicsRepo(q),
    discussions: makeDiscussionsRepo(q),
    comments: makeCommentsRepo(q),
    items: makeItemsRepo(q),
    reactions: makeReactionsRepo(q),
    readers: makeReadersRepo(q),
    chatbots: makeChatbotsRepo(q),
    events: makeEventsRepo(q),
    deliveries: makeDeliveriesRepo(q),
    polls: makePollsRepo(q),
    pollOptions: makePollOptionsRepo(q),
    stances: makeStancesRepo(q),
    outcomes: makeOutcomesRepo(q),
    search: makeSearchRepo(q),
    reports: makeReportsRepo(q),
    close: () => q.close()
  }
}
