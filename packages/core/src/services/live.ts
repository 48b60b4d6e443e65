/**
 * Live pages (decisions §13): which events a person's open pages hear. A thread's event reaches only those who may
 * read the thread now (the one visibility rule, rules/topics.ts, asked for each person); a notification only its
 * person. Events say where something happened, never what: the page asks for itself what it now shows.
 */
import { Effect } from "effect"
import type { Group, Id, LiveEvent } from "../domain/records.js"
import { Store } from "../ports/store.js"
import type { Access } from "../rules/access.js"
import { canShowTopic } from "../rules/topics.js"
import { newReader } from "./threads/kernel.js"

/** Whether a person hears an event (built once for a batch of events, asked for each open stream). */
export type Hears = (access: Access, event: LiveEvent) => boolean

/** What the rule needs about these events' threads, read once for every stream (three statements): the threads, their groups, their guests. */
export const audienceOf = Effect.fnUntraced(function*(events: ReadonlyArray<LiveEvent>): Effect.fn.Return<Hears, never, Store> {
  const store = yield* Store
  const topicIds = [...new Set(events.flatMap((e) => (e.topic_id === null ? [] : [e.topic_id])))]
  const topics = new Map((yield* store.topics.byIds(topicIds)).map((t) => [t.id, t]))
  const groupIds = [...new Set([...topics.values()].flatMap((t) => (t.group_id === null ? [] : [t.group_id])))]
  const groups = new Map<Id, Group>((yield* store.groups.byIds(groupIds)).map((g) => [g.id, g]))
  const guests = new Set((yield* store.readers.guestsIn([...topics.keys()])).map((g) => `${g.topic_id}:${g.user_id}`))
  return (access, event) => {
    if (event.kind === "notification") return event.user_id === access.user.id
    const topic = event.topic_id === null ? undefined : topics.get(event.topic_id)
    if (topic === undefined) return false
    const group = topic.group_id === null ? undefined : groups.get(topic.group_id)
    // a deleted group's threads are heard by nobody (they are not found)
    if (topic.group_id !== null && (group === undefined || group.archived_at !== null)) return false
    // a guest's reader as the rule reads it (only `guest` and `revoked_at` decide)
    const reader = guests.has(`${topic.id}:${access.user.id}`) ? Object.assign(newReader(topic.id, access.user.id, topic.created_at), { guest: true }) : undefined
    return canShowTopic(access, { topic, group, reader })
  }
})
