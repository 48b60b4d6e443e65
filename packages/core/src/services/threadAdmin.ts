/**
 * Looking after a group's threads (decisions §12): its tags with their colours (managed by its administrators; a
 * name an editor types makes one), a thread's edits (Loomio's versions: who, when, each field's before and after),
 * and **Move thread** to another group.
 */
import { Effect } from "effect"
import type { Group, Id, Tag, Topic, User, Version } from "../domain/records.js"
import type { TagInput } from "../domain/inputs.js"
import { type Forbidden, type Invalid, invalid, notFound, type NotFound } from "../errors.js"
import { Store } from "../ports/store.js"
import type { Access } from "../rules/access.js"
import { canStartDiscussion } from "../rules/discussions.js"
import { paletteColor, tagColorErrors, tagNameErrors } from "../rules/tags.js"
import { ManageGroup, type Permit } from "../policies.js"
import { nowIso } from "./common.js"
import { managed, managedWrite, showGroup } from "./groups.js"

/** A group's tags, to whoever sees the group. */
export const groupTags = Effect.fnUntraced(function*(access: Access, ref: string): Effect.fn.Return<{ readonly group: Group; readonly tags: ReadonlyArray<Tag> }, NotFound | Forbidden, Store> {
  const store = yield* Store
  const { group } = yield* showGroup(access, ref)
  return { group, tags: yield* store.tags.inGroup(group.id) }
})

const managing = <A, E, R>(access: Access, ref: string, step: (group: Group) => Effect.Effect<A, E, R>) => managed(access, ref, "tags", step)
const managingWrite = <A, E, R>(access: Access, ref: string, step: (group: Group) => Effect.Effect<A, E, R>) => managedWrite(access, ref, "tags", step)

/** A group's tags to manage: its administrators' (the tags page). */
export const managedTags = (access: Access, ref: string): Effect.Effect<{ readonly group: Group; readonly tags: ReadonlyArray<Tag> }, NotFound | Forbidden, Store> =>
  managing(access, ref, (group) =>
    Effect.zipRight(ManageGroup.needed, Effect.flatMap(Store, (store) => Effect.map(store.tags.inGroup(group.id), (tags) => ({ group, tags })))))

/**
 * The names a thread carries, each the group's tag (a name the group has no tag for gets one, its colour from the
 * palette; one it has is written as the tag's own).
 */
export const ensureTags = Effect.fnUntraced(function*(group: Group, names: ReadonlyArray<string>): Effect.fn.Return<ReadonlyArray<string>, never, Store> {
  const store = yield* Store
  const tags = [...(yield* store.tags.inGroup(group.id))]
  const now = yield* nowIso
  const out: Array<string> = []
  for (const name of names) {
    let tag = tags.find((t) => t.name.toLowerCase() === name.toLowerCase())
    if (tag === undefined) {
      tag = yield* store.tags.insert({ group_id: group.id, name, color: paletteColor(tags.length), created_at: now })
      tags.push(tag)
    }
    out.push(tag.name)
  }
  return out
})

/** A tag's name and colour as typed, checked against the group's other tags (`tags`). */
const tagFields = Effect.fnUntraced(function*(tags: ReadonlyArray<Tag>, input: typeof TagInput.Type, except: Id | undefined): Effect.fn.Return<{ name: string; color: string | undefined }, Invalid> {
  const name = input.name.trim()
  const problem = tagNameErrors(name)
  if (problem !== null) return yield* invalid("name", problem)
  const color = input.color?.trim()
  if (color !== undefined && color !== "") {
    const bad = tagColorErrors(color)
    if (bad !== null) return yield* invalid("color", bad)
  }
  const taken = tags.find((t) => t.id !== except && t.name.toLowerCase() === name.toLowerCase())
  if (taken !== undefined) return yield* invalid("name", "has already been taken")
  return { name, color: color === "" ? undefined : color?.toLowerCase() }
})

