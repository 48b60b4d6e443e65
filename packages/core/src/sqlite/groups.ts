import { Effect } from "effect"
import type { Group, GroupCounts } from "../domain/records.js"
import type { GroupsRepo } from "../ports/store.js"
import type { Runner } from "./db.js"
import { countedGroup, toGroup } from "../sql/records.js"
import { fromBools, placeholders, setClause } from "../sql/rows.js"

const maybe = (row: unknown) => (row === undefined ? undefined : toGroup(row))
type Counted = { readonly group: Group; readonly counts: GroupCounts }

export const makeGroupsRepo = (run: Runner): GroupsRepo => {
  // every counter is kept on the group row by triggers (migrations 010 and 016). One group (a document's
  // access check and its side-load read the same one) is read once per snapshot and mapped once.
  const withCounts = (ids: ReadonlyArray<number>): Effect.Effect<ReadonlyArray<Counted>> =>
    ids.length === 0
      ? Effect.succeed([])
      : ids.length === 1
      ? run.readKept(`groups:${ids[0]}`, (_, s) => {
        const row = s(`SELECT * FROM groups WHERE id = ?`).get(ids[0]) as Record<string, unknown> | undefined
        return row === undefined ? [] : [countedGroup(row)]
      })
      : run.read((_, s) =>
        (s(`SELECT * FROM groups WHERE id IN (${placeholders(ids.length)}) ORDER BY id`).all(...ids) as Array<Record<string, unknown>>).map(countedGroup)
      )
  const byId = (id: number): Effect.Effect<Group | undefined> => Effect.map(withCounts([id]), (found) => found[0]?.group)
  return {
  byId,
  byIds: (ids) => Effect.map(withCounts(ids), (found) => found.map((c) => c.group)),
  // by id first (the row kept for the snapshot, which the group's document reads again), then key, then handle
  byRef: (ref) =>
    Effect.flatMap(/^[0-9]+$/.test(ref) ? byId(Number(ref)) : Effect.succeed(undefined), (found) =>
      found !== undefined ? Effect.succeed(found) : run.read((_, s) =>
        maybe(s(`SELECT * FROM groups WHERE key = ?`).get(ref) ?? s(`SELECT * FROM groups WHERE handle = ?`).get(ref)))),
  byHandle: (handle) => run.read((_, s) => maybe(s(`SELECT * FROM groups WHERE handle = ?`).get(handle))),
  list: () => run.read((_, s) => s(`SELECT * FROM groups ORDER BY id`).all().map(toGroup)),
  forUser: (userId) =>
    run.read((_, s) =>
      s(`SELECT g.* FROM groups g JOIN memberships m ON m.group_id = g.id
         WHERE m.user_id = ? AND m.revoked_at IS NULL ORDER BY g.id`).all(userId).map(toGroup)),
  withCounts,
  insert: (g) =>
    run.write((_, s) => {
      const row = fromBools({ ...g, updated_at: g.created_at })
      const cols = Object.keys(row)
      const info = s(`INSERT INTO groups (${cols.join(", ")}) VALUES (${cols.map((c) => "@" + c).join(", ")})`).run(row)
      return toGroup(s(`SELECT * FROM groups WHERE id = ?`).get(info.lastInsertRowid))
    }),
  update: (id, patch) =>
    run.write((db) => {
      const row = fromBools(patch)
      db.prepare(`UPDATE groups SET ${setClause(row)} WHERE id = @id`).run({ ...row, id })
    }),
  children: (parentIds) =>
    parentIds.length === 0
      ? run.read(() => [])
      : run.read((_, s) => s(`SELECT * FROM groups WHERE parent_id IN (${placeholders(parentIds.length)}) ORDER BY id`).all(...parentIds).map(toGroup))
  }
}
