/**
 * An endpoint group's handlers, each registered once: the server puts them in its one route table (serve.ts),
 * beside the pages; the OpenAPI documents are made from the same declarations (api.ts, openapi.ts).
 *
 * A handler receives its input decoded from the endpoint's own declaration (api.ts): path and query
 * parameters, and the payload, read the way Loomio clients send it (request.ts: flat or wrapped under the
 * endpoint's `BodyRoot`, JSON or form, query fields filling gaps) and decoded by the declared Schema before
 * the handler runs. Who may call is demanded first (the group's `access` step), so a caller without a
 * key is refused before their body is looked at. `handle` answers 200 with the document the endpoint
 * declares: a top-level field the declaration lacks fails to compile (the records inside are typed by
 * their serializers). Every error becomes its one status and body (errors.ts).
 */
import type * as HttpApi from "@effect/platform/HttpApi"
import type * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import type * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import type * as HttpApiMiddleware from "@effect/platform/HttpApiMiddleware"
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Context, Effect, Option, type Schema, type Types } from "effect"
import { type ApiError, ok, respond } from "../errors.js"
import { decode, inputFields } from "./request.js"

type Endpoint = HttpApiEndpoint.HttpApiEndpoint.Any
type Named<Es extends Endpoint, N extends string> = HttpApiEndpoint.HttpApiEndpoint.WithName<Es, N>
type NameOf<Es extends Endpoint> = HttpApiEndpoint.HttpApiEndpoint.Name<Es>
type Declared<E extends Endpoint> = HttpApiEndpoint.HttpApiEndpoint.Success<E>

/** The resource name a Loomio client may wrap an endpoint's body under (`{"discussion": {...}}`). */
export class BodyRoot extends Context.Tag("@convene/http/BodyRoot")<BodyRoot, string>() {}

/** What a handler is given: the endpoint's decoded path, query and payload, and what the group's access step gave. */
export type Input<E extends Endpoint, Access> = Types.Simplify<
  Omit<HttpApiEndpoint.HttpApiEndpoint.Request<E>, "request"> & { readonly access: Access }
>

/** `A`, refused when it has a top-level field that `Doc` does not declare (a document open to any field takes any). */
type Exact<Doc, A> = unknown extends Doc ? A : string extends keyof Doc ? A : A & { readonly [K in Exclude<keyof A, keyof Doc>]: never }

export interface Handlers<Es extends Endpoint, Access, R> {
  /** The endpoints still to handle: a group is built when none is left (checked by the type of `group`'s build). */
  readonly unhandled: Es
  /** Answers 200 with the endpoint's declared document. */
  readonly handle: <N extends NameOf<Es>, A extends Declared<Named<Es, N>>, R1>(
    name: N,
    handler: (input: Input<Named<Es, N>, Access>) => Effect.Effect<Exact<Declared<Named<Es, N>>, A>, ApiError, R1>
  ) => Handlers<HttpApiEndpoint.HttpApiEndpoint.ExcludeName<Es, N>, Access, R | R1>
  /** Answers with a response it makes (a status its document does not carry, as healthz's 503). */
  readonly handleRaw: <N extends NameOf<Es>, R1>(
    name: N,
    handler: (input: Input<Named<Es, N>, Access>) => Effect.Effect<HttpServerResponse.HttpServerResponse, ApiError, R1>
  ) => Handlers<HttpApiEndpoint.HttpApiEndpoint.ExcludeName<Es, N>, Access, R | R1>
}

/** One endpoint's handler as both paths run it: the whole request in, a response out, every error answered. */
export type RouteHandler = (request: Record<string, unknown>) => Effect.Effect<HttpServerResponse.HttpServerResponse, never, unknown>

export interface Route {
  readonly name: string
  readonly handler: RouteHandler
}

/** The payload of an endpoint, read and decoded from its declaration (none declared: nothing is read). */
const payloadOf = (endpoint: HttpApiEndpoint.HttpApiEndpoint.AnyWithProps) =>
  Option.match(endpoint.payloadSchema, {
    onNone: () => undefined,
    onSome: (schema) => {
      const decoder = decode(schema as Schema.Schema<unknown, unknown>)
      return Effect.flatMap(inputFields(Context.getOption(endpoint.annotations, BodyRoot).pipe(Option.getOrUndefined)), decoder)
    }
  })

