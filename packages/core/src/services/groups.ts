import { Context, Effect } from "effect"
import {
  BOOLEAN_GROUP_SETTINGS,
  DISCUSSION_PRIVACY_OPTIONS,
  type DiscussionPrivacyOptions,
  type Group,
  GROUP_DEFAULTS,
  MEMBERSHIP_GRANTED_UPON,
  type GroupCounts,
  type GroupSettings,
  type Id,
  type User
} from "../domain/records.js"
import { forbidden, type Forbidden, type Invalid, invalid, notFound, type NotFound } from "../errors.js"
import { canAuditDelegations, canDelegate, DELEGATION_LIMIT, delegationLimitErrors } from "../rules/delegation.js"
import { settleInGroup } from "./delegatedBallots.js"
import { GROUP_PERMISSIONS, type GroupInput, type GroupSettingsInput } from "../domain/inputs.js"
import { Store } from "../ports/store.js"
import { plainLineErrors } from "../rules/values.js"
import type { Access } from "../rules/access.js"
import {
  canAskToJoin,
  canDeleteGroup,
  canInvite,
  canJoinGroup,
  canLeaveGroup,
  canManageJoining,
  canNotifyGroup,
  canListMembers,
  canManageGroup,
  canManageMembers,
  canShowGroup,
  canStartGroup,
  canStartSubgroup,
  handleErrors,
  handleFrom,
  joiningUnder,
  privacyColumns,
  privacyOf
} from "../rules/groups.js"
import { canStartDiscussion } from "../rules/discussions.js"
import { canStartPoll } from "../rules/polls.js"
import { ManageGroup, type Permit, ShowGroup, StartGroup, StartSubgroup } from "../policies.js"
import { bodyLengthErrors } from "../rules/bodies.js"
import { nowIso, readLocked } from "./common.js"
import { newRecordKey } from "../rules/keys.js"

/** A group as every reader gets it: the record, its exact counters and its parent (for full_name). */
export interface GroupView {
  readonly group: Group
  readonly counts: GroupCounts
  readonly parent: Group | undefined
}

/** Groups as readers get them, fresh with their counters, and their parents: two queries at most, none per group. */
const views = Effect.fnUntraced(function*(ids: ReadonlyArray<Id>): Effect.fn.Return<ReadonlyArray<GroupView>, never, Store> {
  const store = yield* Store
  const rows = yield* store.groups.withCounts([...new Set(ids)])
  const known = new Map(rows.map((r) => [r.group.id, r.group]))
  const missing = [...new Set(rows.flatMap(({ group: g }) => (g.parent_id !== null && !known.has(g.parent_id) ? [g.parent_id] : [])))]
  for (const p of yield* store.groups.byIds(missing)) known.set(p.id, p)
  return rows.map(({ counts, group }) => ({ group, counts, parent: group.parent_id === null ? undefined : known.get(group.parent_id) }))
})

/**
 * These groups as readers get them, in the order given. The counters are read now, not with the groups: a
 * write's answer shows its own effect on them.
 */
export const viewGroups = (groups: ReadonlyArray<Group>): Effect.Effect<ReadonlyArray<GroupView>, never, Store> =>
  Effect.map(views(groups.map((g) => g.id)), (found) => {
    const byId = new Map(found.map((v) => [v.group.id, v]))
    return groups.flatMap((g) => byId.get(g.id) ?? [])
  })

/** The groups with these ids (repeats counted once) as readers get them: what documents side-load. */
export const viewGroupsById = (ids: ReadonlyArray<Id>): Effect.Effect<ReadonlyArray<GroupView>, never, Store> => views(ids)

/** A group by id, key or handle; in a write, locked (ports/store.ts `lock`): its members and settings change in turn. */
export const findGroup = (ref: string): Effect.Effect<Group, NotFound, Store> =>
  Effect.flatMap(Store, (store) =>
    // a deleted group is not found (decisions §12: archived at once, purged later)
    Effect.flatMap(readLocked("groups", store.groups.byRef(ref), store.groups.byId), (g) =>
      g === undefined || g.archived_at !== null ? Effect.fail(notFound(`Group ${ref} not found`)) : Effect.succeed(g)))

/** GET /groups: every group where the caller has a live membership, not paginated. */
export const listGroupsFor = (access: Access) =>
  Effect.flatMap(Store, (store) => Effect.flatMap(store.groups.forUser(access.user.id), viewGroups))

