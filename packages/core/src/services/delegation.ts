/**
 * Delegated voting's use cases (decisions §15): a member reads, names and revokes their delegate in a group; the
 * group's administrators read every grant and revoke. Each change settles the member's ballots in the group's open
 * polls in the same transaction (delegatedBallots.ts), so a count never sees a delegation without its ballots.
 */
import { Effect } from "effect"
import type { Delegation } from "../domain/polls.js"
import type { Group, Id, User } from "../domain/records.js"
import { forbidden, type Forbidden, type Invalid, invalid, type NotFound } from "../errors.js"
import { Store } from "../ports/store.js"
import type { Access } from "../rules/access.js"
import { delegationErrors } from "../rules/delegation.js"
import { AuditDelegations, Delegate, HoldDelegation, type Permit } from "../policies.js"
import { nowIso } from "./common.js"
import { settleInGroup } from "./delegatedBallots.js"
import { showGroup } from "./groups.js"
import { choosableMembers } from "./memberships.js"

export interface DelegationView {
  readonly group: Group
  /** the caller's delegate now, or none */
  readonly delegation: Delegation | undefined
  readonly delegate: User | undefined
  /** those who delegated to the caller, oldest first (within the group's limit, each counts) */
  readonly delegators: ReadonlyArray<User>
}

const view = Effect.fnUntraced(function*(access: Access, group: Group): Effect.fn.Return<DelegationView, never, Store | Permit<"HoldDelegation">> {
  yield* HoldDelegation.needed
  const store = yield* Store
  const delegation = yield* store.delegations.activeOf(group.id, access.user.id)
  const delegate = delegation === undefined ? undefined : yield* store.users.byId(delegation.delegate_id)
  const toMe = yield* store.delegations.toDelegate(group.id, access.user.id)
  const people = new Map((yield* store.users.byIds(toMe.map((d) => d.delegator_id))).map((u) => [u.id, u]))
  return { group, delegation, delegate, delegators: toMe.map((d) => people.get(d.delegator_id)).filter((u): u is User => u !== undefined) }
})

const notYours = () => forbidden("Only the group's members have a delegate there")

/** GET /groups/{id}/delegation: the caller's delegate in the group and who delegated to them. */
export const showDelegation = Effect.fnUntraced(function*(access: Access, ref: string): Effect.fn.Return<DelegationView, NotFound | Forbidden, Store> {
  const { group } = yield* showGroup(access, ref)
  return yield* HoldDelegation.check([access, group], notYours)(view(access, group))
})

/**
 * PUT /groups/{id}/delegation: the caller names their delegate (another accepted member, within the delegate's
 * limit), replacing the one they had; their ballots in the group's open polls follow at once.
 */
export const delegateVote = Effect.fnUntraced(function*(access: Access, ref: string, delegateId: Id): Effect.fn.Return<DelegationView, NotFound | Forbidden | Invalid, Store> {
  const store = yield* Store
  return yield* store.transaction(Effect.gen(function*() {
    const { group } = yield* showGroup(access, ref)
    const refused = () => group.members_can_delegate ? notYours() : forbidden("This group does not let its members delegate their vote")
    return yield* Delegate.check([access, group], refused)(HoldDelegation.check([access, group], notYours)(Effect.gen(function*() {
      yield* Delegate.needed
      const now = yield* nowIso
      const current = yield* store.delegations.activeOf(group.id, access.user.id)
      if (current?.delegate_id !== delegateId) {
        const membership = yield* store.memberships.activeFor(group.id, delegateId)
        const holds = (yield* store.delegations.toDelegate(group.id, delegateId)).filter((d) => d.delegator_id !== access.user.id).length
        const delegate = yield* store.users.byId(delegateId)
        const problem = delegationErrors(group, access.user.id, delegateId,
          membership !== undefined && membership.accepted_at !== null && delegate !== undefined && delegate.deactivated_at === null && !delegate.bot, holds)
        if (problem !== null) return yield* invalid("delegate_id", problem)
        if (current !== undefined) yield* store.delegations.revoke(current.id, now, access.user.id)
        yield* store.delegations.grant({ group_id: group.id, delegator_id: access.user.id, delegate_id: delegateId, created_at: now })
        yield* settleInGroup(group, [access.user.id])
      }
      return yield* view(access, group)
    })))
  }))
})

/** DELETE /groups/{id}/delegation: the caller's delegation ends (kept, revoked); ballots cast through it are withdrawn. */
export const revokeDelegation = Effect.fnUntraced(function*(access: Access, ref: string): Effect.fn.Return<DelegationView, NotFound | Forbidden, Store> {
  const store = yield* Store
  return yield* store.transaction(Effect.gen(function*() {
    const { group } = yield* showGroup(access, ref)
    return yield* HoldDelegation.check([access, group], notYours)(Effect.gen(function*() {
      const current = yield* store.delegations.activeOf(group.id, access.user.id)
      if (current !== undefined) {
        yield* store.delegations.revoke(current.id, yield* nowIso, access.user.id)
        yield* settleInGroup(group, [access.user.id])
      }
      return yield* view(access, group)
    }))
  }))
})

/**
 * Whom the caller may name (the page's choices): the group's other accepted members who are people, not bots,
 * each with how many delegations they hold; the core asks the rule again when one is named.
 */
export const delegateChoices = Effect.fnUntraced(function*(access: Access, group: Group): Effect.fn.Return<ReadonlyArray<{ readonly user: User; readonly holds: number }>, never, Store> {
  const store = yield* Store
  const held = new Map<Id, number>()
  for (const d of yield* store.delegations.activeIn(group.id)) held.set(d.delegate_id, (held.get(d.delegate_id) ?? 0) + 1)
  return (yield* choosableMembers(group.id, new Set([access.user.id]))).map((user) => ({ user, holds: held.get(user.id) ?? 0 }))
})

export interface DelegationRecord {
  readonly delegation: Delegation
  readonly delegator: User | undefined
  readonly delegate: User | undefined
  readonly revoker: User | undefined
}

/** Every grant and revoke in the group, newest first, with the people named: for its administrators. */
export const delegationHistory = Effect.fnUntraced(function*(access: Access, group: Group, limit = 200): Effect.fn.Return<ReadonlyArray<DelegationRecord>, Forbidden, Store> {
  const store = yield* Store
  return yield* AuditDelegations.check([access, group], () => forbidden("Only the group's administrators see its delegations"))(Effect.gen(function*() {
    yield* AuditDelegations.needed
    const rows = yield* store.delegations.history(group.id, limit)
    const ids = [...new Set(rows.flatMap((d) => [d.delegator_id, d.delegate_id, ...(d.revoker_id === null ? [] : [d.revoker_id])]))]
    const people = new Map((yield* store.users.byIds(ids)).map((u) => [u.id, u]))
    return rows.map((d) => ({ delegation: d, delegator: people.get(d.delegator_id), delegate: people.get(d.delegate_id), revoker: d.revoker_id === null ? undefined : people.get(d.revoker_id) }))
  }))
})
