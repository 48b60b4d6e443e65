import { Effect } from "effect"
import type { Group, Id, Membership, Page, User } from "../domain/records.js"
import { forbidden, type Forbidden, type Invalid, invalid, notFound, type NotFound } from "../errors.js"
import { Store } from "../ports/store.js"
import type { Access } from "../rules/access.js"
import { Invite, LeaveGroup, ListMembers, ManageMembers, type Permit } from "../policies.js"
import { planMembershipSync } from "../rules/memberships.js"
import { normaliseEmail } from "../rules/users.js"
import { checkEmails, nowIso, type Paged } from "./common.js"
import { hashApiKey, newApiKey } from "../rules/keys.js"
import { ballotsForNewMembers, revokeBallots } from "./ballots.js"
import { endDelegations } from "./delegatedBallots.js"
import { findGroup } from "./groups.js"
import { recordGroupInvitation } from "./mail.js"
import * as People from "./people.js"

/** A group; in a write, locked first: one group's memberships are checked and changed in turn, on every server. */
const groupById = (id: Id): Effect.Effect<Group, NotFound, Store> =>
  Effect.flatMap(Store, (store) =>
    Effect.flatMap(Effect.zipRight(store.lock({ table: "groups", id }), store.groups.byId(id)),
      (g) => (g === undefined ? Effect.fail(notFound(`Group ${id} not found`)) : Effect.succeed(g))))

export interface MembershipList extends Paged<Membership> {
  readonly group: Group
  readonly users: ReadonlyArray<User>
}

/** The group's members, where ListMembers allowed the caller to list them. */
const groupMembers = Effect.fnUntraced(function*(group: Group, page: Page): Effect.fn.Return<MembershipList, never, Store | Permit<"ListMembers">> {
  yield* ListMembers.needed
  const store = yield* Store
  const records = yield* store.memberships.activeInGroup(group.id, page)
  const total = yield* store.memberships.countActiveInGroup(group.id)
  const userIds = [...new Set(records.flatMap((m) => (m.inviter_id === null ? [m.user_id] : [m.user_id, m.inviter_id])))]
  const users = yield* store.users.byIds(userIds)
  return { group, records, total, users }
})

/**
 * GET /memberships: members (and parent-group admins) read the list; anyone else gets an empty list,
 * as Loomio's MembershipQuery does. Unknown group → 404.
 */
export const listMemberships = Effect.fnUntraced(function*(access: Access, groupId: Id, page: Page): Effect.fn.Return<MembershipList, NotFound, Store> {
  const group = yield* groupById(groupId)
  return yield* ListMembers.checkOr([access, group], (): MembershipList => ({ group, records: [], total: 0, users: [] }))(groupMembers(group, page))
})

/** Every live membership of a group, by id: the operator's view (the CLI), with no permission check. */
export const listGroupMembers = (groupId: Id, page: Page): Effect.Effect<ReadonlyArray<Membership>, never, Store> =>
  Effect.flatMap(Store, (store) => store.memberships.activeInGroup(groupId, page))

/**
 * The group's accepted members who are people (not bots, not deactivated), but those `except`: whom a page offers to
 * choose (a delegate, voters to invite). The use case that takes the choice asks its own rule again.
 */
export const choosableMembers = Effect.fnUntraced(function*(groupId: Id, except: ReadonlySet<Id>): Effect.fn.Return<ReadonlyArray<User>, never, Store> {
  const store = yield* Store
  const members = (yield* store.memberships.activeInGroup(groupId, { limit: 5000, offset: 0 })).filter((m) => m.accepted_at !== null && !except.has(m.user_id))
  return (yield* store.users.byIds(members.map((m) => m.user_id))).filter((u) => !u.bot && u.deactivated_at === null)
})

export const userForEmail = Effect.fnUntraced(function*(email: string): Effect.fn.Return<User, never, Store> {
  const store = yield* Store
  const existing = yield* store.users.byEmail(email)
  if (existing !== undefined) return existing
  const now = yield* nowIso
  return yield* store.users.insert({
    name: null,
    username: null,
    email,
    country: null,
    is_admin: false,
    bot: false,
    api_key_hash: hashApiKey(newApiKey()),
    placeholder: true,
    created_at: now,
    updated_at: now
  })
})