/** GET /groups/{id}: unknown → 404; not visible to the caller → 403 (spec: "permission error"). */
export const showGroup = Effect.fnUntraced(function*(access: Access, ref: string): Effect.fn.Return<GroupView, NotFound | Forbidden, Store> {
  const group = yield* findGroup(ref)
  return yield* ShowGroup.check([access, group], () => forbidden("Not authorized to show Group."))(
    Effect.zipRight(ShowGroup.needed, Effect.map(viewGroups([group]), (views) => views[0]!)))
})

/**
 * A step on a group its administrators look after (its tags, its poll templates), where ManageGroup allows the
 * person; `what` names it in the refusal. `managedWrite`: the same, as one write.
 */
export const managed = <A, E, R>(access: Access, ref: string, what: string, step: (group: Group) => Effect.Effect<A, E, R>) =>
  Effect.flatMap(showGroup(access, ref), ({ group }) =>
    ManageGroup.check([access, group], () => forbidden(`Only the group's administrators manage its ${what}`))(step(group)))

export const managedWrite = <A, E, R>(access: Access, ref: string, what: string, step: (group: Group) => Effect.Effect<A, E, R>) =>
  Effect.flatMap(Store, (store) => store.transaction(managed(access, ref, what, step)))

export type SettingsInput = Partial<GroupSettings>

/** Parses `KEY=VALUE` settings (CLI) into typed settings; unknown keys and bad values are errors. */
export const parseSettings = Effect.fnUntraced(function*(pairs: ReadonlyArray<string>): Effect.fn.Return<SettingsInput, Invalid> {
  const out: Record<string, unknown> = {}
  for (const pair of pairs) {
    const eq = pair.indexOf("=")
    const key = eq < 0 ? pair : pair.slice(0, eq)
    const value = eq < 0 ? "" : pair.slice(eq + 1)
    if ((BOOLEAN_GROUP_SETTINGS as ReadonlyArray<string>).includes(key)) {
      if (!["true", "false", "1", "0"].includes(value)) return yield* invalid(key, "must be true or false")
      out[key] = value === "true" || value === "1"
    } else if (key === "discussion_privacy_options") {
      if (!(DISCUSSION_PRIVACY_OPTIONS as ReadonlyArray<string>).includes(value)) {
        return yield* invalid(key, `must be one of ${DISCUSSION_PRIVACY_OPTIONS.join(", ")}`)
      }
      out[key] = value as DiscussionPrivacyOptions
    } else if (key === "membership_granted_upon") {
      if (!(MEMBERSHIP_GRANTED_UPON as ReadonlyArray<string>).includes(value)) return yield* invalid(key, `must be one of ${MEMBERSHIP_GRANTED_UPON.join(", ")}`)
      out[key] = value
    } else if (key === "description") {
      out[key] = value
    } else {
      return yield* invalid(key, "is not a group setting")
    }
  }
  return out as SettingsInput
})

/** Loomio: a hidden group's discussions are always private. */
const checkSettings = (s: GroupSettings): Effect.Effect<void, Invalid> =>
  !s.is_visible_to_public && s.discussion_privacy_options === "public_only" && !s.is_visible_to_parent_members
    ? Effect.fail(invalid("discussion_privacy_options", "must be private_only for a group hidden from the public"))
    : Effect.void

export interface NewGroup {
  readonly name: string
  readonly owner: User
  readonly parent?: Group
  readonly handle?: string
  /** Visible to the public, with public or private discussions ("open"). Default: secret. */
  readonly public?: boolean
  readonly settings?: SettingsInput
}

