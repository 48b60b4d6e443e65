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
      const kept = yield* store.groups.counts([group.id, sub.id])
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