/** A pending membership plus its invitation in the mail outbox. */
const invite = Effect.fnUntraced(function*(group: Group, user: User, actor: User | null, message: string | null = null) {
  const membership = yield* admitMember(group, user, { inviterId: actor?.id ?? null, pending: true })
  yield* recordGroupInvitation(group, user, actor, message)
  yield* People.noteInvitationSent(membership.id)
  return membership
})

/**
 * Invites each address not yet in the group (a pending membership and its mail), and sends a pending member's
 * invitation again with a fresh token, at most once a day (so an integration that syncs often floods nobody).
 * Shared by the API's membership sync and the group page's Invite people. Call inside the transaction.
 */
const inviteAddresses = Effect.fnUntraced(function*(
  group: Group,
  requested: ReadonlyArray<string>,
  current: ReadonlyArray<{ readonly membership: Membership; readonly email: string }>,
  actor: User,
  message: string | null
) {
  const store = yield* Store
  const held = new Map(current.map((c) => [c.email, c.membership]))
  const added: Array<string> = []
  const reinvited: Array<string> = []
  for (const email of requested) {
    const membership = held.get(email)
    if (membership === undefined) {
      const user = yield* userForEmail(email)
      // an address already held by a live membership of a deactivated user is not re-invited
      if ((yield* store.memberships.activeFor(group.id, user.id)) !== undefined) continue
      yield* invite(group, user, actor, message)
      added.push(email)
    } else if (membership.accepted_at === null && (yield* People.reinviteAllowed(membership.id))) {
      const user = yield* store.users.byId(membership.user_id)
      if (user === undefined) continue
      yield* recordGroupInvitation(group, user, actor, message)
      reinvited.push(email)
    }
  }
  return { added, reinvited }
})

export interface SyncResult {
  readonly added_emails: ReadonlyArray<string>
  readonly removed_emails: ReadonlyArray<string>
}

/** The group's members made the list given: the missing invited, the others removed when asked, where ManageMembers allowed it. */
const syncGroupMembers = Effect.fnUntraced(function*(access: Access, group: Group, requested: ReadonlyArray<string>, removeAbsent: boolean): Effect.fn.Return<SyncResult, Invalid, Store | Permit<"ManageMembers">> {
  yield* ManageMembers.needed
  const store = yield* Store
  const current = yield* store.memberships.activeEmails(group.id)
  const plan = planMembershipSync(requested, current.map((c) => c.email))
  const { added } = yield* inviteAddresses(group, requested, current, access.user, null)
  const removed: Array<string> = []
  if (removeAbsent) {
    const gone = new Set(plan.remove)
    for (const { membership, email } of current) {
      if (!gone.has(email)) continue
      yield* revokeMembership(group, membership, access.user.id)
      removed.push(email)
    }
  }
  return { added_emails: added, removed_emails: removed }
})

/**
 * POST /memberships: invites every address not yet in the group; with `removeAbsent`, revokes every
 * member whose address is absent (the caller included, as Loomio). Group administrators only.
 */
export const syncMemberships = Effect.fnUntraced(function*(
  access: Access,
  groupId: Id,
  emails: ReadonlyArray<string>,
  removeAbsent: boolean
): Effect.fn.Return<SyncResult, NotFound | Forbidden | Invalid, Store> {
  const store = yield* Store
  yield* checkEmails("emails", emails)
  const requested = [...new Set(emails.map(normaliseEmail))]
  return yield* store.transaction(Effect.gen(function*() {
    const group = yield* groupById(groupId)
    return yield* ManageMembers.check([access, group], () => forbidden("User is not an admin"))(syncGroupMembers(access, group, requested, removeAbsent))
  }))
})

export interface NewMember {
  readonly group: Group
  readonly user: User
  readonly admin?: boolean
  readonly delegate?: boolean
  /** true: an invitation (pending, recorded in the mail outbox); false: an accepted membership */
  readonly pending?: boolean
}

/**
 * A person joins a group: the membership (accepted now, or pending an invitation) and a ballot in each of the
 * group's open polls. Call inside a transaction, once the caller has decided they may.
 */
