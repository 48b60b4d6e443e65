/**
 * How requests reach the application. The API is served on `node:http` directly: each endpoint's handler
 * (named by its group's build function, group.ts) runs as one fiber on the runtime built at start, after
 * its declaration's path and query decoders ran synchronously; its route is found with the router the
 * platform itself uses (find-my-way-ts), and the response is written straight to node's. What the auth
 * middlewares provide is a constant added to the route's context once (auth.ts). The platform's server and
 * HttpApiBuilder's routes add a scope, context copies and three provides to every request, which cost more
 * than a light read's own work (bench/serving.js, bench/light.js). Pages, /metrics and unknown paths run the
 * platform's app (its router, HttpApiBuilder.httpApp) on the same request and the same writer, without the
 * platform's Node server, which is not loaded (its module graph held 6 MB of the idle server's heap).
 */
import * as Cookies from "@effect/platform/Cookies"
import * as UrlParams from "@effect/platform/UrlParams"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import type * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import type * as HttpApp from "@effect/platform/HttpApp"
import * as HttpIncomingMessage from "@effect/platform/HttpIncomingMessage"
import * as HttpServerError from "@effect/platform/HttpServerError"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { badRequest, DatabaseError, Store } from "@convene/core"
import { Cause, Context, Effect, Either, Exit, Option, ParseResult, Runtime, Schema, type SchemaAST } from "effect"
import * as FindMyWay from "find-my-way-ts"
import type * as http from "node:http"
import { Readable } from "node:stream"
import { middlewareProvides } from "./auth.js"
import { databaseBusy, errorResponse, internalError, issueMessage, json } from "./errors.js"
import { groupRoutes, type Route, type RouteHandler } from "./group.js"
import { busyPage, notFoundPage, tooLargePage } from "./pages/pages.js"
import { readWithin } from "./body.js"
import { makeInboundRoute } from "./mail/inbound.js"
import { Settings } from "./settings.js"

const isApiPath = (url: string) => url.startsWith("/api/") || url === "/api" || url.startsWith("/metrics")

/**
 * The last line of defence: an unknown route is a JSON 404; anything unexpected is logged with the
 * request's id (never its headers or body, which carry secrets) and answered 500 without details.
 */
export const lastResort = <E, R>(app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
  Effect.catchAllCause(app, (cause) => {
    const failure = Cause.failureOption(cause)
    if (Option.isSome(failure)) {
      const value = failure.value as { _tag?: string }
      // the router fails with a ready 404 response (or RouteNotFound) for an unknown route
      const unrouted = value._tag === "RouteNotFound" ||
        (HttpServerResponse.isServerResponse(value) && value.status === 404)
      // a browser never gets JSON from a page route: only /api (and /metrics) answer a JSON 404
      if (unrouted) {
        return Effect.map(HttpServerRequest.HttpServerRequest, (request) =>
          isApiPath(request.url) ? json(404, { error: "Not found" }) : notFoundPage(request.headers["accept-language"]))
      }
      // a path or query parameter that its declaration does not decode: the one 400 body (errors.ts)
      if (value._tag === "HttpApiDecodeError") {
        return Effect.succeed(undecodable((value as unknown as { issues: ReadonlyArray<Parameters<typeof issueMessage>[0]> }).issues))
      }
      if (HttpServerResponse.isServerResponse(value)) return Effect.succeed(value)
    }
    if (Cause.isInterruptedOnly(cause)) return Effect.failCause(cause)
    return Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
      // a write that waited 5 s for another process's write lock: the API answers JSON, a page answers a page
      if (Cause.squash(cause) instanceof DatabaseError) return Effect.succeed(request.url.startsWith("/api/") ? databaseBusy() : busyPage(request.headers["accept-language"]))
      // observeRequests gave every request an id before the application saw it
      const requestId = request.headers["x-request-id"] ?? "unknown"
      return Effect.as(Effect.logError("request failed", { req_id: requestId, err: Cause.pretty(cause) }), internalError(requestId))
    })
  })

/** Too large a body, in the words request.ts looks for (the platform's reader says the same). */
const tooLarge = (request: LeanRequest) =>
  new HttpServerError.RequestError({ request: request as never, reason: "Decode", cause: new Error("maxBytes exceeded") })

