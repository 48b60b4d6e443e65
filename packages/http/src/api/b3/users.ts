import { group } from "../group.js"
import { type Inputs, Users } from "@convene/core"
import { Effect } from "effect"
import { ConveneApi } from "../api.js"
import { requireServerAdmin } from "../auth.js"
import type { ApiError } from "../../errors.js"
import { numericId } from "../request.js"
import { page } from "../params.js"
import { serverUserJson } from "../serializers.js"

type Ref = Users.UserRef

/** A path id that is not a whole number names no user. */
const refById = ({ path }: { path: { id: string } }) => Effect.map(numericId(path.id, "User"), (n): Ref => ({ id: n }))
const refByIdentity = ({ path }: { path: { identity_type: string; uid: string } }) =>
  Effect.succeed<Ref>({ identity_type: path.identity_type, uid: path.uid })
const refByQuery = ({ urlParams }: { urlParams: { id: number } }) => Effect.succeed<Ref>({ id: urlParams.id })

const userDoc = (u: Users.UserWithIdentities) => ({ user: serverUserJson(u.user, u.identities) })
const successWithUser = (u: Users.UserWithIdentities) => ({ success: true as const, ...userDoc(u) })
const success = { success: true } as const

/** The operations, each written once on a user; `on` serves one by id, by identity or (where Loomio has it) by query id. */
const op = {
  show: (ref: Ref) => Effect.map(Users.showUser(ref), userDoc),
  update: (ref: Ref, input: { payload: typeof Inputs.ServerUserUpdate.Type }) => Effect.map(Users.updateUser(ref, input.payload.user), userDoc),
  remove: (ref: Ref) => Effect.as(Users.deleteUser(ref), success),
  deactivate: (ref: Ref) => Effect.map(Users.deactivateUser(ref), successWithUser),
  reactivate: (ref: Ref) => Effect.map(Users.reactivateUser(ref), successWithUser),
  redact: (ref: Ref) => Effect.as(Users.redactUser(ref), success)
}

/** `find` names the user from the request; the operation runs on it. */
const on = <I, J, A, E, R>(find: (input: I) => Effect.Effect<Ref, ApiError>, run: (ref: Ref, input: J) => Effect.Effect<A, E, R>) =>
  (input: I & J) => Effect.flatMap(find(input), (ref) => run(ref, input))

/** Server secret first (the group's access step), then the reference, then the operation. */
export const B3UsersLive = group(ConveneApi, "b3.users", requireServerAdmin, (handlers) =>
  handlers
    .handle("listServerUsers", Effect.fnUntraced(function*({ urlParams: p }) {
      const list = yield* Users.listUsers(p.is_admin === undefined ? {} : { is_admin: p.is_admin }, page(p, 200))
      return { users: list.records.map((u) => serverUserJson(u.user, u.identities)), meta: { root: "users", total: list.total } }
    }))
    .handle("getServerUser", on(refById, op.show))
    .handle("updateServerUser", on(refById, op.update))
    .handle("replaceServerUser", on(refById, op.update))
    .handle("deleteServerUser", on(refById, op.remove))
    .handle("deactivateServerUser", on(refById, op.deactivate))
    .handle("reactivateServerUser", on(refById, op.reactivate))
    .handle("redactServerUser", on(refById, op.redact))
    .handle("getServerUserByIdentity", on(refByIdentity, op.show))
    .handle("updateServerUserByIdentity", on(refByIdentity, op.update))
    .handle("deleteServerUserByIdentity", on(refByIdentity, op.remove))
    .handle("deactivateServerUserByIdentity", on(refByIdentity, op.deactivate))
    .handle("reactivateServerUserByIdentity", on(refByIdentity, op.reactivate))
    .handle("redactServerUserByIdentity", on(refByIdentity, op.redact))
    .handle("deactivateServerUserLegacy", on(refByQuery, op.deactivate))
    .handle("reactivateServerUserLegacy", on(refByQuery, op.reactivate)))
