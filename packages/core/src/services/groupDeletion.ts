/**
 * **Delete group** (decisions §12): archived at once with its subgroups (gone from every page, list and the API),
 * every administrator mailed; the scheduler deletes it and all it holds 14 days later, a few threads per transaction
 * so no write waits long behind it; `convene groups restore` brings it back before then.
 */
import { Clock, Effect } from "effect"
import type { Group } from "../domain/records.js"
import { forbidden, type Forbidden, type Invalid, invalid, notFound, type NotFound } from "../errors.js"
import { Store } from "../ports/store.js"
import type { Access } from "../rules/access.js"
import { DeleteGroup, type Permit } from "../policies.js"
import { nowIso } from "./common.js"
import { showGroup } from "./groups.js"
import { recordThreadMessage } from "./mail.js"
import { activeAdministrators } from "./memberships.js"

/** How long a deleted group waits before it is purged. */
export const PURGE_AFTER_MS = 14 * 24 * 3600_000
/** What one purging transaction aims to stay under (decisions §12: writes never wait longer behind it). */
const BATCH_BUDGET_MS = 50

const archiving = Effect.fnUntraced(function*(access: Access, group: Group): Effect.fn.Return<Group, never, Store | Permit<"DeleteGroup">> {
  yield* DeleteGroup.needed
  const store = yield* Store
  const now = yield* nowIso
  const admins = yield* activeAdministrators(group)
  const subgroups = yield* store.groups.children([group.id])
  yield* store.groups.setArchived([group.id, ...subgroups.map((g) => g.id)], now, now)
  for (const admin of admins) yield* recordThreadMessage(admin, { kind: "group_deleted", group: undefined, title: group.name, actor: access.user, path: "/" })
  return group
})

/** **Delete group**: the group's administrators, who type its name (or handle) to confirm on the page (`confirmation`). */
export const deleteGroup = Effect.fnUntraced(function*(access: Access, ref: string, confirmation?: string): Effect.fn.Return<Group, NotFound | Forbidden | Invalid, Store> {
  const store = yield* Store
  return yield* store.transaction(Effect.gen(function*() {
    // locked by the read itself (findGroup inside a transaction)
    const { group } = yield* showGroup(access, ref)
    return yield* DeleteGroup.check([access, group], () => forbidden("Only the group's administrators delete it"))(
      Effect.gen(function*() {
        const typed = confirmation?.trim()
        if (typed !== undefined && typed !== group.name.trim() && (group.handle === null || typed.toLowerCase() !== group.handle)) {
          return yield* invalid("confirmation", "is not the group's name")
        }
        return yield* archiving(access, group)
      })
    )
  }))
})

/** `convene groups restore GROUP`: a deleted group (and the subgroups deleted with it) back, before it is purged. */
export const restoreGroup = Effect.fnUntraced(function*(ref: string): Effect.fn.Return<Group, NotFound | Invalid, Store> {
  const store = yield* Store
  return yield* store.transaction(Effect.gen(function*() {
    const group = yield* store.groups.byRef(ref)
    if (group === undefined) return yield* notFound(`Group ${ref} not found`)
    if (group.archived_at === null) return yield* invalid("group", "is not deleted")
    const parent = group.parent_id === null ? undefined : yield* store.groups.byId(group.parent_id)
    if (parent?.archived_at != null) return yield* invalid("group", `is in a deleted group: restore ${parent.key} first`)
    const subgroups = yield* store.groups.archivedBy(group.archived_at)
    const with_ = subgroups.filter((g) => g.parent_id === group.id && g.archived_at === group.archived_at).map((g) => g.id)
    yield* store.groups.setArchived([group.id, ...with_], null, yield* nowIso, group.archived_at)
    return (yield* store.groups.byId(group.id))!
  }))
})

/**
 * Purges the groups deleted 14 days ago or more: each group's threads (with all they hold) a batch per transaction,
 * the batch grown or shrunk to stay near 50 ms, then the group. Returns how many groups went.
 */
export const purgeDeletedGroups = Effect.gen(function*() {
  const store = yield* Store
  const nowMs = yield* Clock.currentTimeMillis
  let purged = 0
  // a first batch small enough for any thread, grown to the budget from there
  let batch = 4
  for (const due of yield* store.groups.archivedBy(new Date(nowMs - PURGE_AFTER_MS).toISOString())) {
    for (;;) {
      const started = performance.now()
      const gone = yield* store.transaction(Effect.gen(function*() {
        // restored meanwhile: left alone
        const group = yield* store.groups.byId(due.id)
        if (group === undefined || group.archived_at !== due.archived_at) return -1
        return yield* store.groups.purgeTopics(group.id, batch)
      }))
      const took = performance.now() - started
      if (gone < batch) {
        if (gone >= 0) {
          purged += yield* store.transaction(Effect.gen(function*() {
            const group = yield* store.groups.byId(due.id)
            if (group === undefined || group.archived_at !== due.archived_at) return 0
            yield* store.groups.delete(group.id)
            return 1
          }))
        }
        break
      }
      // as many threads as fit the budget at the pace just measured (a thread's size varies: so does the batch)
      batch = Math.max(1, Math.min(2000, Math.floor((batch * BATCH_BUDGET_MS) / Math.max(took, 1))))
      // other writers go between batches
      yield* Effect.yieldNow()
    }
  }
  return purged
})