/**
 * The request as the API's handlers see it: what they read (method, url, headers and the body as text, in
 * request.ts and auth.ts) from node's message; the body is read before the handler runs, by the one decoder of group.ts.
 */
class LeanRequest {
  readonly [HttpServerRequest.TypeId] = HttpServerRequest.TypeId
  readonly [HttpIncomingMessage.TypeId] = HttpIncomingMessage.TypeId
  readonly url: string
  /** the body once read; the resumptions of readers waiting for it meanwhile */
  private body: Exit.Exit<string, HttpServerError.RequestError> | Array<(body: Exit.Exit<string, HttpServerError.RequestError>) => void> | undefined
  private parsedCookies: Readonly<Record<string, string>> | undefined
  constructor(readonly source: http.IncomingMessage) {
    this.url = source.url ?? "/"
  }
  get originalUrl() {
    return this.source.url ?? "/"
  }
  get method() {
    return (this.source.method ?? "GET").toUpperCase()
  }
  get headers() {
    return this.source.headers as Record<string, string>
  }
  get remoteAddress() {
    return Option.fromNullable(this.source.socket?.remoteAddress)
  }
  /** the pages' session and CSRF cookies */
  get cookies(): Readonly<Record<string, string>> {
    return (this.parsedCookies ??= Cookies.parseHeader(this.source.headers.cookie ?? ""))
  }
  /** a page's form (application/x-www-form-urlencoded) */
  get urlParamsBody(): Effect.Effect<UrlParams.UrlParams, HttpServerError.RequestError> {
    return Effect.map(this.text, (text) => UrlParams.fromInput(new URLSearchParams(text)))
  }
  /** Read once, at most the request's MaxBodySize bytes (request.ts sets it from the settings). */
  get text(): Effect.Effect<string, HttpServerError.RequestError> {
    return Effect.flatMap(HttpIncomingMessage.MaxBodySize, (max) =>
      Effect.async<string, HttpServerError.RequestError>((resume) => {
        if (Exit.isExit(this.body)) return resume(this.body)
        if (this.body !== undefined) return void this.body.push(resume)
        const waiting = [resume]
        this.body = waiting
        const done = (body: Exit.Exit<string, HttpServerError.RequestError>) => {
          this.body = body
          for (const r of waiting) r(body)
        }
        const limit = Option.isSome(max) ? Number(max.value) : Infinity
        const chunks: Array<Buffer> = []
        let size = 0
        const onData = (chunk: Buffer) => {
          size += chunk.length
          if (size <= limit) return void chunks.push(chunk)
          // stop keeping it, but drain it, so the answer (413) still reaches the client
          this.source.off("data", onData)
          this.source.off("end", onEnd)
          this.source.resume()
          done(Exit.fail(tooLarge(this)))
        }
        const onEnd = () => done(Exit.succeed(Buffer.concat(chunks).toString("utf8")))
        this.source.on("data", onData)
        this.source.once("end", onEnd)
        this.source.once("error", (cause) => done(Exit.fail(new HttpServerError.RequestError({ request: this as never, reason: "Decode", cause }))))
      }))
  }
  /** The same request under another url (the router strips a mounted prefix); its body is this one's, read once. */
  modify(options: { readonly url?: string }): LeanRequest {
    const copy = Object.create(this) as LeanRequest
    if (options.url !== undefined) Object.defineProperty(copy, "url", { value: options.url })
    // read through this request, whose state holds the body (the copy's own would read the stream again)
    Object.defineProperty(copy, "text", { get: () => this.text })
    return copy
  }
  toString() {
    return `LeanRequest(${this.method} ${this.url})`
  }
}

const writeResponse = (req: http.IncomingMessage, res: http.ServerResponse, response: HttpServerResponse.HttpServerResponse) => {
  if (res.writableEnded) return
  const body = response.body
  let headers: http.OutgoingHttpHeaders = response.headers
  // Object.assign, not `{ ...headers, k }`: a member after a spread is V8 11's slow path (bench/experiments/spread.js)
  if (!Cookies.isEmpty(response.cookies)) headers = Object.assign({}, headers, { "set-cookie": [...Cookies.toSetCookieHeaders(response.cookies)] })
  const text = body._tag === "Raw" && typeof body.body === "string" ? body.body : undefined
  if (text !== undefined) headers = Object.assign({}, headers, { "content-length": Buffer.byteLength(text) })
  res.writeHead(response.status, headers)
  if (req.method === "HEAD") return void res.end()
  switch (body._tag) {
    case "Uint8Array":
      return void res.end(body.body)
    case "Raw":
      // JSON's text (errors.ts): the headers and the body in one write
      return void res.end(text)
    default:
      // the API answers JSON or text (errors.ts) or nothing; a streamed body would be a programming error
      return void res.end()
  }
}

