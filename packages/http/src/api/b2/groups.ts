import { group } from "../group.js"
import { type Access, Delegation, GroupDeletion, isNumericId, Groups, type Groups as G, Joining, loadAccess, Memberships, ThreadAdmin, Volumes } from "@convene/core"
import { Effect } from "effect"
import { ConveneApi } from "../api.js"
import { requireAccess } from "../auth.js"
import { envelope, type ResponseOptions, responseOptions, wants } from "../envelope.js"
import { delegationJson, groupJson, membershipJson } from "../serializers.js"
import { Settings } from "../../settings.js"

/** Groups with their parents (under `parent_groups`) and the caller's own memberships. */
const groupsDocument = (access: Access, opts: ResponseOptions, views: ReadonlyArray<G.GroupView>) => {
  // parents already in the list keep their view; only the others are counted
  const listed = new Map(views.map((v) => [v.group.id, v]))
  const parentGroups = [...new Map(views.flatMap((v) => (v.parent === undefined ? [] : [[v.parent.id, v.parent] as const]))).values()]
  const parents = wants(opts, "parent")
    ? Effect.map(Groups.viewGroups(parentGroups.filter((p) => !listed.has(p.id))), (counted) => [
      ...parentGroups.flatMap((p) => (listed.has(p.id) ? [listed.get(p.id)!] : [])),
      ...counted
    ])
    : Effect.succeed([])
  return Effect.map(parents, (parentViews) =>
    envelope(opts, "groups", views.map(groupJson), [
      { type: "parent", root: "parent_groups", records: parentViews.map(groupJson) },
      {
        type: "membership",
        root: "memberships",
        records: views.flatMap((v) => {
          const m = access.memberships.get(v.group.id)
          return m === undefined ? [] : [membershipJson(access, m, access.user.email)]
        })
      }
    ]))
}

export const B2GroupsLive = group(ConveneApi, "b2.groups", requireAccess, (handlers) =>
  handlers
    .handle("listGroups", Effect.fnUntraced(function*({ access, urlParams }) {
      const opts = responseOptions(urlParams)
      const views = yield* Groups.listGroupsFor(access)
      return yield* groupsDocument(access, opts, views)
    }))
    .handle("getGroup", Effect.fnUntraced(function*({ access, path, urlParams }) {
      const opts = responseOptions(urlParams)
      const view = yield* Groups.showGroup(access, path.id)
      return yield* groupsDocument(access, opts, [view])
    }))
    .handle("createGroup", Effect.fnUntraced(function*({ access, payload: { parent_id, ...input } }) {
      const view = yield* (parent_id === undefined ? Groups.startGroup(access, input) : Groups.startSubgroup(access, String(parent_id), input))
      // the caller's new membership, side-loaded as on every groups document
      return yield* groupsDocument(yield* loadAccess(access.user), responseOptions({}), [view])
    }))
    .handle("updateGroup", Effect.fnUntraced(function*({ access, path, payload }) {
      const view = yield* Groups.changeGroupSettings(access, path.id, payload)
      return yield* groupsDocument(access, responseOptions({}), [view])
    }))
    .handle("leaveGroup", Effect.fnUntraced(function*({ access, path }) {
      yield* Memberships.leaveGroup(access, path.id)
      return { success: true as const }
    }))
    .handle("setGroupVolume", Effect.fnUntraced(function*({ access, path, payload: { volume } }) {
      const view = yield* Groups.showGroup(access, path.id)
      const set = yield* Volumes.setGroupVolume(access, view.group.id, volume)
      return { volume: { group_id: view.group.id, volume: set, effective: set } }
    }))
    .handle("deleteGroup", ({ access, path }) => Effect.as(GroupDeletion.deleteGroup(access, path.id), { success: true as const }))
    .handle("joinGroup", Effect.fnUntraced(function*({ access, path }) {
      const view = yield* Joining.joinGroup(access, path.id)
      return yield* groupsDocument(yield* loadAccess(access.user), responseOptions({}), [view])
    }))
    .handle("askToJoin", ({ access, path, payload }) =>
      Effect.map(Joining.askToJoin(access, path.id, payload.introduction), (request) => ({ membership_requests: [request] })))
    .handle("listMembershipRequests", ({ access, path }) =>
      Effect.map(Joining.listRequests(access, path.id), ({ requests }) => ({ membership_requests: requests.map((r) => r.request) })))
    .handle("approveMembershipRequest", ({ access, path }) =>
      Effect.map(Joining.answerRequest(access, path.id, idOf(path.request_id), true), (r) => ({ membership_requests: [r.request] })))
    .handle("declineMembershipRequest", ({ access, path, payload }) =>
      Effect.map(Joining.answerRequest(access, path.id, idOf(path.request_id), false, payload.reason ?? ""), (r) => ({ membership_requests: [r.request] })))
    .handle("getJoinLink", Effect.fnUntraced(function*({ access, path }) {
      return { join_link: { url: joinUrl(yield* Settings, yield* Joining.joinLink(access, path.id)) } }
    }))
    .handle("resetJoinLink", Effect.fnUntraced(function*({ access, path }) {
      return { join_link: { url: joinUrl(yield* Settings, yield* Joining.resetJoinLink(access, path.id)) } }
    }))
    .handle("getDelegation", ({ access, path }) => Effect.map(Delegation.showDelegation(access, path.id), (v) => ({ delegation: delegationJson(v) })))
    .handle("setDelegation", ({ access, path, payload }) => Effect.map(Delegation.delegateVote(access, path.id, payload.delegate_id), (v) => ({ delegation: delegationJson(v) })))
    .handle("deleteDelegation", ({ access, path }) => Effect.map(Delegation.revokeDelegation(access, path.id), (v) => ({ delegation: delegationJson(v) })))
    .handle("listTags", ({ access, path }) => Effect.map(ThreadAdmin.groupTags(access, path.id), ({ tags }) => ({ tags })))
    .handle("createTag", ({ access, path, payload }) => Effect.map(ThreadAdmin.addTag(access, path.id, payload), (tag) => ({ tags: [tag] })))
    .handle("updateTag", ({ access, path, payload }) => Effect.map(ThreadAdmin.changeTag(access, path.id, idOf(path.tag_id), payload), (tag) => ({ tags: [tag] })))
    .handle("deleteTag", ({ access, path }) => Effect.as(ThreadAdmin.removeTag(access, path.id, idOf(path.tag_id)), { success: true as const })))

/** A numeric path segment (a malformed one names no record: 0, not found). */
const idOf = (raw: string) => (isNumericId(raw) ? Number(raw) : 0)

const joinUrl = (settings: { readonly baseUrl: string }, path: string) => new URL(path, settings.baseUrl).toString()
