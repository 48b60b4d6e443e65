import { Effect, Layer } from "effect"
import { Store, type StoreService } from "../ports/store.js"
import { makeRunner, openConnections } from "./db.js"
import { makeOffloader } from "./offload.js"
import { makeRepositories } from "../store/index.js"
import { sqliteClient } from "./client.js"
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
    // the snapshot per turn keeps what a request reads twice (db.ts)
    request: (effect) => effect,
    ping: run.read((_, s) => (s("SELECT 1 AS ok").get() as { ok: number }).ok === 1),
    // one server: its own commits are every commit there is, heard from the moment one listens
    listenLive: (wake) => ({ stop: run.onCommit(wake), ready: () => Promise.resolve() }),
    ...makeRepositories(sqliteClient(run)),
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
