/**
 * Volume (decisions §11): how much mail a person wants from a group and from a thread, set by themselves only;
 * the thread's wins over the group's. The pages, the API and an embedder all set it here.
 */
import { Effect } from "effect"
import type { Group, Id, Topic } from "../domain/records.js"
import { forbidden, type Forbidden, notFound, type NotFound } from "../errors.js"
import { Store } from "../ports/store.js"
import type { Access } from "../rules/access.js"
import { effectiveVolume, type Volume } from "../rules/volume.js"
import { SetGroupVolume } from "../policies.js"
import { nowIso } from "./common.js"
import { findThread } from "./threads/kernel.js"

export interface ThreadVolume {
  /** the thread's own setting, if any */
  readonly thread: Volume | undefined
  /** the group's, if any */
  readonly group: Volume | undefined
  readonly effective: Volume
}

/** The caller's volume in a thread they may read. */
export const threadVolume = Effect.fnUntraced(function*(access: Access, topic: Topic): Effect.fn.Return<ThreadVolume, never, Store> {
  const store = yield* Store
  const thread = yield* store.volumes.ofThread(access.user.id, topic.id)
  const group = topic.group_id === null ? undefined : yield* store.volumes.ofGroup(access.user.id, topic.group_id)
  return { thread, group, effective: effectiveVolume(thread, group) }
})

/** Sets the caller's volume in a thread they may read (404 otherwise). */
export const setThreadVolume = Effect.fnUntraced(function*(access: Access, topicId: Id, volume: Volume): Effect.fn.Return<ThreadVolume, NotFound, Store> {
  const store = yield* Store
  return yield* store.transaction(Effect.gen(function*() {
    const ctx = yield* findThread(access, topicId)
    yield* store.volumes.setThread(access.user.id, ctx.topic.id, volume, yield* nowIso)
    return yield* threadVolume(access, ctx.topic)
  }))
})

/** The caller's volume in a group they belong to. */
export const groupVolume = Effect.fnUntraced(function*(access: Access, group: Group): Effect.fn.Return<Volume, never, Store> {
  const store = yield* Store
  return (yield* store.volumes.ofGroup(access.user.id, group.id)) ?? "normal"
})

/** Sets the caller's volume in a group: only a member has one (403), an unknown group is 404. */
export const setGroupVolume = Effect.fnUntraced(function*(access: Access, groupId: Id, volume: Volume): Effect.fn.Return<Volume, NotFound | Forbidden, Store> {
  const store = yield* Store
  return yield* store.transaction(Effect.gen(function*() {
    const group = yield* store.groups.byId(groupId)
    if (group === undefined) return yield* notFound(`Group ${groupId} not found`)
    const set = Effect.zipRight(SetGroupVolume.needed, Effect.flatMap(nowIso, (now) => store.volumes.setGroup(access.user.id, group.id, volume, now)))
    return yield* SetGroupVolume.check([access, group.id], () => forbidden("Only a member of the group has a volume in it."))(Effect.as(set, volume))
  }))
})

/** The caller's groups with their volume in each (/profile). */
export const groupVolumes = Effect.fnUntraced(function*(access: Access): Effect.fn.Return<ReadonlyArray<{ readonly group: Group; readonly volume: Volume }>, never, Store> {
  const store = yield* Store
  const set = new Map((yield* store.volumes.groupsOf(access.user.id)).map((v) => [v.group_id, v.volume]))
  const ids = [...access.memberships.values()].filter((m) => m.accepted_at !== null).map((m) => m.group_id)
  const groups = yield* store.groups.byIds(ids)
  return groups.map((group) => ({ group, volume: set.get(group.id) ?? "normal" }))
})
