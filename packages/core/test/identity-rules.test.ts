/** Signing in with a provider (decisions §10): which address may claim an account, and what a groups claim changes. */
import t from "tap"
import type { ExternalIdentity, Group, Membership } from "../src/index.js"
import { planClaimedGroups, verifiedEmail, identityName } from "../src/rules/identities.js"

const identity = (over: Partial<ExternalIdentity>): ExternalIdentity =>
  ({ provider: "oidc", uid: "s", email: "Ann@Example.org", emailVerified: true, name: "Ann", groups: undefined, ...over })

t.test("only a verified address claims an account, normalised", async (t) => {
  t.equal(verifiedEmail(identity({})), "ann@example.org")
  t.equal(verifiedEmail(identity({ emailVerified: false })), null)
  t.equal(verifiedEmail(identity({ email: "not an address" })), null)
  t.equal(verifiedEmail(identity({ email: null })), null)
})

t.test("a provider's name is used when it is one line", async (t) => {
  t.equal(identityName(identity({ name: "  Ann Lee " })), "Ann Lee")
  t.equal(identityName(identity({ name: "Ann\nLee" })), null)
  t.equal(identityName(identity({ name: "" })), null)
  t.equal(identityName(identity({ name: "x".repeat(150) }))!.length, 100)
})

t.test("the groups claim: joins claimed groups, accepts a pending invitation, ends only what it made", async (t) => {
  const g = (id: number) => ({ id, handle: `g${id}` }) as unknown as Group
  const m = (id: number, group_id: number, accepted = true) => ({ id, group_id, accepted_at: accepted ? "2026-01-01T00:00:00Z" : null }) as unknown as Membership
  const plan = planClaimedGroups(
    [g(1), g(2), g(3)],
    [m(10, 1), m(20, 2, false), m(40, 4), m(50, 5)],
    [{ membership_id: 10, group_id: 1 }, { membership_id: 40, group_id: 4 }]
  )
  t.same(plan.join.map((x) => x.id), [3], "a claimed group the person is not in")
  t.same(plan.accept.map((x) => x.id), [20], "a pending invitation to a claimed group")
  t.same(plan.leave, [40], "the membership the claim made in a group no longer claimed; 50, made otherwise, stays")
})
