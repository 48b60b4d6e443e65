/**
 * Authentication at the edge. b2: `Authorization: Bearer <key>`, or (as Loomio) an `api_key` body field on
 * writes when no header is sent; never the query string. b3: the server secret, bearer header only.
 * Both middlewares only resolve the credential; handlers demand it through `requireUser`/`requireServerAdmin`,
 * so every refusal goes through the one error mapper.
 */
import * as HttpApiMiddleware from "@effect/platform/HttpApiMiddleware"
import * as HttpApiSecurity from "@effect/platform/HttpApiSecurity"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Auth, forbidden, loadAccess, secretsEqual, Store, type User } from "@convene/core"
import { Context, Effect } from "effect"
import type { ApiError } from "../errors.js"
import { bodyFields } from "./request.js"
import { Settings } from "../settings.js"

/**
 * Who is calling, resolved where a handler demands it (`requireUser`), from the request in the fiber's
 * context: one constant per API, so putting it in a request's context costs nothing (serve.ts adds it once
 * per route; a provide per request, as a middleware's result, costs more than a light read's queries).
 */
export class Caller extends Context.Tag("@convene/http/Caller")<Caller, {
  readonly user: Effect.Effect<User, ApiError, Store | Settings | HttpServerRequest.HttpServerRequest>
}>() {}

export class B2Auth extends HttpApiMiddleware.Tag<B2Auth>()("B2Auth", {
  provides: Caller,
  security: { bearer: HttpApiSecurity.bearer }
}) {}

const WRITES = new Set(["POST", "PATCH", "PUT", "DELETE"])

/**
 * Where a user API key may come from: the bearer header; on writes without one, the body's `api_key`
 * (Loomio); and for the legacy b1 only, the query string.
 */
const callerFrom = (fromQuery: boolean): Context.Tag.Service<Caller> => ({
  user: Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const header = request.headers.authorization ?? ""
    let key: string | undefined = header.startsWith("Bearer ") ? header.slice("Bearer ".length).trim() : undefined
    if ((key === undefined || key === "") && WRITES.has(request.method)) {
      const body = yield* bodyFields
      key = typeof body.api_key === "string" ? body.api_key : undefined
    }
    if (fromQuery && (key === undefined || key === "")) key = new URL(request.url, "http://x").searchParams.get("api_key") ?? undefined
    return yield* Auth.authenticate(key)
  })
})

const b2Caller = callerFrom(false)

/**
 * The legacy API (/api/b1) identifies the caller by the user's API key sent as `api_key` in the JSON body,
 * a form field or the query string (spec: Versioning 2; decisions.md §1). A bearer header works too.
 * It provides the same `Caller` as b2, so the handlers (shared with b2) are unchanged.
 */
export class B1Auth extends HttpApiMiddleware.Tag<B1Auth>()("B1Auth", { provides: Caller }) {}

const b1Caller = callerFrom(true)

/** The caller's user (403 without a valid key). */
export const requireUser = Effect.flatMap(Caller, (c) => c.user)

/** The caller with the memberships the permission rules need. */
export const requireAccess = Effect.flatMap(requireUser, loadAccess)

/** Whether the caller holds the server secret, decided where a handler demands it (`requireServerAdmin`). */
export class ServerAdmin extends Context.Tag("@convene/http/ServerAdmin")<ServerAdmin, {
  readonly ok: Effect.Effect<boolean, never, Settings | HttpServerRequest.HttpServerRequest>
}>() {}

export class B3Auth extends HttpApiMiddleware.Tag<B3Auth>()("B3Auth", {
  provides: ServerAdmin,
  security: { bearer: HttpApiSecurity.bearer }
}) {}

/** The Server API is enabled only by a secret longer than 16 characters (as Loomio). */
export const b3Enabled = (secret: string | undefined): secret is string => secret !== undefined && secret.length > 16

const serverAdmin: Context.Tag.Service<ServerAdmin> = {
  ok: Effect.zipWith(Settings, HttpServerRequest.HttpServerRequest, (settings, request) => {
    const header = request.headers.authorization ?? ""
    return b3Enabled(settings.b3ApiKey) && header.startsWith("Bearer ") && secretsEqual(header.slice("Bearer ".length), settings.b3ApiKey)
  })
}

/** What each middleware puts in a request's context, for the lean path (serve.ts) that adds it without running one. */
export const middlewareProvides: ReadonlyMap<string, Context.Context<never>> = new Map<string, Context.Context<never>>([
  [B2Auth.key, Context.make(Caller, b2Caller)],
  [B1Auth.key, Context.make(Caller, b1Caller)],
  [B3Auth.key, Context.make(ServerAdmin, serverAdmin)]
])

export const requireServerAdmin = Effect.flatMap(Effect.flatMap(ServerAdmin, (a) => a.ok), (ok) => (ok ? Effect.void : Effect.fail(forbidden())))
