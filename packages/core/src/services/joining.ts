/**
 * Letting people in (decisions §12, "Joining"): **Join group** where anyone can join, **Ask to join** where joining is
 * approved (the requests answered by those who may invite, the requester told by mail either way), the shareable link
 * that makes whoever follows it and signs in a member, and the public directory of open groups.
 */
import { createHmac } from "node:crypto"
import { Effect } from "effect"
import type { Group, Id, MembershipRequest, Page, User } from "../domain/records.js"
import { forbidden, type Forbidden, type Invalid, invalid, notFound, type NotFound } from "../errors.js"
import { Store } from "../ports/store.js"
import type { Access } from "../rules/access.js"
import { canAskToJoin, canJoinGroup, declineReasonErrors, introductionErrors, isExplorable } from "../rules/groups.js"
import { secretsEqual } from "../rules/keys.js"
import { displayName } from "../rules/users.js"
import { headlineFor } from "../rules/webhookPayloads.js"
import { AskToJoin, JoinByLink, JoinGroup, ManageJoining, type Permit } from "../policies.js"
import { nowIso } from "./common.js"
import { publishEvent } from "./events.js"
import { findGroup, type GroupView, showGroup, viewGroups } from "./groups.js"
import { recordThreadMessage } from "./mail.js"
import { activeAdministrators, admitMember } from "./memberships.js"
import { serverSecret } from "./people.js"

/** The group, locked for the write by the read itself (findGroup inside a transaction): its memberships change in turn. */
const lockedGroup = (access: Access, ref: string): Effect.Effect<Group, NotFound | Forbidden, Store> => Effect.map(showGroup(access, ref), (v) => v.group)

/** The person becomes an accepted member (a pending invitation of theirs is accepted). */
const becomeMember = Effect.fnUntraced(function*(group: Group, user: User, inviterId: Id | null) {
  const store = yield* Store
  const present = yield* store.memberships.activeFor(group.id, user.id)
  if (present === undefined) return yield* admitMember(group, user, { inviterId })
  if (present.accepted_at === null) {
    yield* store.memberships.accept(present.id, yield* nowIso)
    yield* store.users.claim(user.id)
  }
  return present
})

const joining = Effect.fnUntraced(function*(access: Access, group: Group): Effect.fn.Return<GroupView, never, Store | Permit<"JoinGroup">> {
  yield* JoinGroup.needed
  yield* becomeMember(group, access.user, null)
  return (yield* viewGroups([group]))[0]!
})

/** **Join group** (an open group anyone can join; Loomio's `request`): a member at once. */
export const joinGroup = Effect.fnUntraced(function*(access: Access, ref: string): Effect.fn.Return<GroupView, NotFound | Forbidden, Store> {
  const store = yield* Store
  return yield* store.transaction(Effect.gen(function*() {
    const group = yield* lockedGroup(access, ref)
    return yield* JoinGroup.check([access, group], () => forbidden("You may not join this group: ask to join, or ask for an invitation"))(joining(access, group))
  }))
})

const asking = Effect.fnUntraced(function*(access: Access, group: Group, introduction: string): Effect.fn.Return<MembershipRequest, Invalid, Store | Permit<"AskToJoin">> {
  yield* AskToJoin.needed
  const store = yield* Store
  const text = introduction.trim()
  const problem = introductionErrors(text)
  if (problem !== null) return yield* invalid("introduction", problem)
  if ((yield* store.membershipRequests.waiting(group.id, access.user.id)) !== undefined) {
    return yield* invalid("introduction", "you have asked already: your request waits for an answer")
  }
  const now = yield* nowIso
  const request = yield* store.membershipRequests.insert({ group_id: group.id, requestor_id: access.user.id, introduction: text, created_at: now })
  // Loomio tells only the administrators
  for (const admin of yield* activeAdministrators(group)) {
    yield* recordThreadMessage(admin, { kind: "membership_requested", group: undefined, title: group.name, actor: access.user, message: text, path: `/g/${group.key}/requests` })
  }
  yield* publishEvent({
    kind: "membership_requested",
    group_id: group.id,
    actor_id: access.user.id,
    eventable_type: "MembershipRequest",
    eventable_id: request.id,
    message: { headline: headlineFor("membership_requested", displayName(access.user)), title: group.name, path: `/g/${group.key}/requests`, body: null, recipient_message: null }
  })
  return request
})