export type RequestListener = (req: http.IncomingMessage, res: http.ServerResponse) => void

/** A path or query parameter that its declaration does not decode: the one 400 body (errors.ts). */
const undecodable = (issues: ReadonlyArray<Parameters<typeof issueMessage>[0]>) =>
  errorResponse(badRequest(issues[0] === undefined ? "Invalid request" : issueMessage(issues[0])))

/** The platform's own normalisation of query parameters (a repeated key is an array only where declared so). */
const normalizeUrlParams = (HttpApiBuilder as unknown as {
  normalizeUrlParams: (params: Readonly<Record<string, string | ReadonlyArray<string>>>, ast: SchemaAST.AST) => Record<string, unknown>
}).normalizeUrlParams

/** One endpoint on the lean path: its decoders (the declaration's), its handler and the context it runs in. */
interface LeanRoute {
  readonly decode: (
    request: LeanRequest,
    params: Readonly<Record<string, string | undefined>>,
    search: Readonly<Record<string, string | ReadonlyArray<string>>>
  ) => Either.Either<Record<string, unknown>, ParseResult.ParseError>
  readonly handler: RouteHandler
  /** the server's context with what the endpoint's middlewares provide (auth.ts), made once */
  readonly context: Context.Context<never>
}

const decoderOf = (schema: Schema.Schema.Any) => Schema.decodeUnknownEither(schema as Schema.Schema<unknown, unknown, never>)

/** Decodes what HttpApiBuilder decodes for a raw handler, in its order (path, headers, query), synchronously. */
const requestDecoder = (endpoint: HttpApiEndpoint.HttpApiEndpoint.AnyWithProps): LeanRoute["decode"] => {
  const path = Option.getOrUndefined(Option.map(endpoint.pathSchema, decoderOf))
  const headers = Option.getOrUndefined(Option.map(endpoint.headersSchema, decoderOf))
  const query = Option.getOrUndefined(Option.map(endpoint.urlParamsSchema, (schema) => {
    const decode = decoderOf(schema)
    return (search: Readonly<Record<string, string | ReadonlyArray<string>>>) => decode(normalizeUrlParams(search, schema.ast))
  }))
  return (request, params, search) => {
    const input: Record<string, unknown> = { request }
    for (const [key, decode, value] of [["path", path, params], ["headers", headers, request.headers], ["urlParams", query, search]] as const) {
      if (decode === undefined) continue
      const decoded = decode(value as never)
      if (Either.isLeft(decoded)) return Either.left(decoded.left)
      input[key] = decoded.right
    }
    return Either.right(input)
  }
}

/**
 * The API's routes for the lean path, from the groups' own build functions (group.ts) and declarations.
 * A build that needs services (system.ts) runs here, once, as HttpApiBuilder runs it.
 */
const leanRoutes = Effect.fnUntraced(function*(groups: ReadonlyArray<object>, serverContext: Context.Context<never>) {
  const routes = FindMyWay.make<LeanRoute>()
  for (const layer of groups) {
    const { group, routes: built } = groupRoutes(layer)
    // a build that needs services (system.ts) is given them by the server fiber running this (HandlerServices)
    for (const { name, handler } of yield* (built as Effect.Effect<ReadonlyArray<Route>>)) {
      const endpoint = group.endpoints[name]!
      let context = serverContext
      for (const tag of [...group.middlewares, ...endpoint.middlewares]) {
        const provided = middlewareProvides.get(tag.key)
        if (provided === undefined) throw new Error(`the lean path does not know middleware ${tag.key} (auth.ts)`)
        context = Context.merge(context, provided)
      }
      routes.on(endpoint.method, endpoint.path as FindMyWay.PathInput, { decode: requestDecoder(endpoint), handler, context })
    }
  }
  return routes
})