/** Creates a group; the owner becomes its first (accepted) administrator. */
export const createGroup = Effect.fnUntraced(function*(input: NewGroup): Effect.fn.Return<GroupView, Invalid, Store> {
  const store = yield* Store
  const name = input.name.trim()
  const nameProblem = plainLineErrors(name, true)
  if (nameProblem !== null) return yield* invalid("name", nameProblem)
  if (input.owner.deactivated_at !== null) return yield* invalid("owner", "is deactivated")
  const settings: GroupSettings = {
    ...GROUP_DEFAULTS,
    ...(input.public ? { is_visible_to_public: true, discussion_privacy_options: "public_or_private" as const, membership_granted_upon: "approval" as const } : {}),
    ...input.settings
  }
  yield* checkSettings(settings)
  return yield* store.transaction(Effect.gen(function*() {
    if (input.handle !== undefined) yield* freeHandle(input.handle, undefined)
    const now = yield* nowIso
    const group = yield* store.groups.insert({
      ...settings,
      members_can_delegate: false,
      delegation_limit: DELEGATION_LIMIT,
      key: newRecordKey(),
      handle: input.handle ?? null,
      name,
      parent_id: input.parent?.id ?? null,
      creator_id: input.owner.id,
      join_link_epoch: 0,
      archived_at: null,
      created_at: now
    })
    yield* store.memberships.insert({
      group_id: group.id,
      user_id: input.owner.id,
      inviter_id: null,
      admin: true,
      delegate: false,
      title: null,
      accepted_at: now,
      created_at: now
    })
    return (yield* viewGroups([group]))[0]!
  }))
})

/**
 * Whether only the server's administrators may start groups (FEATURES_DISABLE_CREATE_GROUP=1, decisions §12); by
 * default anyone signed in may. The server, the command line or an embedder provides it.
 */
export class GroupCreation extends Context.Reference<GroupCreation>()("@convene/core/GroupCreation", {
  defaultValue: () => ({ onlyAdmins: false })
}) {}

/** What **Start group** and **Start subgroup** take (decisions §12): the API's input (domain/inputs.ts), a blank handle made from the name. */
export type GroupStart = Omit<typeof GroupInput.Type, "parent_id">

/** A handle typed for a group: its form (under its parent: `parentHandle`), and no other group's. */
const freeHandle = Effect.fnUntraced(function*(wanted: string, parentHandle: string | null | undefined): Effect.fn.Return<void, Invalid, Store> {
  const problem = handleErrors(wanted, parentHandle)
  if (problem !== null) return yield* invalid("handle", problem)
  if ((yield* (yield* Store).groups.byHandle(wanted)) !== undefined) return yield* invalid("handle", "has already been taken")
})

/**
 * The handle a new group gets: the one given (its form checked here under the parent, its freedom by createGroup),
 * or one made from its name and numbered past those taken; none where the parent has none.
 */
const newHandle = Effect.fnUntraced(function*(given: string, name: string, parent: Group | undefined): Effect.fn.Return<string | null, Invalid, Store> {
  const store = yield* Store
  const parentHandle = parent === undefined ? undefined : parent.handle
  const wanted = given.trim().toLowerCase()
  if (wanted !== "") {
    const problem = handleErrors(wanted, parentHandle)
    return problem === null ? wanted : yield* invalid("handle", problem)
  }
  if (parentHandle === null) return null
  const base = handleFrom(name, parentHandle ?? null)
  for (let n = 0; n < 20 && handleErrors(base, parentHandle) === null; n++) {
    const candidate = n === 0 ? base : `${base.slice(0, 62 - String(n).length)}-${n}`
    if ((yield* store.groups.byHandle(candidate)) === undefined) return candidate
  }
  return null
})

/** A group started by a person: its handle, its description, and the person its first administrator. */
const foundGroup = Effect.fnUntraced(function*(access: Access, input: GroupStart, parent: Group | undefined): Effect.fn.Return<GroupView, Invalid, Store> {
  // the name first, as createGroup will: a blank name is the form's first message
  const name = input.name.trim()
  const nameProblem = plainLineErrors(name, true)
  if (nameProblem !== null) return yield* invalid("name", nameProblem)
  const description = (input.description ?? "").trim()
  const tooLong = bodyLengthErrors(description)
  if (tooLong !== null) return yield* invalid("description", tooLong)
  const handle = yield* newHandle(input.handle ?? "", name, parent)
  return yield* createGroup({
    name,
    owner: access.user,
    ...(parent === undefined ? {} : { parent }),
    ...(handle === null ? {} : { handle }),
    // new groups are secret, as Loomio's; a subgroup is seen by its parent's members (Loomio's "closed" within a secret parent)
    settings: { description: description === "" ? null : description, ...(parent === undefined ? {} : { is_visible_to_parent_members: true }) }
  })
})

const insertGroup = Effect.fnUntraced(function*(access: Access, input: GroupStart): Effect.fn.Return<GroupView, Invalid, Store | Permit<"StartGroup">> {
  yield* StartGroup.needed
  return yield* foundGroup(access, input, undefined)
})

