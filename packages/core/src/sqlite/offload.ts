/**
 * Heavy reads (reports, search) off the event loop. better-sqlite3 is synchronous: a query that reads many
 * rows holds every other request until it ends. These run instead on a reader thread (a worker_threads
 * Worker with its own read-only connection, sqlite/readerWorker.ts), which sees committed data as the main
 * read connection does. Inside a transaction (which must see its own writes) and on an in-memory database
 * (which no other connection can open) they run inline.
 */
import { Effect } from "effect"
import { Worker } from "node:worker_threads"
import type { Runner, Stmt } from "./db.js"

type Query = (s: Stmt, ...args: Array<any>) => unknown
type Tail<T extends Array<unknown>> = T extends [unknown, ...infer R] ? R : never

/** A repository made of a query table: each query, minus its statement cache, as an Effect. */
export type OffloadedRepo<Q extends Record<string, Query>> = {
  readonly [K in keyof Q]: (...args: Tail<Parameters<Q[K]>>) => Effect.Effect<ReturnType<Q[K]>>
}

export interface Offloader {
  /** `table` names the same queries in readerWorker.ts. */
  readonly repo: <Q extends Record<string, Query>>(table: "reports" | "search", queries: Q) => OffloadedRepo<Q>
  readonly close: () => void
}

interface Reply {
  readonly id: number
  readonly result?: unknown
  readonly error?: string
}

export const makeOffloader = (run: Runner): Offloader => {
  let worker: Worker | undefined
  let next = 0
  const pending = new Map<number, (reply: Reply) => void>()

  // started on the first heavy read: a server that never reports or searches never pays for it
  const reader = () => {
    if (worker !== undefined) return worker
    const w = new Worker(new URL("./readerWorker.js", import.meta.url), { workerData: { filename: run.filename } })
    w.unref()
    w.on("message", (reply: Reply) => {
      pending.get(reply.id)?.(reply)
      pending.delete(reply.id)
    })
    const fail = (message: string) => {
      for (const [id, resume] of pending) resume({ id, error: message })
      pending.clear()
      worker = undefined
    }
    w.on("error", (e) => fail(`the reader thread failed: ${e.message}`))
    w.on("exit", (code) => fail(`the reader thread exited (${code})`))
    worker = w
    return w
  }

  const offloaded = (table: string, name: string, args: ReadonlyArray<unknown>) =>
    Effect.async<unknown>((resume) => {
      const id = next++
      pending.set(id, (reply) => resume(reply.error === undefined ? Effect.succeed(reply.result) : Effect.dieMessage(reply.error)))
      reader().postMessage({ id, table, name, args })
    })

  return {
    repo: (table, queries) =>
      Object.fromEntries(Object.entries(queries).map(([name, query]) => [
        name,
        (...args: Array<unknown>) =>
          Effect.flatMap(run.inTransaction, (tx) =>
            tx || run.filename === ""
              ? run.read((_, s) => query(s, ...args))
              : offloaded(table, name, args))
      ])) as never,
    close: () => {
      void worker?.terminate()
      worker = undefined
    }
  }
}