/**
 * The request listener: an API route runs on the lean path, anything else in `app` (pages, /metrics,
 * the 404). Both run on the runtime of the fiber that builds it (its services, logger and settings), which
 * must hold what the groups' handlers need (server.ts requires it by type: `HandlerServices`).
 */
export const makeListener = Effect.fnUntraced(function*<R>(app: HttpApp.Default<never, R>, groups: ReadonlyArray<object>) {
  const store = yield* Store
  const runtime = yield* Effect.runtime<R>()
  const routes = yield* leanRoutes(groups, runtime.context as Context.Context<never>)
  const failed = (req: http.IncomingMessage) => internalError(String(req.headers["x-request-id"] ?? "unknown"))
  /** Runs `effect` as one fiber with the request in its context, and writes what it answers. */
  const serve = (req: http.IncomingMessage, res: http.ServerResponse, request: LeanRequest, context: Map<string, unknown>,
    effect: Effect.Effect<HttpServerResponse.HttpServerResponse, unknown, unknown>) => {
    // the fiber starts with the request in its context (no provide around it to set and restore)
    context.set(HttpServerRequest.HttpServerRequest.key, request)
    const requestRuntime = Runtime.make({ context: Context.unsafeMake(context), runtimeFlags: runtime.runtimeFlags, fiberRefs: runtime.fiberRefs })
    // every request, API or page, is one of the store's requests: what it reads twice is read once (Store.request)
    const fiber = Runtime.runFork(requestRuntime)(lastResort(store.request(effect as Effect.Effect<HttpServerResponse.HttpServerResponse>)))
    fiber.addObserver((exit) => writeResponse(req, res, Exit.isSuccess(exit) ? exit.value : failed(req)))
  }
  // pages, /metrics and unknown paths: the platform's app (its router finds the page)
  const platform = (req: http.IncomingMessage, res: http.ServerResponse) =>
    serve(req, res, new LeanRequest(req), new Map(runtime.context.unsafeMap), app as Effect.Effect<HttpServerResponse.HttpServerResponse, unknown, unknown>)

  const maxBody = Option.getOrUndefined(yield* HttpIncomingMessage.MaxBodySize)
  // raw messages of up to 10 MB from relays, beside the API's and the pages' limits (mail/inbound.ts)
  const inbound = makeInboundRoute(store, (yield* Settings).inbound)

  return ((req, res) => {
    if (req.url === "/inbound/mail") return inbound(req, res)
    const found = req.method === undefined || req.url === undefined ? undefined : routes.find(req.method, req.url)
    if (found === undefined) {
      // a page's form over the limit is answered 413 before anything reads it: the body is let through unread,
      // so the answer reaches the browser instead of a reset connection (the API's own reader answers 413 JSON)
      if (maxBody !== undefined && Number(req.headers["content-length"] ?? 0) > Number(maxBody)) {
        req.resume()
        return writeResponse(req, res, tooLargePage(req.headers["accept-language"]))
      }
      // a body of unstated length (chunked) is read here up to the limit, so one over it is answered the same way
      if (maxBody !== undefined && req.headers["content-length"] === undefined && req.headers["transfer-encoding"] !== undefined) {
        return readWithin(req, Number(maxBody), (body) =>
          body === undefined ? writeResponse(req, res, tooLargePage(req.headers["accept-language"])) : platform(replayed(req, body), res))
      }
      return platform(req, res)
    }
    const request = new LeanRequest(req)
    const route = found.handler
    const input = route.decode(request, found.params, found.searchParams)
    if (Either.isLeft(input)) return writeResponse(req, res, undecodable(ParseResult.ArrayFormatter.formatErrorSync(input.left)))
    const context = new Map(route.context.unsafeMap)
    context.set(HttpServerRequest.ParsedSearchParams.key, found.searchParams)
    serve(req, res, request, context, Effect.suspend(() => route.handler(input.right) as Effect.Effect<HttpServerResponse.HttpServerResponse>))
  }) satisfies RequestListener
})

/** The request as the platform reads it, its body replayed from `body` (already read by `readWithin`). */
const replayed = (req: http.IncomingMessage, body: Buffer): http.IncomingMessage => {
  const stream = Readable.from([body])
  return new Proxy(req, {
    get: (target, prop) => {
      const from = prop in Readable.prototype ? stream : target
      const value = Reflect.get(from, prop)
      return typeof value === "function" ? value.bind(from) : value
    }
  })
}