const insertSubgroup = Effect.fnUntraced(function*(access: Access, input: GroupStart, parent: Group): Effect.fn.Return<GroupView, Invalid, Store | Permit<"StartSubgroup">> {
  yield* StartSubgroup.needed
  return yield* foundGroup(access, input, parent)
})

/** **Start group**: the person becomes the new group's administrator. */
export const startGroup = Effect.fnUntraced(function*(access: Access, input: GroupStart): Effect.fn.Return<GroupView, Invalid | Forbidden, Store> {
  const { onlyAdmins } = yield* GroupCreation
  return yield* StartGroup.check([access, onlyAdmins], () => forbidden("You may not start a group"))(insertGroup(access, input))
})

/** **Start subgroup** of the group `parentRef` (its administrators; one level deep). */
export const startSubgroup = Effect.fnUntraced(function*(access: Access, parentRef: string, input: GroupStart): Effect.fn.Return<GroupView, NotFound | Forbidden | Invalid, Store> {
  const { group: parent } = yield* showGroup(access, parentRef)
  return yield* StartSubgroup.check([access, parent], () => forbidden("You may not start a subgroup here"))(insertSubgroup(access, input, parent))
})

/** Whether the person may start a group here (the home page's **Start a group**). */
export const mayStartGroup = (access: Access): Effect.Effect<boolean> => Effect.map(GroupCreation, ({ onlyAdmins }) => canStartGroup(access, onlyAdmins))

/**
 * **Save settings** (decisions §12): name, handle, description, privacy with all that Loomio's privacy change writes
 * (the group's threads public or private in bulk; a group made secret makes its subgroups closed and their threads
 * private), and the permission flags. What is left out stays.
 */
export const changeGroupSettings = Effect.fnUntraced(function*(access: Access, ref: string, input: typeof GroupSettingsInput.Type): Effect.fn.Return<GroupView, NotFound | Forbidden | Invalid, Store> {
  const store = yield* Store
  return yield* store.transaction(Effect.gen(function*() {
    const { group } = yield* showGroup(access, ref)
    return yield* ManageGroup.check([access, group], () => forbidden("Only the group's administrators change its settings"))(applyGroupSettings(group, input))
  }))
})

const applyGroupSettings = Effect.fnUntraced(function*(group: Group, input: typeof GroupSettingsInput.Type): Effect.fn.Return<GroupView, Invalid, Store | Permit<"ManageGroup">> {
  yield* ManageGroup.needed
  const store = yield* Store
  const parent = group.parent_id === null ? undefined : yield* store.groups.byId(group.parent_id)
  const patch: Record<string, unknown> = {}
  if (input.name !== undefined) {
    const name = input.name.trim()
    const problem = plainLineErrors(name, true)
    if (problem !== null) return yield* invalid("name", problem)
    patch.name = name
  }
  if (input.handle !== undefined) {
    const wanted = (input.handle ?? "").trim().toLowerCase()
    if (wanted !== "" && wanted !== group.handle) yield* freeHandle(wanted, parent === undefined ? undefined : parent.handle)
    patch.handle = wanted === "" ? null : wanted
  }
  if (input.description !== undefined) {
    const description = (input.description ?? "").trim()
    const tooLong = bodyLengthErrors(description)
    if (tooLong !== null) return yield* invalid("description", tooLong)
    patch.description = description === "" ? null : description
  }
  for (const flag of GROUP_PERMISSIONS) if (input[flag] !== undefined) patch[flag] = input[flag]
  if (input.members_can_delegate !== undefined) patch.members_can_delegate = input.members_can_delegate
  if (input.delegation_limit !== undefined) {
    const problem = delegationLimitErrors(input.delegation_limit)
    if (problem !== null) return yield* invalid("delegation_limit", problem)
    patch.delegation_limit = input.delegation_limit
  }
  const now = yield* nowIso
  let threadsPrivate: boolean | undefined
  if (input.group_privacy !== undefined) {
    const columns = privacyColumns(input.group_privacy, group, parent)
    if (columns === undefined) return yield* invalid("group_privacy", "can only be closed or secret in a secret parent group")
    const { threadsPrivate: threads, ...written } = columns
    Object.assign(patch, written)
    threadsPrivate = threads
  }
  // who can join follows the privacy (a closed group asks, a secret one invites); an open group's is chosen
  const privacy = input.group_privacy ?? privacyOf(group)
  patch.membership_granted_upon = joiningUnder(privacy, input.membership_granted_upon ?? group.membership_granted_upon)
  yield* store.groups.update(group.id, { ...patch, updated_at: now })
  if (threadsPrivate !== undefined) yield* store.topics.setPrivacyIn([group.id], threadsPrivate, now)
  // a group made secret hides its subgroups from the public too: each closed, its threads private
  if (input.group_privacy === "secret") {
    const subgroups = yield* store.groups.children([group.id])
    for (const sub of subgroups) {
      const { threadsPrivate: threads, ...written } = privacyColumns("closed", sub, { ...group, is_visible_to_public: false })!
      yield* store.groups.update(sub.id, { ...written, membership_granted_upon: joiningUnder("closed", sub.membership_granted_upon), updated_at: now })
      if (threads !== undefined) yield* store.topics.setPrivacyIn([sub.id], threads, now)
    }
  }
  const updated = (yield* store.groups.byId(group.id))!
  // who counts for whom follows the group's delegation settings at once, in its open polls
  if (updated.members_can_delegate !== group.members_can_delegate || updated.delegation_limit !== group.delegation_limit) {
    yield* settleInGroup(updated, (yield* store.delegations.activeIn(group.id)).map((d) => d.delegator_id))
  }
  return (yield* viewGroups([updated]))[0]!
})

