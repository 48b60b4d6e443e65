import { group } from "../group.js"
import { Inputs, Users } from "@convene/core"
import { Effect } from "effect"
import { ConveneApi } from "../api.js"
import { requireServerAdmin } from "../auth.js"
import { type ApiError, ok, respond } from "../errors.js"
import { decode, inputFields, numericId } from "../request.js"
import { page } from "../params.js"
import { serverUserJson } from "../serializers.js"

type Ref = Users.UserRef
const decodeUpdate = decode(Inputs.ServerUserUpdate)

/** A path id that is not a whole number names no user. */
const refById = (id: string) => Effect.map(numericId(id, "User"), (n): Ref => ({ id: n }))
const refByIdentity = (p: { identity_type: string; uid: string }) => Effect.succeed<Ref>({ identity_type: p.identity_type, uid: p.uid })
const refByQuery = (p: { id: number }) => Effect.succeed<Ref>({ id: p.id })

const userDoc = (u: Users.UserWithIdentities) => ({ user: serverUserJson(u.user, u.identities) })
const successWithUser = (u: Users.UserWithIdentities) => ({ success: true, ...userDoc(u) })

/** The operations, each written once and served by id, by identity and (where Loomio has it) by query id. */
const op = {
  show: (ref: Ref) => Effect.map(Users.showUser(ref), userDoc),
  update: (ref: Ref) =>
    Effect.flatMap(Effect.flatMap(inputFields(), decodeUpdate), ({ user }) => Effect.map(Users.updateUser(ref, user), userDoc)),
  delete: (ref: Ref) => Effect.as(Users.deleteUser(ref), { success: true }),
  deactivate: (ref: Ref) => Effect.map(Users.deactivateUser(ref), successWithUser),
  reactivate: (ref: Ref) => Effect.map(Users.reactivateUser(ref), successWithUser),
  redact: (ref: Ref) => Effect.as(Users.redactUser(ref), { success: true })
}

/** Server secret first, then the reference, then the operation; every error through the one mapper. */
const serve = <R1, R2>(ref: Effect.Effect<Ref, ApiError, R1>, run: (ref: Ref) => Effect.Effect<unknown, ApiError, R2>) =>
  respond(Effect.map(Effect.flatMap(Effect.zipRight(requireServerAdmin, ref), run), ok))

export const B3UsersLive = group(ConveneApi, "b3.users", (handlers) =>
  handlers
    .handleRaw("listServerUsers", Effect.fnUntraced(function*({ urlParams: p }) {
      yield* requireServerAdmin
      const list = yield* Users.listUsers(p.is_admin === undefined ? {} : { is_admin: p.is_admin }, page(p, 200))
      return ok({ users: list.records.map((u) => serverUserJson(u.user, u.identities)), meta: { root: "users", total: list.total } })
    }, respond))
    .handleRaw("getServerUser", ({ path }) => serve(refById(path.id), op.show))
    .handleRaw("updateServerUser", ({ path }) => serve(refById(path.id), op.update))
    .handleRaw("replaceServerUser", ({ path }) => serve(refById(path.id), op.update))
    .handleRaw("deleteServerUser", ({ path }) => serve(refById(path.id), op.delete))
    .handleRaw("deactivateServerUser", ({ path }) => serve(refById(path.id), op.deactivate))
    .handleRaw("reactivateServerUser", ({ path }) => serve(refById(path.id), op.reactivate))
    .handleRaw("redactServerUser", ({ path }) => serve(refById(path.id), op.redact))
    .handleRaw("getServerUserByIdentity", ({ path }) => serve(refByIdentity(path), op.show))
    .handleRaw("updateServerUserByIdentity", ({ path }) => serve(refByIdentity(path), op.update))
    .handleRaw("deleteServerUserByIdentity", ({ path }) => serve(refByIdentity(path), op.delete))
    .handleRaw("deactivateServerUserByIdentity", ({ path }) => serve(refByIdentity(path), op.deactivate))
    .handleRaw("reactivateServerUserByIdentity", ({ path }) => serve(refByIdentity(path), op.reactivate))
    .handleRaw("redactServerUserByIdentity", ({ path }) => serve(refByIdentity(path), op.redact))
    .handleRaw("deactivateServerUserLegacy", ({ urlParams }) => serve(refByQuery(urlParams), op.deactivate))
    .handleRaw("reactivateServerUserLegacy", ({ urlParams }) => serve(refByQuery(urlParams), op.reactivate)))