/**
 * **Ask to join** (a group whose joining is approved): "Why do you want to join?" is required (at most 250
 * characters); a second request while one waits is refused; the administrators are told by mail.
 */
export const askToJoin = Effect.fnUntraced(function*(access: Access, ref: string, introduction: string): Effect.fn.Return<MembershipRequest, NotFound | Forbidden | Invalid, Store> {
  const store = yield* Store
  return yield* store.transaction(Effect.gen(function*() {
    const group = yield* lockedGroup(access, ref)
    return yield* AskToJoin.check([access, group], () => forbidden("You may not ask to join this group"))(asking(access, group, introduction))
  }))
})

/** What the group page offers the reader about joining, from the rules (and whether their request waits). */
export const joiningOptions = Effect.fnUntraced(function*(access: Access, group: Group) {
  const store = yield* Store
  const ask = canAskToJoin(access, group)
  return {
    join: canJoinGroup(access, group),
    ask,
    requested: ask && (yield* store.membershipRequests.waiting(group.id, access.user.id)) !== undefined
  }
})

export interface RequestView {
  readonly request: MembershipRequest
  readonly requestor: User | undefined
  readonly responder: User | undefined
}

const requestsOf = Effect.fnUntraced(function*(group: Group): Effect.fn.Return<ReadonlyArray<RequestView>, never, Store | Permit<"ManageJoining">> {
  yield* ManageJoining.needed
  const store = yield* Store
  const requests = yield* store.membershipRequests.inGroup(group.id, 50)
  const people = new Map((yield* store.users.byIds(requests.flatMap((r) => [r.requestor_id, ...(r.responder_id === null ? [] : [r.responder_id])]))).map((u) => [u.id, u]))
  return requests.map((request) => ({
    request,
    requestor: people.get(request.requestor_id),
    responder: request.responder_id === null ? undefined : people.get(request.responder_id)
  }))
})

/** `/g/{key}/requests`: those waiting, oldest first, then the last 50 answered (those who may invite). */
export const listRequests = Effect.fnUntraced(function*(access: Access, ref: string): Effect.fn.Return<{ readonly group: Group; readonly requests: ReadonlyArray<RequestView> }, NotFound | Forbidden, Store> {
  const { group } = yield* showGroup(access, ref)
  return { group, requests: yield* ManageJoining.check([access, group], () => forbidden("Only those who may invite see requests to join"))(requestsOf(group)) }
})

const answering = Effect.fnUntraced(function*(access: Access, group: Group, requestId: Id, approve: boolean, reason: string): Effect.fn.Return<RequestView, NotFound | Invalid, Store | Permit<"ManageJoining">> {
  yield* ManageJoining.needed
  const store = yield* Store
  const request = yield* store.membershipRequests.byId(requestId)
  if (request === undefined || request.group_id !== group.id) return yield* notFound("Request not found")
  const message = reason.trim()
  const problem = declineReasonErrors(message)
  if (problem !== null) return yield* invalid("reason", problem)
  if (request.response !== null) return yield* invalid("request", `was ${request.response} already`)
  const requestor = (yield* store.users.byIds([request.requestor_id]))[0]
  const now = yield* nowIso
  yield* store.membershipRequests.respond(request.id, {
    response: approve ? "approved" : "declined",
    responder_id: access.user.id,
    response_message: approve || message === "" ? null : message,
    responded_at: now
  })
  if (requestor !== undefined && requestor.deactivated_at === null) {
    if (approve) yield* becomeMember(group, requestor, access.user.id)
    yield* recordThreadMessage(requestor, {
      kind: approve ? "membership_request_approved" : "membership_request_declined",
      group: undefined,
      title: group.name,
      actor: access.user,
      message: approve ? null : message === "" ? null : message,
      path: `/g/${group.key}`
    })
  }
  return { request: (yield* store.membershipRequests.byId(request.id))!, requestor, responder: access.user }
})

