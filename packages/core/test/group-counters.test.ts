import { Effect } from "effect"
import t from "tap"
import { loadAccess, makeConvene, Memberships, Store, Users } from "@convene/core"

/** The store keeps membership counters on groups (triggers); they must equal a recount of the rows. */
t.test("group counters equal a recount through every kind of membership change", async (t) => {
  const convene = makeConvene({ filename: ":memory:" })
  t.teardown(() => convene.close())
  const { user: owner } = await convene.users.create({ email: "owner@example.org" })
  const { group } = await convene.groups.create({ name: "G", owner })
  const { group: sub } = await convene.groups.create({ name: "Sub", owner, parent: group })
  const people = []
  for (let i = 0; i < 12; i++) people.push((await convene.users.create({ email: `p${i}@example.org` })).user)

  const check = async (what: string) => {
    const { kept, recount } = await convene.run(Effect.gen(function*() {
      const store = yield* Store
      const kept = new Map((yield* store.groups.withCounts([group.id, sub.id])).map((r) => [r.group.id, r.counts]))
      const recount = new Map<number, object>()
      for (const g of [group, sub]) {
        const rows = (yield* store.memberships.activeInGroup(g.id, { limit: 1000, offset: 0 }))
        recount.set(g.id, {
          memberships_count: rows.length,
          accepted_memberships_count: rows.filter((m) => m.accepted_at !== null).length,
          pending_memberships_count: rows.filter((m) => m.accepted_at === null).length,
          admin_memberships_count: rows.filter((m) => m.admin).length,
          delegates_count: rows.filter((m) => m.delegate).length
        })
      }
      return { kept, recount }
    }))
    for (const id of [group.id, sub.id]) t.match(kept.get(id), recount.get(id), `${what} (group ${id})`)
  }

  await check("owners only")
  for (const [i, p] of people.entries()) {
    await convene.members.add({ group: i % 2 === 0 ? group : sub, user: p, admin: i % 5 === 0, delegate: i % 3 === 0, pending: i % 4 === 0 })
  }
  await check("after adding members (admins, delegates, pending)")
  await convene.run(Effect.flatMap(loadAccess(owner), (a) => Memberships.syncMemberships(a, group.id, ["owner@example.org", "p0@example.org", "new@example.org"], true)))
  await check("after an invitation and removals")
  await convene.users.deactivate({ id: people[1]!.id })
  await check("after a deactivation")
  await convene.users.reactivate({ id: people[1]!.id })
  await check("after a reactivation")
  await convene.users.redact({ id: people[3]!.id })
  await convene.users.delete({ id: people[5]!.id })
  await check("after a redaction and a deletion")
  await convene.run(Users.deleteUser({ id: people[7]!.id }))
  await check("after another deletion")
})

/** Discussions, polls and subgroups are counted on the group row too (migration 016): equal to a recount through every change. */
t.test("content counters equal a recount through threads, polls and subgroups coming and going", async (t) => {
  const { mkdtempSync, rmSync } = await import("node:fs")
  const { tmpdir } = await import("node:os")
  const { join } = await import("node:path")
  const { default: Database } = await import("better-sqlite3")
  const dir = mkdtempSync(join(tmpdir(), "convene-counters-"))
  const filename = join(dir, "c.db")
  const convene = makeConvene({ filename })
  t.teardown(async () => {
    await convene.close()
    rmSync(dir, { recursive: true, force: true })
  })
  const sql = (query: string, ...params: Array<unknown>) => {
    const db = new Database(filename)
    try {
      db.prepare(query).run(...params)
    } finally {
      db.close()
    }
  }
  const check = (what: string) => {
    const db = new Database(filename, { readonly: true })
    try {
      const rows = db.prepare(`SELECT g.id, g.discussions_count, g.polls_count, g.subgroups_count,
          (SELECT count(*) FROM topics t WHERE t.group_id = g.id AND t.topicable_type = 'Discussion' AND t.discarded_at IS NULL) AS d,
          (SELECT count(*) FROM polls p JOIN topics t ON t.id = p.topic_id WHERE t.group_id = g.id AND p.discarded_at IS NULL) AS p,
          (SELECT count(*) FROM groups s WHERE s.parent_id = g.id) AS s
        FROM groups g ORDER BY g.id`).all() as Array<Record<string, number>>
      t.same(rows.map((r) => [r.id, r.discussions_count, r.polls_count, r.subgroups_count]), rows.map((r) => [r.id, r.d, r.p, r.s]), what)
    } finally {
      db.close()
    }
  }
  const { user: owner } = await convene.users.create({ email: "owner@example.org" })
  const { user: other } = await convene.users.create({ email: "other@example.org" })
  const { group } = await convene.groups.create({ name: "G", owner })
  const { group: sub } = await convene.groups.create({ name: "Sub", owner, parent: group })
  await convene.members.add({ group, user: other })
  await convene.members.add({ group: sub, user: other })
  check("subgroup made")
  const asOwner = convene.as(owner)
  const asOther = convene.as(other)
  const week = new Date(Date.now() + 7 * 86_400_000).toISOString()
  const d1 = (await asOwner.startDiscussion({ group_id: group.id, title: "One" })).discussion
  const d2 = (await asOther.startDiscussion({ group_id: group.id, title: "Two" })).discussion
  const d3 = (await asOwner.startDiscussion({ group_id: sub.id, title: "Three" })).discussion
  const standalone = await asOwner.startPoll({ group_id: group.id, title: "Alone", poll_type: "proposal", closing_at: week })
  const inThread = await asOwner.startPoll({ discussion_id: d1.id, title: "In a thread", poll_type: "proposal", closing_at: week })
  await asOther.startPoll({ discussion_id: d2.id, title: "In Bob's thread", poll_type: "proposal", closing_at: week })
  check("threads and polls started")
  await asOwner.deletePoll(standalone.poll.key)
  check("a poll discarded")
  sql("UPDATE topics SET group_id = ? WHERE id = ?", sub.id, d1.topic_id)
  check("a thread with its poll moved to the subgroup")
  sql("UPDATE topics SET discarded_at = '2026-01-01T00:00:00.000Z' WHERE id = ?", d3.topic_id)
  check("a thread discarded")
  sql("UPDATE topics SET discarded_at = NULL WHERE id = ?", d3.topic_id)
  check("and restored")
  sql("DELETE FROM polls WHERE id = ?", inThread.poll.id)
  check("a poll deleted")
  sql("DELETE FROM discussions WHERE id = ?", d3.id)
  check("a discussion deleted (its thread with it)")
  await convene.users.delete({ id: other.id })
  check("a user deleted: their thread goes, with the poll in it")
  const { group: sub2 } = await convene.groups.create({ name: "Sub 2", owner, parent: group })
  sql("UPDATE groups SET parent_id = ? WHERE id = ?", sub.id, sub2.id)
  check("a subgroup moved")
  sql("DELETE FROM groups WHERE id = ?", sub2.id)
  check("a subgroup deleted")
})
