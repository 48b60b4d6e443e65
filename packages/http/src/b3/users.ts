import { HttpApiBuilder } from "@effect/platform"
import { Users } from "@convene/core"
import { Effect } from "effect"
import { ConveneApi, ServerUserUpdate } from "../api.js"
import { requireServerAdmin } from "../auth.js"
import { type ApiError, ok, respond } from "../errors.js"
import { boolParam, decode, inputFields, numericId, pageParams, query, requiredIntParam } from "../request.js"
import { serverUserJson } from "../serializers.js"

type Ref = Users.UserRef
const decodeUpdate = decode(ServerUserUpdate)

/** A path id that is not a whole number names no user. */
const refById = (id: string) => Effect.map(numericId(id, "User"), (n): Ref => ({ id: n }))
const refByIdentity = (p: { identity_type: string; uid: string }) => Effect.succeed<Ref>({ identity_type: p.identity_type, uid: p.uid })
const refByQuery = Effect.flatMap(query, (q) => Effect.map(requiredIntParam(q, "id"), (id): Ref => ({ id })))

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

export const B3UsersLive = HttpApiBuilder.group(ConveneApi, "b3.users", (handlers) =>
  handlers
    .handleRaw("list", () =>
      respond(Effect.gen(function*() {
        yield* requireServerAdmin
        const q = yield* query
        const isAdmin = yield* boolParam(q, "is_admin")
        const page = yield* pageParams(q, { defaultLimit: 200, maxLimit: 1000 })
        const list = yield* Users.listUsers(isAdmin === undefined ? {} : { is_admin: isAdmin }, page)
        return ok({ users: list.records.map((u) => serverUserJson(u.user, u.identities)), meta: { root: "users", total: list.total } })
      })))
    .handleRaw("byId.show", ({ path }) => serve(refById(path.id), op.show))
    .handleRaw("byId.update", ({ path }) => serve(refById(path.id), op.update))
    .handleRaw("byId.put", ({ path }) => serve(refById(path.id), op.update))
    .handleRaw("byId.delete", ({ path }) => serve(refById(path.id), op.delete))
    .handleRaw("byId.deactivate", ({ path }) => serve(refById(path.id), op.deactivate))
    .handleRaw("byId.reactivate", ({ path }) => serve(refById(path.id), op.reactivate))
    .handleRaw("byId.redact", ({ path }) => serve(refById(path.id), op.redact))
    .handleRaw("byIdentity.show", ({ path }) => serve(refByIdentity(path), op.show))
    .handleRaw("byIdentity.update", ({ path }) => serve(refByIdentity(path), op.update))
    .handleRaw("byIdentity.delete", ({ path }) => serve(refByIdentity(path), op.delete))
    .handleRaw("byIdentity.deactivate", ({ path }) => serve(refByIdentity(path), op.deactivate))
    .handleRaw("byIdentity.reactivate", ({ path }) => serve(refByIdentity(path), op.reactivate))
    .handleRaw("byIdentity.redact", ({ path }) => serve(refByIdentity(path), op.redact))
    .handleRaw("legacy.deactivate", () => serve(refByQuery, op.deactivate))
    .handleRaw("legacy.reactivate", () => serve(refByQuery, op.reactivate)))
