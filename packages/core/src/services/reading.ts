/**
 * Read state (decisions §13): what each person has read of each thread, as Loomio's reader. A page of a thread marks
 * what it shows read (one statement, and none when nothing changes), writing marks one's own item read, the API
 * takes ranges, lists mark a thread or all of them read. The arithmetic is rules/readState.ts'.
 */
import { Effect } from "effect"
import type { Id, ThreadItem, Topic, TopicReader } from "../domain/records.js"
import type { Volume } from "../ports/people.js"
import { forbidden, type Forbidden, invalid, type Invalid, type NotFound } from "../errors.js"
import { Store } from "../ports/store.js"
import { OwnAccount } from "../policies.js"
import { type Access, isActivePerson } from "../rules/access.js"
import { parseRanges, rangesAfterReading, rangesErrors, rangesOf, type ReadState, readStateOf } from "../rules/readState.js"
import { topicScope } from "../rules/topics.js"
import { nowIso } from "./common.js"
import { candidateGroups, findThread, readItems } from "./threads/kernel.js"

/** Marks these items (a page of the thread) read for the person: nothing for a visitor, nor when nothing changes. */
export const markShown = Effect.fnUntraced(function*(access: Access, topic: Topic, reader: TopicReader | undefined, items: ReadonlyArray<ThreadItem>) {
  if (!isActivePerson(access)) return
  const seen = rangesOf(items.flatMap((i) => (i.sequence_id > 0 ? [i.sequence_id] : [])))
  // nothing to write: no transaction either
  if (rangesAfterReading(reader, seen) === undefined) return
  const store = yield* Store
  yield* store.transaction(readItems(topic.id, access.user.id, reader, seen))
})

/** PATCH /discussions/{id}/mark_as_read: `ranges` as Loomio sends them ("1-5,9-9"), read now; the reader as it is left. */
export const markRangesRead = Effect.fnUntraced(function*(access: Access, topicId: Id, text: string): Effect.fn.Return<TopicReader | undefined, NotFound | Invalid | Forbidden, Store> {
  if (!isActivePerson(access)) return yield* forbidden("Sign in to mark a thread as read")
  const problem = rangesErrors(text)
  if (problem !== null) return yield* invalid("ranges", problem)
  const store = yield* Store
  return yield* store.transaction(Effect.gen(function*() {
    const { reader, topic } = yield* findThread(access, topicId)
    return yield* readItems(topic.id, access.user.id, reader, parseRanges(text), { always: true })
  }))
})

/** **Mark as read** in a list: every item of the thread read, and the thread no longer new. */
export const markThreadRead = Effect.fnUntraced(function*(access: Access, topicId: Id): Effect.fn.Return<void, NotFound | Forbidden, Store> {
  if (!isActivePerson(access)) return yield* forbidden("Sign in to mark a thread as read")
  const store = yield* Store
  yield* store.transaction(Effect.gen(function*() {
    const { topic } = yield* findThread(access, topicId)
    yield* store.readers.markThreadRead(topic.id, access.user.id, yield* nowIso)
  }))
})

/** **Mark all as read** on home: every thread the person may read, marked as **Mark as read** marks one. */
export const markAllRead = (access: Access): Effect.Effect<number, Forbidden, Store> =>
  Effect.flatMap(Store, (store) =>
    store.transaction(OwnAccount.check([access], () => forbidden("Sign in to mark threads as read"))(Effect.gen(function*() {
      yield* OwnAccount.needed
      const scope = topicScope(access, yield* candidateGroups(access))
      return yield* store.readers.markAllRead(access.user.id, scope, yield* nowIso)
    }))))

/** A thread's read state for the person, with their reader and their own volume there (the fields of discussion records). */
export interface ReadView {
  readonly reader: TopicReader | undefined
  readonly state: ReadState
  readonly volume: Volume | undefined
}

/** The person's read state in each of these threads (lists, records): two statements (none for a visitor, nor for one record read for the person). */
export const readViews = Effect.fnUntraced(function*(access: Access, topics: ReadonlyArray<Topic>): Effect.fn.Return<ReadonlyMap<Id, ReadView>, never, Store> {
  const store = yield* Store
  const view = (t: Topic, reader: TopicReader | undefined, volume: Volume | undefined) => [t.id, { reader, state: readStateOf(t, reader), volume }] as const
  if (!isActivePerson(access)) return new Map(topics.map((t) => view(t, undefined, undefined)))
  // one thread (a record read by id or key): its reader and volume came with it, remembered
  if (topics.length === 1) {
    const t = topics[0]!
    return new Map([view(t, yield* store.readers.find(t.id, access.user.id), yield* store.volumes.ofThread(access.user.id, t.id))])
  }
  const ids = topics.map((t) => t.id)
  const readers = new Map((yield* store.readers.ofTopics(access.user.id, ids)).map((r) => [r.topic_id, r]))
  const volumes = new Map((yield* store.volumes.threadsOf(access.user.id, ids)).map((v) => [v.topic_id, v.volume]))
  return new Map(topics.map((t) => view(t, readers.get(t.id), volumes.get(t.id))))
})
