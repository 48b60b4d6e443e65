import { group } from "../group.js"
import { type Inputs, Users } from "@convene/core"
import { Effect } from "effect"
import { ConveneApi } from "../api.js"
import { requireServerAdmin } from "../auth.js"
import type { ApiError } from "../errors.js"
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

/**
 * The operations, each written once and served by id, by identity and (where Loomio has it) by query id:
 * `find` names the user from the request, the operation runs on it.
 */
const show = <I>(find: (input: I) => Effect.Effect<Ref, ApiError>) => (input: I) =>
  Effect.flatMap(find(input), (ref) => Effect.map(Users.showUser(ref), userDoc))
const update = <I>(find: (input: I) => Effect.Effect<Ref, ApiError>) => (input: I & { payload: typeof Inputs.ServerUserUpdate.Type }) =>
  Effect.flatMap(find(input), (ref) => Effect.map(Users.updateUser(ref, input.payload.user), userDoc))
const remove = <I>(find: (input: I) => Effect.Effect<Ref, ApiError>) => (input: I) =>
  Effect.flatMap(find(input), (ref) => Effect.as(Users.deleteUser(ref), success))
const deactivate = <I>(find: (input: I) => Effect.Effect<Ref, ApiError>) => (input: I) =>
  Effect.flatMap(find(input), (ref) => Effect.map(Users.deactivateUser(ref), successWithUser))
const reactivate = <I>(find: (input: I) => Effect.Effect<Ref, ApiError>) => (input: I) =>
  Effect.flatMap(find(input), (ref) => Effect.map(Users.reactivateUser(ref), successWithUser))
const redact = <I>(find: (input: I) => Effect.Effect<Ref, ApiError>) => (input: I) =>
  Effect.flatMap(find(input), (ref) => Effect.as(Users.redactUser(ref), success))

/** Server secret first (the group's access step), then the reference, then the operation. */
export const B3UsersLive = group(ConveneApi, "b3.users", requireServerAdmin, (handlers) =>
  handlers
    .handle("listServerUsers", Effect.fnUntraced(function*({ urlParams: p }) {
      const list = yield* Users.listUsers(p.is_admin === undefined ? {} : { is_admin: p.is_admin }, page(p, 200))
      return { users: list.records.map((u) => serverUserJson(u.user, u.identities)), meta: { root: "users", total: list.total } }
    }))
    .handle("getServerUser", show(refById))
    .handle("updateServerUser", update(refById))
    .handle("replaceServerUser", update(refById))
    .handle("deleteServerUser", remove(refById))
    .handle("deactivateServerUser", deactivate(refById))
    .handle("reactivateServerUser", reactivate(refById))
    .handle("redactServerUser", redact(refById))
    .handle("getServerUserByIdentity", show(refByIdentity))
    .handle("updateServerUserByIdentity", update(refByIdentity))
    .handle("deleteServerUserByIdentity", remove(refByIdentity))
    .handle("deactivateServerUserByIdentity", deactivate(refByIdentity))
    .handle("reactivateServerUserByIdentity", reactivate(refByIdentity))
    .handle("redactServerUserByIdentity", redact(refByIdentity))
    .handle("deactivateServerUserLegacy", deactivate(refByQuery))
    .handle("reactivateServerUserLegacy", reactivate(refByQuery)))