const recorder = (
  group: HttpApiGroup.HttpApiGroup.AnyWithProps,
  access: Effect.Effect<unknown, ApiError, unknown>,
  routes: Array<Route>
) => {
  const add = (name: string, run: (input: Record<string, unknown>) => Effect.Effect<HttpServerResponse.HttpServerResponse, ApiError, unknown>) => {
    const endpoint = group.endpoints[name]
    if (endpoint === undefined) throw new Error(`${group.identifier} declares no endpoint ${name} (api.ts)`)
    const payload = payloadOf(endpoint)
    const handler: RouteHandler = payload === undefined
      // Object.assign, not `{ ...request, access }`: a member after a spread is V8 11's slow path (bench/experiments/spread.js)
      ? (request) => respond(Effect.flatMap(access, (who) => run(Object.assign({}, request, { access: who }))))
      : (request) => respond(Effect.flatMap(access, (who) => Effect.flatMap(payload, (decoded) => run(Object.assign({}, request, { access: who, payload: decoded })))))
    routes.push({ name, handler })
    return self
  }
  const self = {
    unhandled: undefined as never,
    handle: (name: string, run: (input: Record<string, unknown>) => Effect.Effect<unknown, ApiError, unknown>) =>
      add(name, (input) => Effect.map(run(input), ok)),
    handleRaw: add
  }
  return self as unknown as Handlers<never, unknown, unknown>
}

type Build<Es extends Endpoint, Access, R, RB> = (
  handlers: Handlers<Es, Access, never>
) => Handlers<never, Access, R> | Effect.Effect<Handlers<never, Access, R>, never, RB>

/** What the server gives every handler without a service of its own: the request and its query (serve.ts). */
type Provided = HttpServerRequest.HttpServerRequest | HttpServerRequest.ParsedSearchParams

/** One group's declaration and its handlers, made by `group`: what the server needs (`R`) to build and run them. */
export interface GroupRoutes<R> {
  readonly group: HttpApiGroup.HttpApiGroup.AnyWithProps
  readonly routes: Effect.Effect<ReadonlyArray<Route>, never, R>
  /** the services its build and handlers need, as a type only */
  readonly _R?: (_: never) => R
}

/**
 * One group's handlers, behind `access` (who may call: `requireAccess`, `requireServerAdmin`, or `Effect.void`
 * for the open system routes). What its middlewares provide (auth.ts: the caller) is not asked of the server.
 */
export const group = <
  ApiId extends string,
  Groups extends HttpApiGroup.HttpApiGroup.Any,
  ApiE,
  ApiR,
  const Name extends HttpApiGroup.HttpApiGroup.Name<Groups>,
  Access,
  RA,
  R,
  RB = never
>(
  api: HttpApi.HttpApi<ApiId, Groups, ApiE, ApiR>,
  groupName: Name,
  access: Effect.Effect<Access, ApiError, RA>,
  build: Build<HttpApiGroup.HttpApiGroup.EndpointsWithName<Groups, Name>, Access, R, RB>
): GroupRoutes<
  Exclude<R | RA | RB, Provided | HttpApiMiddleware.HttpApiMiddleware.ExtractProvides<HttpApiGroup.HttpApiGroup.MiddlewareWithName<Groups, Name>>>
> => {
  const declared = (api.groups as unknown as Record<string, HttpApiGroup.HttpApiGroup.AnyWithProps>)[groupName]!
  const routes = Effect.suspend(() => {
    const list: Array<Route> = []
    const built = (build as Build<never, unknown, unknown, unknown>)(recorder(declared, access, list) as never)
    return Effect.as(Effect.isEffect(built) ? built : Effect.void, list as ReadonlyArray<Route>)
  })
  return { group: declared, routes: routes as Effect.Effect<ReadonlyArray<Route>, never, never> }
}