const addingTag = Effect.fnUntraced(function*(group: Group, input: typeof TagInput.Type): Effect.fn.Return<Tag, Invalid, Store | Permit<"ManageGroup">> {
  yield* ManageGroup.needed
  const store = yield* Store
  const tags = yield* store.tags.inGroup(group.id)
  const { color, name } = yield* tagFields(tags, input, undefined)
  return yield* store.tags.insert({ group_id: group.id, name, color: color ?? paletteColor(tags.length), created_at: yield* nowIso })
})

/** Adds a tag (the group's administrators). */
export const addTag = (access: Access, ref: string, input: typeof TagInput.Type): Effect.Effect<Tag, NotFound | Forbidden | Invalid, Store> =>
  managingWrite(access, ref, (group) => addingTag(group, input))

const groupTag = Effect.fnUntraced(function*(group: Group, tagId: Id): Effect.fn.Return<Tag, NotFound, Store> {
  const tag = yield* (yield* Store).tags.byId(tagId)
  return tag === undefined || tag.group_id !== group.id ? yield* notFound("Tag not found") : tag
})

const changingTag = Effect.fnUntraced(function*(group: Group, tagId: Id, input: typeof TagInput.Type): Effect.fn.Return<Tag, NotFound | Invalid, Store | Permit<"ManageGroup">> {
  yield* ManageGroup.needed
  const store = yield* Store
  const tag = yield* groupTag(group, tagId)
  const { color, name } = yield* tagFields(yield* store.tags.inGroup(group.id), input, tag.id)
  yield* store.tags.update(tag.id, { name, color: color ?? tag.color })
  // threads carry their tags by name: a renamed tag is renamed on each
  if (name !== tag.name) yield* store.tags.retag(group.id, tag.name, name, yield* nowIso)
  return (yield* store.tags.byId(tag.id))!
})

/** Renames or recolours a tag (the group's administrators); its threads carry the new name. */
export const changeTag = (access: Access, ref: string, tagId: Id, input: typeof TagInput.Type): Effect.Effect<Tag, NotFound | Forbidden | Invalid, Store> =>
  managingWrite(access, ref, (group) => changingTag(group, tagId, input))

const removingTag = Effect.fnUntraced(function*(group: Group, tagId: Id): Effect.fn.Return<Tag, NotFound, Store | Permit<"ManageGroup">> {
  yield* ManageGroup.needed
  const store = yield* Store
  const tag = yield* groupTag(group, tagId)
  yield* store.tags.retag(group.id, tag.name, null, yield* nowIso)
  yield* store.tags.delete(tag.id)
  return tag
})

/** Deletes a tag (the group's administrators): it leaves every thread of the group. */
export const removeTag = (access: Access, ref: string, tagId: Id): Effect.Effect<Tag, NotFound | Forbidden, Store> =>
  managingWrite(access, ref, (group) => removingTag(group, tagId))

type VersionValue = Version["object_changes"][string][number]

/** What an edit changed, field by field ([before, after]); none: nothing to record. */
export const recordVersion = Effect.fnUntraced(function*(itemId: Id, actor: User, changes: Record<string, readonly [VersionValue, VersionValue]>) {
  const changed = Object.fromEntries(Object.entries(changes).filter(([, [a, b]]) => JSON.stringify(a) !== JSON.stringify(b)))
  if (Object.keys(changed).length === 0) return
  yield* (yield* Store).versions.insert({ item_type: "Discussion", item_id: itemId, whodunnit: actor.id, object_changes: changed, created_at: yield* nowIso })
})

/** Whether a thread has been edited (its page links **Show edits**). */
export const wasEdited = (discussionId: Id): Effect.Effect<boolean, never, Store> =>
  Effect.flatMap(Store, (store) => store.versions.any("Discussion", discussionId))

/** The groups a thread may move to: the person's groups where they may start threads, but its own. */
export const moveTargets = Effect.fnUntraced(function*(access: Access, topic: Topic): Effect.fn.Return<ReadonlyArray<Group>, never, Store> {
  const store = yield* Store
  return (yield* store.groups.forUser(access.user.id)).filter((g) => g.id !== topic.group_id && canStartDiscussion(access, g))
})
