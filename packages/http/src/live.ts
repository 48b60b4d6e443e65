/**
 * Live pages (decisions §13): `GET /live`, a Server-Sent Events stream per open page, for the signed-in person of the
 * session cookie. One hub per server reads the live events the writes committed (store.listenLive wakes it: this
 * process's commits on SQLite, any server's on PostgreSQL through LISTEN/NOTIFY; a poll each second covers a lost
 * wake-up) and passes each to the streams whose person may hear it (the core's rule, Live.audienceOf). An event
 * carries its id, so a page that reconnects (`Last-Event-ID`) is sent what it missed; a page connecting the first time
 * names when it was made (`?since=`), and is sent what happened since. Written straight to node's
 * response: an idle stream is its socket and a few fields. A client that does not read (more than `maxBuffered`
 * bytes waiting) is disconnected; it reconnects and catches up.
 */
import { type Access, type Id, Live, type LiveListening, loadAccess, type LiveEvent, People, Store, type StoreService, type User } from "@convene/core"
import * as Cookies from "@effect/platform/Cookies"
import { Effect } from "effect"
import type * as http from "node:http"
import type { Answer } from "./routes.js"
import { SESSION_COOKIE } from "./pages/layout/kit.js"
import type { LiveOptions } from "./settings.js"

interface Stream {
  readonly res: http.ServerResponse
  readonly session: string
  user: User
  /** events up to this id were sent by the replay on connecting */
  readonly replayedTo: number
}

/** Events re-read behind the cursor: on PostgreSQL, a transaction that took a lower id may commit after a higher one. */
const LOOKBACK = 64
/** Events one read takes; a replay longer than this tells the page to reload instead. */
const BATCH = 500

const frame = (e: LiveEvent, data: object) => `id: ${e.id}\nevent: ${e.kind}\ndata: ${JSON.stringify(data)}\n\n`

export interface LiveHub {
  readonly answer: Answer
  /** how many streams are open */
  readonly size: () => number
  /** ends every stream (before the server closes: it waits for open connections) */
  readonly close: () => void
}

