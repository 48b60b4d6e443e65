/**
 * How requests reach the application. The API is served on `node:http` directly: the routes its
 * declarations built (path and query decoders, auth middleware, handlers, all unchanged) are looked up
 * with the router the platform itself uses (find-my-way-ts) and run as one fiber per request on the
 * runtime built at start, and the response is written straight to node's. The platform's server adds a
 * scope, a copy of the whole context and response middleware to every request, which cost more than a
 * light read's own work (bench/serving.js, bench/light.js). Pages, /metrics and unknown paths still go
 * through the platform's app.
 */
import * as Cookies from "@effect/platform/Cookies"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import type * as HttpApp from "@effect/platform/HttpApp"
import * as HttpIncomingMessage from "@effect/platform/HttpIncomingMessage"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerError from "@effect/platform/HttpServerError"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { badRequest, DatabaseError } from "@convene/core"
import { Cause, Chunk, Context, Effect, Exit, Option, Runtime } from "effect"
import * as FindMyWay from "find-my-way-ts"
import type * as http from "node:http"
import { ConveneApi } from "./api.js"
import { databaseBusy, errorResponse, internalError, issueMessage } from "./errors.js"
import { busyPage } from "./pages/pages.js"

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
      if (unrouted) return Effect.succeed(HttpServerResponse.unsafeJson({ error: "Not found" }, { status: 404 }))
      // a path or query parameter that its declaration does not decode: the one 400 body (errors.ts)
      if (value._tag === "HttpApiDecodeError") {
        const issues = (value as unknown as { issues: ReadonlyArray<Parameters<typeof issueMessage>[0]> }).issues
        return Effect.succeed(errorResponse(badRequest(issues[0] === undefined ? "Invalid request" : issueMessage(issues[0]))))
      }
      if (HttpServerResponse.isServerResponse(value)) return Effect.succeed(value)
    }
    if (Cause.isInterruptedOnly(cause)) return Effect.failCause(cause)
    return Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
      // a write that waited 5 s for another process's write lock: the API answers JSON, a page answers a page
      if (Cause.squash(cause) instanceof DatabaseError) return Effect.succeed(request.url.startsWith("/api/") ? databaseBusy() : busyPage())
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
 * request.ts and auth.ts) from node's message; every handler reads its body itself (`handleRaw`).
 */
class LeanRequest {
  readonly [HttpServerRequest.TypeId] = HttpServerRequest.TypeId
  readonly [HttpIncomingMessage.TypeId] = HttpIncomingMessage.TypeId
  readonly url: string
  private textEffect: Effect.Effect<string, HttpServerError.RequestError> | undefined
  constructor(readonly source: http.IncomingMessage) {
    this.url = source.url ?? "/"
  }
  get originalUrl() {
    return this.url
  }
  get method() {
    return (this.source.method ?? "GET").toUpperCase()
  }
  get headers() {
    return this.source.headers as Record<string, string>
  }
  /** Read once, at most the request's MaxBodySize bytes (request.ts sets it from the settings). */
  get text(): Effect.Effect<string, HttpServerError.RequestError> {
    this.textEffect ??= Effect.runSync(Effect.cached(Effect.flatMap(HttpIncomingMessage.MaxBodySize, (max) =>
      Effect.async<string, HttpServerError.RequestError>((resume) => {
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
          resume(Effect.fail(tooLarge(this)))
        }
        const onEnd = () => resume(Effect.succeed(Buffer.concat(chunks).toString("utf8")))
        this.source.on("data", onData)
        this.source.once("end", onEnd)
        this.source.once("error", (cause) => resume(Effect.fail(new HttpServerError.RequestError({ request: this as never, reason: "Decode", cause }))))
      })
    )))
    return this.textEffect
  }
  modify(): never {
    throw new Error("an API request is not rewritten")
  }
  toString() {
    return `LeanRequest(${this.method} ${this.url})`
  }
}

const writeResponse = (req: http.IncomingMessage, res: http.ServerResponse, response: HttpServerResponse.HttpServerResponse) => {
  if (res.writableEnded) return
  let headers: http.OutgoingHttpHeaders = response.headers
  if (!Cookies.isEmpty(response.cookies)) headers = { ...headers, "set-cookie": [...Cookies.toSetCookieHeaders(response.cookies)] }
  res.writeHead(response.status, headers)
  const body = response.body
  if (req.method === "HEAD") return void res.end()
  switch (body._tag) {
    case "Uint8Array":
      return void res.end(body.body)
    default:
      // the API answers JSON or text (errors.ts) or nothing; a streamed body would be a programming error
      return void res.end()
  }
}

export type RequestListener = (req: http.IncomingMessage, res: http.ServerResponse) => void

/**
 * The request listener: an API route runs on the lean path, anything else in `app` (pages, /metrics,
 * the 404). Both run on the runtime of the fiber that builds it (its services, logger and settings).
 */
export const makeListener = <R>(app: HttpApp.Default<never, R>) =>
  Effect.gen(function*() {
    const platform = yield* NodeHttpServer.makeHandler(app)
    const router = yield* HttpApiBuilder.Router.router
    const declared = new Set(Object.values(ConveneApi.groups).flatMap((group) =>
      Object.values(group.endpoints).map((endpoint) => `${endpoint.method} ${endpoint.path}`)
    ))
    const routes = FindMyWay.make<HttpRouter.Route<unknown, unknown>>()
    for (const route of Chunk.toReadonlyArray(router.routes)) {
      if (declared.has(`${route.method} ${route.path}`)) routes.on(route.method, route.path as FindMyWay.PathInput, route)
    }
    const runtime = yield* Effect.runtime<never>()
    const failed = (req: http.IncomingMessage) => internalError(String(req.headers["x-request-id"] ?? "unknown"))

    return ((req, res) => {
      const found = req.method === undefined || req.url === undefined ? undefined : routes.find(req.method, req.url)
      if (found === undefined) return platform(req, res)
      const request = new LeanRequest(req)
      const route = found.handler
      const context = Context.make(HttpServerRequest.HttpServerRequest, request as unknown as HttpServerRequest.HttpServerRequest).pipe(
        Context.add(HttpServerRequest.ParsedSearchParams, found.searchParams),
        Context.add(HttpRouter.RouteContext, { [HttpRouter.RouteContextTypeId]: HttpRouter.RouteContextTypeId, params: found.params, route })
      )
      // the fiber starts with the request in its context (no provide around it to set and restore)
      const requestRuntime = Runtime.make({ ...runtime, context: Context.merge(runtime.context, context) })
      const handler = route.handler as Effect.Effect<HttpServerResponse.HttpServerResponse, unknown, never>
      const fiber = Runtime.runFork(requestRuntime)(lastResort(handler))
      fiber.addObserver((exit) => writeResponse(req, res, Exit.isSuccess(exit) ? exit.value : failed(req)))
    }) satisfies RequestListener
  })
