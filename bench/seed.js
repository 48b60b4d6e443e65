/**
 * Seeds a fresh database through the core API (not SQL), so the rows are exactly what convene writes:
 * 100 groups (10 of them subgroups), 10,000 live memberships, one benchmark user who owns (administers)
 * every group, and group 1 with 2,000 members.
 */
import { makeConvene } from "@convene/core"

export const GROUPS = 100
export const MEMBERSHIPS = 10_000
export const BIG_GROUP_MEMBERS = 2_000
/** Groups 91..100 are subgroups of groups 2..11, so responses carry parents and `full_name` with a parent. */
const SUBGROUPS = 10
/** Members of group 1 invited by the benchmark user (pending, with an inviter), so the users side-load has inviters. */
const INVITED = 5
const USERS = 2_000

const COUNTRIES = ["NZ", "FR", "DE", null, "BR", "KE", null, "JP"]

/**
 * @param {string} filename
 * @returns the benchmark user's plaintext `apiKey`, `bigGroupId` (the group with 2,000 members) and the row counts
 */
export const seed = async (filename) => {
  const c = makeConvene({ filename })
  try {
    const owner = await c.users.create({ email: "bench@example.org", name: "Bench Owner", username: "bench" })

    // Some users without a name (displayed by username or "Anonymous") and without a country, as in real data.
    const users = []
    for (let i = 0; i < USERS; i++) {
      const { user } = await c.users.create({
        email: `member${i}@example.org`,
        name: i % 17 === 0 ? null : `Member ${i}`,
        username: i % 3 === 0 ? `member-${i}` : null,
        country: COUNTRIES[i % COUNTRIES.length]
      })
      users.push(user)
    }

    // The owner becomes the first admin member of every group it creates: 100 memberships.
    const groups = []
    for (let i = 1; i <= GROUPS; i++) {
      const parent = i > GROUPS - SUBGROUPS ? groups[i - (GROUPS - SUBGROUPS) /* 2..11 */] : undefined
      const { group } = await c.groups.create({
        name: `Group ${i}`,
        owner: owner.user,
        ...(parent === undefined ? {} : { parent }),
        ...(i % 4 === 0 ? { public: true } : {}),
        ...(i % 10 === 0 ? { handle: `group-${i}` } : {})
      })
      groups.push(group)
    }
    let memberships = GROUPS

    // A mix of accepted, pending, admin and delegate members, so every counter is non-trivial.
    const add = async (group, user, n) => {
      await c.members.add({ group, user, admin: n % 50 === 0, delegate: n % 25 === 7, pending: n % 10 === 3 })
      memberships++
    }

    // Group 1: invitations sent by the owner (inviter_id set), then 1,994 members added by the operator.
    const big = groups[0]
    await c.as(owner.user).syncMemberships(big.id, Array.from({ length: INVITED }, (_, i) => `invitee${i}@example.org`))
    memberships += INVITED
    for (let i = 0; i < BIG_GROUP_MEMBERS - 1 - INVITED; i++) await add(big, users[i], i)

    // The remaining memberships spread over groups 2..100; a stride coprime with USERS never repeats a user in a group.
    const rest = groups.slice(1)
    const left = MEMBERSHIPS - memberships
    for (const [k, group] of rest.entries()) {
      const n = Math.floor(left / rest.length) + (k < left % rest.length ? 1 : 0)
      for (let j = 0; j < n; j++) await add(group, users[(k * 37 + j * 13) % USERS], j)
    }

    return {
      apiKey: owner.apiKey,
      bigGroupId: big.id,
      groups: groups.length,
      memberships,
      users: USERS + 1 + INVITED
    }
  } finally {
    await c.close()
  }
}
