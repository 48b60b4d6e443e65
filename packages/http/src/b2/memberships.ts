import { group } from "../group.js"
import { Groups, Inputs, Memberships } from "@convene/core"
import { Effect } from "effect"
import { ConveneApi } from "../api.js"
import { requireAccess } from "../auth.js"
import { envelope, wants } from "../envelope.js"
import { ok, respond } from "../errors.js"
import { decode, inputFields } from "../request.js"
import { groupListRequest } from "../lists.js"
import { groupJson, membershipJson, userJson } from "../serializers.js"

const decodeSync = decode(Inputs.MembershipsInput)

/** GET /memberships, shared with /api/b1. */
export const listMembershipsResponse = Effect.fnUntraced(function*(params: Parameters<typeof groupListRequest>[0]) {
  const { access, groupId, opts, page } = yield* groupListRequest(params)
  const list = yield* Memberships.listMemberships(access, groupId, page)
  const emails = new Map(list.users.map((u) => [u.id, u.email]))
  const groups = wants(opts, "group") && list.records.length > 0 ? yield* Groups.viewGroups([list.group]) : []
  return ok(envelope(
    opts,
    "memberships",
    list.records.map((m) => membershipJson(access, m, emails.get(m.user_id))),
    [
      { type: "user", root: "users", records: list.users.map((u) => userJson(access, u)) },
      { type: "group", root: "groups", records: groups.map(groupJson) }
    ],
    list.total
  ))
}, respond)

/** POST /memberships, shared with /api/b1. */
export const syncMembershipsResponse = respond(Effect.gen(function*() {
  const access = yield* requireAccess
  const input = yield* Effect.flatMap(inputFields("membership"), decodeSync)
  return ok(yield* Memberships.syncMemberships(access, input.group_id, input.emails, input.remove_absent ?? false))
}))

export const B2MembershipsLive = group(ConveneApi, "b2.memberships", (handlers) =>
  handlers
    .handleRaw("listMemberships", ({ urlParams }) => listMembershipsResponse(urlParams))
    .handleRaw("manageMemberships", () => syncMembershipsResponse))
