import t from "tap"
import { aGroup, aMembership, aUser } from "./fixtures.js"
import { type Group, type Membership, Rules, type User } from "@convene/core"

const user = (id: number, over: Partial<User> = {}): User => aUser({ id, name: `U${id}`, email: `u${id}@x.org`, ...over })
const group = aGroup
const membership = aMembership

t.test("canShowGroup", async (t) => {
  const parent = group(1)
  const table: Array<[string, Group, Array<Membership>, Partial<User>, boolean]> = [
    ["member", group(2), [membership(2, 9)], {}, true],
    ["pending invitee", group(2), [membership(2, 9, { accepted_at: null })], {}, true],
    ["revoked member", group(2), [membership(2, 9, { revoked_at: "x" })], {}, false],
    ["non-member of hidden group", group(2), [], {}, false],
    ["non-member of public group", group(2, { is_visible_to_public: true }), [], {}, true],
    ["instance admin, not a member", group(2), [], { is_admin: true }, false],
    ["parent member, subgroup visible to parent members", group(2, { parent_id: 1, is_visible_to_parent_members: true }), [membership(1, 9)], {}, true],
    ["parent member, subgroup hidden", group(2, { parent_id: 1 }), [membership(1, 9)], {}, false],
    ["deactivated member", group(2), [membership(2, 9)], { deactivated_at: "x" }, false]
  ]
  for (const [name, g, ms, u, expected] of table) {
    t.equal(Rules.canShowGroup(Rules.makeAccess(user(9, u), ms), g), expected, name)
  }
  t.equal(parent.id, 1)
})

t.test("member management and e-mail visibility", async (t) => {
  const g = group(2, { parent_id: 1 })
  const admin = Rules.makeAccess(user(1), [membership(2, 1, { admin: true })])
  const member = Rules.makeAccess(user(2), [membership(2, 2)])
  const parentAdmin = Rules.makeAccess(user(3), [membership(1, 3, { admin: true })])
  const outsider = Rules.makeAccess(user(4, { is_admin: true }), [])
  t.same([admin, member, parentAdmin, outsider].map((a) => Rules.canManageMembers(a, g)), [true, false, false, false])
  t.same([admin, member, parentAdmin, outsider].map((a) => Rules.canListMembers(a, g)), [true, true, true, false])
  const someone = membership(2, 7)
  t.same([admin, member].map((a) => Rules.canSeeMemberEmail(a, someone)), [true, false])
  t.equal(Rules.canSeeMemberEmail(member, membership(2, 2)), true, "own membership")
})

t.test("planMembershipSync", async (t) => {
  t.same(Rules.planMembershipSync(["a", "b"], ["b", "c"]), { add: ["a"], remove: ["c"] })
  t.same(Rules.planMembershipSync([], ["b"]), { add: [], remove: ["b"] })
  t.same(Rules.planMembershipSync(["a", "a"], []), { add: ["a"], remove: [] })
})

t.test("user input rules", async (t) => {
  t.ok(Rules.isEmail("a@b.org"))
  for (const bad of ["", "a", "a@b", "a b@c.org", "@c.org"]) t.notOk(Rules.isEmail(bad), bad)
  t.equal(Rules.normaliseEmail("  Ada@Example.ORG "), "ada@example.org")
  t.ok(Rules.isHandle("my-group"))
  t.notOk(Rules.isHandle("My Group"))
  t.equal(Rules.displayName({ name: null, username: null }), "Anonymous")
  t.equal(Rules.fullName(group(2), group(1)), "G1 - G2")
})

t.test("hashApiKey: the stored SHA-256 hex of a key, as a Hash object gives it (any text, UTF-8)", async (t) => {
  const { createHash } = await import("node:crypto")
  const { hashApiKey } = await import("@convene/core")
  for (const key of ["k3y_-A", "Gärtnerei 🌱 key", ""]) t.equal(hashApiKey(key), createHash("sha256").update(key, "utf8").digest("hex"), key)
  t.equal(hashApiKey("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", "the known digest of abc")
})

t.test("makeAccess: a frozen (cached) list's memberships by group made once; any other list read as it is now", async (t) => {
  const ada = user(9)
  const frozen = Object.freeze([membership(2, 9), membership(3, 9, { revoked_at: "x" })])
  const first = Rules.makeAccess(ada, frozen)
  t.same([...first.memberships.keys()], [2], "only the live membership")
  t.equal(Rules.makeAccess(user(9, { name: "Ada" }), frozen).memberships, first.memberships, "the same map for the same frozen list")
  t.equal(Rules.makeAccess(user(9, { name: "Ada" }), frozen).user.name, "Ada", "the user is the one given")
  const open = [membership(2, 9)]
  t.same([...Rules.makeAccess(ada, open).memberships.keys()], [2])
  open.push(membership(4, 9))
  t.same([...Rules.makeAccess(ada, open).memberships.keys()], [2, 4], "a list that is not frozen is read again")
})
