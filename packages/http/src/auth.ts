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
import { Context, Effect, Layer, Redacted } from "effect"
import type { ApiError } from "./errors.js"
import { bodyFields } from "./request.js"
import { Settings } from "./settings.js"

export class Caller extends Context.Tag("@convene/http/Caller")<Caller, { readonly user: Effect.Effect<User, ApiError> }>() {}

export class B2Auth extends HttpApiMiddleware.Tag<B2Auth>()("B2Auth", {
  provides: Caller,
  security: { bearer: HttpApiSecurity.bearer }
}) {}

const WRITES = new Set(["POST", "PATCH", "PUT", "DELETE"])

/**
 * Where a user API key may come from: the bearer header; on writes without one, the body's `api_key`
 * (Loomio); and for the legacy b1 only, the query string. Resolved once per request into a `Caller`.
 */
const resolveCaller = (fromQuery: boolean) =>
  Effect.gen(function*() {
    // provided once, as one context: every service set on a fiber's context is a copy and a comparison
    const services = Context.make(Store, yield* Store).pipe(Context.add(Settings, yield* Settings))
    return Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const header = request.headers.authorization ?? ""
      let key: string | undefined = header.startsWith("Bearer ") ? header.slice("Bearer ".length).trim() : undefined
      if ((key === undefined || key === "") && WRITES.has(request.method)) {
        const body = yield* bodyFields
        key = typeof body.api_key === "string" ? body.api_key : undefined
      }
      if (fromQuery && (key === undefined || key === "")) key = new URL(request.url, "http://x").searchParams.get("api_key") ?? undefined
      return yield* Auth.authenticate(key)
    }).pipe(
      Effect.provide(services),
      Effect.either,
      Effect.map((result) => ({
        user: result._tag === "Right" ? Effect.succeed(result.right) : Effect.fail<ApiError>(result.left)
      }))
    )
  })

export const B2AuthLive = Layer.effect(B2Auth, Effect.map(resolveCaller(false), (caller) => ({ bearer: () => caller })))

/**
 * The legacy API (/api/b1) identifies the caller by the user's API key sent as `api_key` in the JSON body,
 * a form field or the query string (spec: Versioning 2; decisions.md §1). A bearer header works too.
 * It provides the same `Caller` as b2, so the handlers (shared with b2) are unchanged.
 */
export class B1Auth extends HttpApiMiddleware.Tag<B1Auth>()("B1Auth", { provides: Caller }) {}

export const B1AuthLive = Layer.effect(B1Auth, resolveCaller(true))

/** The caller's user (403 without a valid key). */
export const requireUser = Effect.flatMap(Caller, (c) => c.user)

/** The caller with the memberships the permission rules need. */
export const requireAccess = Effect.flatMap(requireUser, loadAccess)

export class ServerAdmin extends Context.Tag("@convene/http/ServerAdmin")<ServerAdmin, { readonly ok: boolean }>() {}

export class B3Auth extends HttpApiMiddleware.Tag<B3Auth>()("B3Auth", {
  provides: ServerAdmin,
  security: { bearer: HttpApiSecurity.bearer }
}) {}

/** The Server API is enabled only by a secret longer than 16 characters (as Loomio). */
export const b3Enabled = (secret: string | undefined): secret is string => secret !== undefined && secret.length > 16

export const B3AuthLive = Layer.effect(
  B3Auth,
  Effect.map(Settings, (settings) => ({
    bearer: (token: Redacted.Redacted<string>) =>
      Effect.map(HttpServerRequest.HttpServerRequest, (request) => ({
        ok: b3Enabled(settings.b3ApiKey) &&
          (request.headers.authorization ?? "").startsWith("Bearer ") &&
          secretsEqual(Redacted.value(token), settings.b3ApiKey)
      }))
  }))
)

export const requireServerAdmin = Effect.flatMap(ServerAdmin, (a) => (a.ok ? Effect.void : Effect.fail(forbidden())))