/** Operator changes to a group's settings (CLI). */
export const updateGroupSettings = Effect.fnUntraced(function*(ref: string, settings: SettingsInput): Effect.fn.Return<GroupView, NotFound | Invalid, Store> {
  const store = yield* Store
  return yield* store.transaction(Effect.gen(function*() {
    const group = yield* findGroup(ref)
    yield* checkSettings({ ...group, ...settings })
    yield* store.groups.update(group.id, { ...settings, updated_at: yield* nowIso })
    return (yield* viewGroups([(yield* store.groups.byId(group.id))!]))[0]!
  }))
})

/** Every group on the instance (operator view). */
export const listAllGroups = Effect.flatMap(Store, (store) => Effect.flatMap(store.groups.list(), viewGroups))

export type { Id }

/** A group as its page shows it: the group, the subgroups the reader may see, and what the rules let them start there. */
export interface GroupPage extends GroupView {
  readonly subgroups: ReadonlyArray<Group>
  readonly may: {
    readonly discuss: boolean
    readonly poll: boolean
    readonly invite: boolean
    readonly members: boolean
    readonly manage: boolean
    readonly subgroup: boolean
    readonly settings: boolean
    readonly leave: boolean
    /** notify everyone in the group when starting a thread or poll (members_can_announce) */
    readonly announce: boolean
    readonly join: boolean
    readonly ask: boolean
    /** requests to join and the shareable link */
    readonly requests: boolean
    readonly delete: boolean
    /** name a delegate (decisions §15) */
    readonly delegate: boolean
    /** every grant and revoke of delegations */
    readonly auditDelegations: boolean
  }
}

export const groupPage = Effect.fnUntraced(function*(access: Access, ref: string): Effect.fn.Return<GroupPage, NotFound | Forbidden, Store> {
  const store = yield* Store
  const view = yield* showGroup(access, ref)
  const subgroups = (yield* store.groups.children([view.group.id])).filter((g) => canShowGroup(access, g))
  return Object.assign({}, view, {
    subgroups,
    may: {
      discuss: canStartDiscussion(access, view.group),
      poll: canStartPoll(access, view.group, undefined),
      invite: canInvite(access, view.group),
      members: canListMembers(access, view.group),
      manage: canManageMembers(access, view.group),
      subgroup: canStartSubgroup(access, view.group),
      settings: canManageGroup(access, view.group),
      leave: canLeaveGroup(access, view.group),
      announce: canNotifyGroup(access, view.group),
      join: canJoinGroup(access, view.group),
      ask: canAskToJoin(access, view.group),
      requests: canManageJoining(access, view.group),
      delete: canDeleteGroup(access, view.group),
      delegate: canDelegate(access, view.group),
      auditDelegations: canAuditDelegations(access, view.group)
    }
  })
})