/** **Approve** (a member at once) or **Decline** (with an optional reason) a request; the requester is told by mail. */
export const answerRequest = Effect.fnUntraced(function*(access: Access, ref: string, requestId: Id, approve: boolean, reason = ""): Effect.fn.Return<RequestView, NotFound | Forbidden | Invalid, Store> {
  const store = yield* Store
  return yield* store.transaction(Effect.gen(function*() {
    const group = yield* lockedGroup(access, ref)
    return yield* ManageJoining.check([access, group], () => forbidden("Only those who may invite answer requests to join"))(answering(access, group, requestId, approve, reason))
  }))
})

/** The shareable link's token: the group's key and a MAC of it and its epoch under the server's secret (none stored). */
const linkToken = (group: Group, secret: string): string =>
  `${group.key}.${createHmac("sha256", secret).update(`join:${group.key}:${group.join_link_epoch}`).digest("base64url").slice(0, 32)}`

/** The shareable link's path (`/join/TOKEN`: the pages' route), to those who may invite. */
const linkOf = (group: Group): Effect.Effect<string, never, Store | Permit<"ManageJoining">> =>
  Effect.zipRight(ManageJoining.needed, Effect.map(serverSecret("join-links"), (secret) => `/join/${linkToken(group, secret)}`))

/** The shareable link's path (those who may invite). */
export const joinLink = Effect.fnUntraced(function*(access: Access, ref: string): Effect.fn.Return<string, NotFound | Forbidden, Store> {
  const { group } = yield* showGroup(access, ref)
  return yield* ManageJoining.check([access, group], () => forbidden("Only those who may invite see the group's link"))(linkOf(group))
})

const resetting = Effect.fnUntraced(function*(group: Group): Effect.fn.Return<string, never, Store | Permit<"ManageJoining">> {
  yield* ManageJoining.needed
  const store = yield* Store
  yield* store.groups.nextJoinLink(group.id, yield* nowIso)
  return yield* linkOf((yield* store.groups.byId(group.id))!)
})

/** **Reset link**: a new link's path; the old link stops working. */
export const resetJoinLink = Effect.fnUntraced(function*(access: Access, ref: string): Effect.fn.Return<string, NotFound | Forbidden, Store> {
  const store = yield* Store
  return yield* store.transaction(Effect.gen(function*() {
    const group = yield* lockedGroup(access, ref)
    return yield* ManageJoining.check([access, group], () => forbidden("Only those who may invite reset the group's link"))(resetting(group))
  }))
})

/** The group a shareable link admits to, when the token is its present one (compared in constant time). */
export const groupOfLink = Effect.fnUntraced(function*(token: string): Effect.fn.Return<Group | undefined, never, Store> {
  const dot = token.lastIndexOf(".")
  if (dot <= 0 || token.length > 200) return undefined
  const group = yield* Effect.orElseSucceed(findGroup(token.slice(0, dot)), () => undefined)
  if (group === undefined || group.archived_at !== null || group.key !== token.slice(0, dot)) return undefined
  return secretsEqual(linkToken(group, yield* serverSecret("join-links")), token) ? group : undefined
})

const joiningByLink = Effect.fnUntraced(function*(access: Access, group: Group): Effect.fn.Return<Group, never, Store | Permit<"JoinByLink">> {
  yield* JoinByLink.needed
  yield* becomeMember(group, access.user, null)
  return group
})

/** Following the shareable link, signed in: a member, whatever the group's privacy (as Loomio's). */
export const joinByLink = Effect.fnUntraced(function*(access: Access, token: string): Effect.fn.Return<Group, NotFound | Forbidden, Store> {
  const store = yield* Store
  return yield* store.transaction(Effect.gen(function*() {
    const group = yield* groupOfLink(token)
    if (group === undefined) return yield* notFound("This link no longer works: ask for a new one")
    return yield* JoinByLink.check([access], () => forbidden("Sign in to join"))(joiningByLink(access, group))
  }))
})

/** `/explore`: open top-level groups whose name or description holds `q`, largest first. */
export const exploreGroups = (q: string, page: Page): Effect.Effect<ReadonlyArray<GroupView>, never, Store> =>
  Effect.flatMap(Store, (store) =>
    Effect.map(store.groups.explore(q.trim(), page), (rows) =>
      rows.filter(({ group }) => isExplorable(group)).map(({ counts, group }) => ({ group, counts, parent: undefined }))))