export const admitMember = Effect.fnUntraced(function*(group: Group, user: User, options: { inviterId?: Id | null; admin?: boolean; delegate?: boolean; pending?: boolean } = {}) {
  const store = yield* Store
  const now = yield* nowIso
  const membership = yield* store.memberships.insert({
    group_id: group.id,
    user_id: user.id,
    inviter_id: options.inviterId ?? null,
    admin: options.admin ?? false,
    delegate: options.delegate ?? false,
    title: null,
    accepted_at: options.pending ? null : now,
    created_at: now
  })
  if (!options.pending) yield* store.users.claim(user.id)
  yield* ballotsForNewMembers(group, [user.id])
  return membership
})

/** A group's administrators who accepted and are active: the people told of what only they answer for. */
export const activeAdministrators = Effect.fnUntraced(function*(group: Group): Effect.fn.Return<ReadonlyArray<User>, never, Store> {
  const store = yield* Store
  const admins = yield* store.memberships.acceptedAdmins(group.id)
  return (yield* store.users.byIds(admins.map((m) => m.user_id))).filter((u) => u.deactivated_at === null)
})

/** Operator adds a member (CLI). */
export const addMember = Effect.fnUntraced(function*(input: NewMember): Effect.fn.Return<Membership, Invalid, Store> {
  const store = yield* Store
  return yield* store.transaction(Effect.gen(function*() {
    if (input.user.deactivated_at !== null) return yield* invalid("user", "is deactivated")
    yield* store.lock({ table: "groups", id: input.group.id })
    if ((yield* store.memberships.activeFor(input.group.id, input.user.id)) !== undefined) {
      return yield* invalid("user", "is already a member of this group")
    }
    const membership = yield* admitMember(input.group, input.user, input)
    if (input.pending) yield* recordGroupInvitation(input.group, input.user, null)
    return membership
  }))
})

/**
 * A membership ends: the person's ballots in the group's open polls go with it, and so does a pending
 * invitation's link (it answers 410 from now on: a revoked invitation signs nobody in). Call inside a transaction.
 */
export const revokeMembership = Effect.fnUntraced(function*(group: Group, m: Membership, revokerId: Id | null, keepVotes = false) {
  const store = yield* Store
  const now = yield* nowIso
  yield* store.memberships.revoke(m.id, now, revokerId)
  yield* revokeBallots(group.id, m.user_id, revokerId, keepVotes)
  yield* endDelegations(group, m.user_id, revokerId)
  yield* store.invitations.supersede(m.user_id, "group", group.id, now)
})

/** Operator revokes a membership (CLI). */
export const removeMember = Effect.fnUntraced(function*(group: Group, user: User): Effect.fn.Return<Membership, NotFound, Store> {
  const store = yield* Store
  return yield* store.transaction(Effect.gen(function*() {
    yield* store.lock({ table: "groups", id: group.id })
    const m = yield* store.memberships.activeFor(group.id, user.id)
    if (m === undefined) return yield* notFound(`User ${user.id} is not a member of group ${group.id}`)
    yield* revokeMembership(group, m, null)
    return (yield* store.memberships.byId(m.id))!
  }))
})

/** An invitation's own message: at most this many characters. */
const MESSAGE_MAX = 2000

/** Invitations to the addresses given, where Invite allowed the caller to invite to the group. */
const inviteRequested = Effect.fnUntraced(function*(access: Access, group: Group, emails: ReadonlyArray<string>, note: string | null): Effect.fn.Return<{ readonly invited: ReadonlyArray<string> }, Invalid, Store | Permit<"Invite">> {
  yield* Invite.needed
  const store = yield* Store
  const requested = [...new Set(emails.map(normaliseEmail))]
  const { added, reinvited } = yield* inviteAddresses(group, requested, yield* store.memberships.activeEmails(group.id), access.user, note)
  return { invited: [...added, ...reinvited] }
})

/**
 * The group page's "Invite people" (decisions §9): invites every address not yet in the group, with the
 * inviter's message; a pending member is invited again (a fresh link, at most once a day). Never removes.
 */