export const makeLiveHub = (store: StoreService, options: LiveOptions = {}): LiveHub => {
  const maxBuffered = options.maxBuffered ?? 65_536
  const streams = new Set<Stream>()
  const run = <A>(effect: Effect.Effect<A, never, Store>) => Effect.runPromise(Effect.provideService(store.request(effect), Store, store))
  let cursor = 0
  let listening: LiveListening | undefined
  let timers: Array<NodeJS.Timeout> = []
  /** ids passed on within LOOKBACK of the cursor */
  let seen = new Set<number>()
  let pumping = false
  let again = false

  const drop = (s: Stream) => {
    streams.delete(s)
    if (!s.res.destroyed) s.res.destroy()
  }
  const write = (s: Stream, text: string) => {
    if (s.res.destroyed) return drop(s)
    // a client that does not read is cut off; it comes back with its Last-Event-ID and misses nothing
    if (s.res.writableLength > maxBuffered) return drop(s)
    s.res.write(text)
  }

  /** Passes events to the streams that may hear them: what each person may see is asked now, not when it happened. */
  const fanOut = async (events: ReadonlyArray<LiveEvent>, to: ReadonlyArray<Stream>, skipReplayed: boolean) => {
    if (events.length === 0 || to.length === 0) return
    await run(Effect.gen(function*() {
      const hears = yield* Live.audienceOf(events)
      const people = new Map<Id, { readonly access: Access; unseen?: number }>()
      for (const s of to) {
        let person = people.get(s.user.id)
        if (person === undefined) {
          person = { access: yield* loadAccess(s.user) }
          people.set(s.user.id, person)
        }
        const access = person.access
        for (const e of events) {
          if (skipReplayed && e.id <= s.replayedTo) continue
          if (!hears(access, e)) continue
          if (e.kind === "notification") {
            person.unseen ??= yield* store.notifications.unseenCount(s.user.id)
            write(s, frame(e, { unseen: person.unseen }))
          } else write(s, frame(e, { topic_id: e.topic_id, group_id: e.group_id }))
        }
      }
    }))
  }

  /** Reads what was committed since the cursor and passes it on; a wake-up meanwhile reads again after. */
  const pump = async (): Promise<void> => {
    if (pumping) {
      again = true
      return
    }
    pumping = true
    try {
      do {
        again = false
        if (streams.size === 0) break
        const read = await run(store.live.after(Math.max(0, cursor - LOOKBACK), BATCH + LOOKBACK))
        const fresh = read.filter((e) => !seen.has(e.id))
        if (fresh.length === 0) continue
        for (const e of fresh) seen.add(e.id)
        cursor = Math.max(cursor, ...fresh.map((e) => e.id))
        seen = new Set([...seen].filter((id) => id > cursor - LOOKBACK))
        await fanOut(fresh, [...streams], true)
        if (read.length >= BATCH + LOOKBACK) again = true
      } while (again)
    } catch {
      // the database is away: the next wake-up or poll tries again
    } finally {
      pumping = false
    }
  }

  /** Every heartbeat: a comment line to each stream, and each stream's session checked again (signed out: ended). */
  const heartbeat = async () => {
    for (const s of [...streams]) {
      const user = await run(People.sessionUser(s.session)).catch(() => s.user)
      if (user === undefined) drop(s)
      else {
        s.user = user
        write(s, ": keep-alive\n\n")
      }
    }
  }

  // commits come in bursts (and, on SQLite, are told from inside the COMMIT): one read after them, not one each
  let soon: NodeJS.Immediate | undefined
  const pumpSoon = () => {
    soon ??= setImmediate(() => {
      soon = undefined
      void pump()
    })
  }

  const start = () => {
    if (listening !== undefined) return
    listening = store.listenLive(pumpSoon)
    timers = [
      setInterval(() => void pump(), options.pollMs ?? 1_000),
      setInterval(() => void heartbeat(), options.heartbeatMs ?? 25_000)
    ]
    for (const t of timers) t.unref()
  }

  const answer: Answer = (req, res, _params, search) => {
    const session = Cookies.parseHeader(req.headers.cookie ?? "")[SESSION_COOKIE] ?? ""
    const lastRaw = String(req.headers["last-event-id"] ?? "")
    const last = /^[0-9]{1,15}$/.test(lastRaw) ? Number(lastRaw) : undefined
    const sinceRaw = typeof search.since === "string" ? search.since : ""
    const since = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,3})?Z$/.test(sinceRaw) && !Number.isNaN(Date.parse(sinceRaw)) ? sinceRaw : undefined
    void (async () => {
      const user = await run(People.sessionUser(session)).catch(() => undefined)
      if (user === undefined) {
        res.writeHead(401, { "content-type": "application/json", "cache-control": "no-store" })
        return void res.end(JSON.stringify({ error: "Sign in to follow live updates" }))
      }
      // heard from here on (PostgreSQL: the LISTEN in place), the hub passes on what comes after the newest event now;
      // what the page missed before is sent to it alone
      await listening?.ready()
      const latest = await run(store.live.latestId)
      if (streams.size === 0) cursor = Math.max(cursor, latest)
      const missed = last !== undefined ? await run(store.live.after(last, BATCH + 1)) : since !== undefined ? await run(store.live.since(since, BATCH + 1)) : []
      res.writeHead(200, {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-store",
        "x-accel-buffering": "no",
        "x-content-type-options": "nosniff"
      })
      res.write("retry: 2000\n\n")
      const stream: Stream = { res, session, user, replayedTo: Math.max(latest, missed.at(-1)?.id ?? 0) }
      streams.add(stream)
      req.on("close", () => drop(stream))
      if (missed.length > BATCH) res.write(`event: reset\ndata: {}\n\n`)
      else await fanOut(missed, [stream], false)
    })().catch(() => {
      if (!res.headersSent) res.writeHead(503, { "content-type": "application/json" }).end(JSON.stringify({ error: "Live updates are unavailable" }))
      else res.destroy()
    })
  }

  // listening from the start: on PostgreSQL the LISTEN is in place before any page connects (a NOTIFY sent before it
  // would wait for the next poll); with no stream open a wake-up reads nothing
  start()
  return {
    answer,
    size: () => streams.size,
    close: () => {
      listening?.stop()
      for (const t of timers) clearInterval(t)
      for (const s of [...streams]) {
        streams.delete(s)
        s.res.end()
      }
    }
  }
}
