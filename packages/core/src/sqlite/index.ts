import { Effect, Layer } from "effect"
import { Store, type StoreService } from "../ports/store.js"
import { makeRunner, openConnections } from "./db.js"
import { makeOffloader } from "./offload.js"
import { makeGroupsRepo } from "./groups.js"
import { makeMailRepo } from "./mail.js"
import { makePeopleRepos } from "./people.js"
import { makeMembershipsRepo } from "./memberships.js"
import { makeUsersRepo } from "./users.js"
import { makeCommentsRepo } from "./comments.js"
import { makeDiscussionsRepo } from "./discussions.js"
import { makeItemsRepo } from "./items.js"
import { makeReactionsRepo } from "./reactions.js"
import { makeReadersRepo } from "./readers.js"
import { makeTopicsRepo } from "./topics.js"
import { makeChatbotsRepo, makeDeliveriesRepo, makeEventsRepo } from "./webhooks.js"
import { makeOutcomesRepo, makePollOptionsRepo, makePollsRepo, makeStancesRepo } from "./polls.js"
import { makeReportsRepo } from "./reports.js"
import { makeSearchRepo } from "./search.js"

export { DatabaseError, migrate } from "./db.js"
export { migrations } from "./migrations/index.js"

/** Opens (and migrates) the SQLite file and returns the Store plus a close function. */
export const makeSqliteStore = (filename: string): StoreService & { readonly close: () => void } => {
  const conns = openConnections(filename)
  const run = makeRunner(conns)
  const offloader = makeOffloader(run)
  return {
    transaction: run.transaction,
    ping: run.read((_, s) => (s("SELECT 1 AS ok").get() as { ok: number }).ok === 1),
    users: makeUsersRepo(run),
    groups: makeGroupsRepo(run),
    memberships: makeMembershipsRepo(run),
    mail: makeMailRepo(run),
    ...makePeopleRepos(run),
    topics: makeTopicsRepo(run),
    discussions: makeDiscussionsRepo(run),
    comments: makeCommentsRepo(run),
    items: makeItemsRepo(run),
    reactions: makeReactionsRepo(run),
    readers: makeReadersRepo(run),
    chatbots: makeChatbotsRepo(run),
    events: makeEventsRepo(run),
    deliveries: makeDeliveriesRepo(run),
    polls: makePollsRepo(run),
    pollOptions: makePollOptionsRepo(run),
    stances: makeStancesRepo(run),
    outcomes: makeOutcomesRepo(run),
    search: makeSearchRepo(offloader),
    reports: makeReportsRepo(offloader),
    close: () => {
      offloader.close()
      run.close()
    }
  }
}

/** The Store as a Layer; the file is closed when the layer's scope ends. */
export const SqliteStoreLive = (filename: string) =>
  Layer.scoped(
    Store,
    Effect.acquireRelease(Effect.sync(() => makeSqliteStore(filename)), (s) => Effect.sync(() => s.close()))
  )