export const inviteToGroup = Effect.fnUntraced(function*(
  access: Access,
  groupId: Id,
  emails: ReadonlyArray<string>,
  message: string
): Effect.fn.Return<{ readonly invited: ReadonlyArray<string> }, NotFound | Forbidden | Invalid, Store> {
  const store = yield* Store
  if (emails.length === 0) return yield* invalid("emails", "can't be blank")
  if (emails.length > 100) return yield* invalid("emails", "at most 100 at a time")
  yield* checkEmails("emails", emails)
  if (message.length > MESSAGE_MAX) return yield* invalid("message", `is too long (maximum is ${MESSAGE_MAX} characters)`)
  const note = message.trim() === "" ? null : message.trim()
  return yield* store.transaction(Effect.gen(function*() {
    const group = yield* groupById(groupId)
    return yield* Invite.check([access, group], () => forbidden("You may not invite people to this group"))(inviteRequested(access, group, emails, note))
  }))
})

/** The members page's admin actions: `step` on one live membership of the group, where ManageMembers allows the caller. */
const managingMembership = <A, E, R>(access: Access, groupId: Id, membershipId: Id, step: (group: Group, membership: Membership) => Effect.Effect<A, E, R>) =>
  Effect.flatMap(groupById(groupId), (group) =>
    ManageMembers.check([access, group], () => forbidden("User is not an admin"))(Effect.flatMap(Store, (store) =>
      Effect.flatMap(store.memberships.byId(membershipId), (m): Effect.Effect<A, E | NotFound, R> =>
        m === undefined || m.group_id !== group.id || m.revoked_at !== null ? Effect.fail(notFound("Membership not found")) : step(group, m)))))

/** **Make admin** on the members page. */
export const makeAdmin = Effect.fnUntraced(function*(access: Access, groupId: Id, membershipId: Id): Effect.fn.Return<Membership, NotFound | Forbidden, Store> {
  const store = yield* Store
  return yield* store.transaction(managingMembership(access, groupId, membershipId, (_group, membership) => Effect.gen(function*() {
    yield* ManageMembers.needed
    yield* store.memberships.setAdmin(membership.id, true, yield* nowIso)
    return (yield* store.memberships.byId(membership.id))!
  })))
})

/** **Remove** on the members page: the membership ends as the API's removal does (ballots and pending link go too). */
export const removeMembership = Effect.fnUntraced(function*(access: Access, groupId: Id, membershipId: Id): Effect.fn.Return<Membership, NotFound | Forbidden, Store> {
  const store = yield* Store
  return yield* store.transaction(managingMembership(access, groupId, membershipId, (group, membership) => Effect.gen(function*() {
    yield* ManageMembers.needed
    yield* revokeMembership(group, membership, access.user.id)
    return (yield* store.memberships.byId(membership.id))!
  })))
})

/**
 * The members page's actions on an invitation still pending: `step` on it, where Invite allows the caller (whoever
 * may invite to the group may send an invitation again or take it back, as decisions §9 amended says).
 */
const managingInvitation = <A, E, R>(access: Access, groupId: Id, membershipId: Id, step: (group: Group, membership: Membership, invitee: User) => Effect.Effect<A, E, R>) =>
  Effect.flatMap(groupById(groupId), (group) =>
    Invite.check([access, group], () => forbidden("You may not invite people to this group"))(Effect.gen(function*() {
      const store = yield* Store
      const m = yield* store.memberships.byId(membershipId)
      if (m === undefined || m.group_id !== group.id || m.revoked_at !== null || m.accepted_at !== null) return yield* notFound("Invitation not found")
      const invitee = yield* store.users.byId(m.user_id)
      if (invitee === undefined) return yield* notFound("Invitation not found")
      return yield* step(group, m, invitee)
    })))

/**
 * **Resend invitation**: a fresh link by mail (the earlier one stops working), at most once a day per invitation
 * (`sent` false: it was sent less than a day ago, and nothing is sent).
 */
export const resendInvitation = Effect.fnUntraced(function*(access: Access, groupId: Id, membershipId: Id): Effect.fn.Return<{ readonly invitee: User; readonly sent: boolean }, NotFound | Forbidden, Store> {
  const store = yield* Store
  return yield* store.transaction(managingInvitation(access, groupId, membershipId, (group, membership, invitee) => Effect.gen(function*() {
    yield* Invite.needed
    if (!(yield* People.reinviteAllowed(membership.id))) return { invitee, sent: false }
    yield* recordGroupInvitation(group, invitee, access.user, null)
    return { invitee, sent: true }
  })))
})

