import { group } from "../group.js"
import { type Access, Groups, type Inputs, Memberships } from "@convene/core"
import { Effect } from "effect"
import { ConveneApi } from "../api.js"
import { requireAccess } from "../auth.js"
import { envelope, wants } from "../envelope.js"
import { groupListRequest } from "../lists.js"
import { groupJson, membershipJson, userJson } from "../serializers.js"

/** GET /memberships, shared with /api/b1. */
export const listMemberships = Effect.fnUntraced(function*({ access, urlParams }: { access: Access; urlParams: Parameters<typeof groupListRequest>[0] }) {
  const { groupId, opts, page } = groupListRequest(urlParams)
  const list = yield* Memberships.listMemberships(access, groupId, page)
  const emails = new Map(list.users.map((u) => [u.id, u.email]))
  const groups = wants(opts, "group") && list.records.length > 0 ? yield* Groups.viewGroups([list.group]) : []
  return envelope(
    opts,
    "memberships",
    list.records.map((m) => membershipJson(access, m, emails.get(m.user_id))),
    [
      { type: "user", root: "users", records: list.users.map((u) => userJson(access, u)) },
      { type: "group", root: "groups", records: groups.map(groupJson) }
    ],
    list.total
  )
})

/** POST /memberships, shared with /api/b1. */
export const syncMemberships = ({ access, payload }: { access: Access; payload: typeof Inputs.MembershipsInput.Type }) =>
  Memberships.syncMemberships(access, payload.group_id, payload.emails, payload.remove_absent ?? false)

export const B2MembershipsLive = group(ConveneApi, "b2.memberships", requireAccess, (handlers) =>
  handlers.handle("listMemberships", listMemberships).handle("manageMemberships", syncMemberships))