/** **Cancel invitation**: the pending membership ends, and its link with it. */
export const cancelInvitation = Effect.fnUntraced(function*(access: Access, groupId: Id, membershipId: Id): Effect.fn.Return<{ readonly invitee: User }, NotFound | Forbidden, Store> {
  const store = yield* Store
  return yield* store.transaction(managingInvitation(access, groupId, membershipId, (group, membership, invitee) => Effect.gen(function*() {
    yield* Invite.needed
    yield* revokeMembership(group, membership, access.user.id)
    return { invitee }
  })))
})

/** A membership of the group with its person, where ManageMembers allowed the caller to see it. */
const memberOf = Effect.fnUntraced(function*(group: Group, membershipId: Id): Effect.fn.Return<{ readonly membership: Membership; readonly user: User | undefined }, NotFound, Store | Permit<"ManageMembers">> {
  yield* ManageMembers.needed
  const store = yield* Store
  const membership = yield* store.memberships.byId(membershipId)
  if (membership === undefined || membership.group_id !== group.id) return yield* notFound("Membership not found")
  return { membership, user: yield* store.users.byId(membership.user_id) }
})

/** A membership of the group, live or ended, with its person, for an administrator of the group (the members page's notices). */
export const groupMember = Effect.fnUntraced(function*(access: Access, groupId: Id, membershipId: Id): Effect.fn.Return<{ readonly membership: Membership; readonly user: User | undefined }, NotFound | Forbidden, Store> {
  const group = yield* groupById(groupId)
  return yield* ManageMembers.check([access, group], () => forbidden("User is not an admin"))(memberOf(group, membershipId))
})

/** What **Leave group** asks before it leaves: the group, and whether the person is its last administrator (it will have none). */
export interface Leaving {
  readonly group: Group
  readonly lastAdmin: boolean
}

const leavingOf = Effect.fnUntraced(function*(access: Access, group: Group): Effect.fn.Return<Leaving, never, Store> {
  const store = yield* Store
  const mine = access.memberships.get(group.id)
  const admins = mine?.admin === true ? (yield* store.groups.withCounts([group.id]))[0]?.counts.admin_memberships_count ?? 0 : 0
  return { group, lastAdmin: mine?.admin === true && admins <= 1 }
})

/** The confirmation page of **Leave group**, to a member. */
export const leavingGroup = Effect.fnUntraced(function*(access: Access, ref: string): Effect.fn.Return<Leaving, NotFound | Forbidden, Store> {
  const group = yield* findGroup(ref)
  return yield* LeaveGroup.check([access, group], () => notFound("Group not found"))(Effect.zipRight(LeaveGroup.needed, leavingOf(access, group)))
})

const departing = Effect.fnUntraced(function*(access: Access, group: Group): Effect.fn.Return<Leaving, never, Store | Permit<"LeaveGroup">> {
  yield* LeaveGroup.needed
  const store = yield* Store
  const leaving = yield* leavingOf(access, group)
  for (const g of [group, ...(yield* store.groups.children([group.id]))]) {
    const m = yield* store.memberships.activeFor(g.id, access.user.id)
    // the votes cast stay counted; the ballots not cast go with the membership
    if (m !== undefined) yield* revokeMembership(g, m, access.user.id, true)
  }
  return leaving
})

/**
 * **Leave group** (decisions §12): the person's membership of the group and of its subgroups ends, and their ballots
 * not cast in its open polls with it (a vote cast stays). A last administrator may leave: the group then has none.
 */
export const leaveGroup = Effect.fnUntraced(function*(access: Access, ref: string): Effect.fn.Return<Leaving, NotFound | Forbidden, Store> {
  const store = yield* Store
  return yield* store.transaction(Effect.gen(function*() {
    // found in the transaction: locked by the same read (findGroup)
    const group = yield* findGroup(ref)
    return yield* LeaveGroup.check([access, group], () => notFound("Group not found"))(departing(access, group))
  }))
})
