/**
 * How requests reach the application: one listener on `node:http`, one route table (routes.ts) holding every
 * route once: the API's endpoints, the pages, /metrics, /inbound/mail and /live. A request runs as one fiber on the
 * runtime built at start, with the request (and a page's path parameters) put in its context once; the response
 * is written straight to node's. An API endpoint's path and query decoders (its declaration's) run
 * synchronously before its handler, and what its auth middlewares provide is a constant added to the route's
 * context once (auth.ts). The platform's server, router and HttpApiBuilder add a scope, context copies and
 * provides to every request, which cost more than a light read's own work (bench/serving.js, bench/light.js),
 * and are not loaded.
 */
import * as Cookies from "@effect/platform/Cookies"
import * as UrlParams from "@effect/platform/UrlParams"
import type * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpIncomingMessage from "@effect/platform/HttpIncomingMessage"
import * as HttpServerError from "@effect/platform/HttpServerError"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { badRequest, DatabaseError, FileStorage, Rules, Store } from "@convene/core"
import { Cause, Context, Effect, Either, Exit, Option, ParseResult, Runtime, Schema, type SchemaAST } from "effect"
import type * as http from "node:http"
import { middlewareProvides } from "./api/auth.js"
import { type BodyRead, readWithin } from "./body.js"
import { databaseBusy, errorResponse, internalError, issueMessage, json } from "./errors.js"
import type { GroupRoutes, Route, RouteHandler } from "./api/group.js"
import { makeInboundRoute } from "./mail/inbound.js"
import { makeLiveHub } from "./live.js"
import { makeFileRoutes, readForm, type RunEffect } from "./files.js"

/** the most files one page form may attach */
const MAX_PAGE_FILES = 10
import { METRICS_PATH } from "./observe/routes.js"
import { metricsRoute } from "./observe/metricsRoute.js"
import { Telemetry } from "./observe/telemetry.js"
import type { PageHandler, PageRouter, PageUploadHandler } from "./pages/layout/routes.js"
import { busyPage, formInvalidPage, notFoundPage, tooLargePage } from "./pages/pages.js"
import { type Answer, type PathParams, PageUploads, RouteParams, type RouteTable, type SearchParams } from "./routes.js"
import { Settings } from "./settings.js"

const isApiPath = (url: string) => url.startsWith("/api/") || url === "/api" || url.startsWith("/metrics")

/**
 * The last line of defence: anything unexpected is logged with the request's id (never its headers or body,
 * which carry secrets) and answered 500 without details.
 */
const lastResort = <E, R>(app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
  Effect.catchAllCause(app, (cause) => {
    const failure = Cause.failureOption(cause)
    if (Option.isSome(failure) && HttpServerResponse.isServerResponse(failure.value)) return Effect.succeed(failure.value)
    if (Cause.isInterruptedOnly(cause)) return Effect.failCause(cause)
    return Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
      // a write that waited 5 s for another process's write lock: the API answers JSON, a page answers a page
      if (Cause.squash(cause) instanceof DatabaseError) return Effect.succeed(request.url.startsWith("/api/") ? databaseBusy() : busyPage(request.headers["accept-language"]))
      // observeRequests gave every request an id before the application saw it
      const requestId = request.headers["x-request-id"] ?? "unknown"
      return Effect.as(Effect.logError("request failed", { req_id: requestId, err: Cause.pretty(cause) }), internalError(requestId))
    })
  })

/** An unknown route: a JSON 404 under /api (and /metrics), a page everywhere else (a browser never gets JSON from a page route). */
const unrouted = (req: http.IncomingMessage) =>
  isApiPath(req.url ?? "/") ? json(404, { error: "Not found" }) : notFoundPage(req.headers["accept-language"])

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
  /** Read once (body.ts), at most the request's MaxBodySize bytes (request.ts sets it from the settings). */
  get text(): Effect.Effect<string, HttpServerError.RequestError> {
    return Effect.flatMap(HttpIncomingMessage.MaxBodySize, (max) =>
      Effect.async<string, HttpServerError.RequestError>((resume) => this.read(Option.isSome(max) ? Number(max.value) : Infinity, resume)))
  }
  /** The body as already read elsewhere (a multipart form's fields, files.ts): what `text` answers from then on. */
  preset(text: string) {
    this.body = Exit.succeed(text)
  }
  /** Reads the body once, within `limit`; whoever asks meanwhile waits for the same answer. */
  read(limit: number, resume: (body: Exit.Exit<string, HttpServerError.RequestError>) => void) {
    if (Exit.isExit(this.body)) return resume(this.body)
    if (this.body !== undefined) return void this.body.push(resume)
    const waiting = [resume]
    this.body = waiting
    readWithin(this.source, limit, (read: BodyRead) => {
      const body = read._tag === "Body"
        ? Exit.succeed(read.body.toString("utf8"))
        : Exit.fail(read._tag === "TooLarge" ? tooLarge(this) : new HttpServerError.RequestError({ request: this as never, reason: "Decode", cause: read.cause }))
      this.body = body
      for (const r of waiting) r(body)
    })
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

/**
 * Whether a query parameter is one value where its declaration says so (a string, a literal, …), else a list:
 * a key sent once for a list becomes a list of one, as the platform's HttpApiBuilder reads queries.
 */
const isSingle = (ast: SchemaAST.AST, key?: string): boolean => {
  switch (ast._tag) {
    case "StringKeyword":
    case "Literal":
    case "TemplateLiteral":
    case "Enums":
      return true
    case "TypeLiteral": {
      if (key === undefined) return false
      const property = ast.propertySignatures.find((p) => p.name === key)
      return property !== undefined
        ? isSingle(property.type, key)
        : ast.indexSignatures.some((i) => Schema.is(Schema.make(i.parameter))(key) && isSingle(i.type))
    }
    case "Union":
      return ast.types.some((type) => isSingle(type, key))
    case "Suspend":
      return isSingle(ast.f(), key)
    case "Refinement":
    case "Transformation":
      return isSingle(ast.from, key)
    default:
      return false
  }
}

/** A query's normaliser for one declaration: the declared keys' answers worked out once, at start, not per request. */
const searchNormaliser = (ast: SchemaAST.AST) => {
  const declared = new Map(ast._tag === "TypeLiteral" ? ast.propertySignatures.map((p) => [String(p.name), isSingle(ast, String(p.name))]) : [])
  return (search: SearchParams): Record<string, unknown> => {
    const out: Record<string, unknown> = {}
    for (const key in search) {
      const value = search[key]
      out[key] = Array.isArray(value) || (declared.get(key) ?? isSingle(ast, key)) ? value : [value]
    }
    return out
  }
}

/** An endpoint's path, headers and query, decoded by its declaration's Schemas. */
type Decode = (request: LeanRequest, params: PathParams, search: SearchParams) => Either.Either<Record<string, unknown>, ParseResult.ParseError>

const decoderOf = (schema: Schema.Schema.Any) => Schema.decodeUnknownEither(schema as Schema.Schema<unknown, unknown, never>)

/** Decodes what HttpApiBuilder decodes for a raw handler, in its order (path, headers, query), synchronously. */
const requestDecoder = (endpoint: HttpApiEndpoint.HttpApiEndpoint.AnyWithProps): Decode => {
  const path = Option.getOrUndefined(Option.map(endpoint.pathSchema, decoderOf))
  const headers = Option.getOrUndefined(Option.map(endpoint.headersSchema, decoderOf))
  const query = Option.getOrUndefined(Option.map(endpoint.urlParamsSchema, (schema) => {
    const decode = decoderOf(schema)
    const normalise = searchNormaliser(schema.ast)
    return (search: SearchParams) => decode(normalise(search))
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
 * The request listener over `table`: every route is registered in it here, once (the API's groups, the pages,
 * /metrics, /inbound/mail), and runs on the runtime of the fiber that builds it (its services, logger and
 * settings), which must hold what the groups' handlers and the pages need (server.ts requires it by type).
 */
export const makeListener = Effect.fnUntraced(function*<R>(
  table: RouteTable,
  groups: ReadonlyArray<GroupRoutes<R>>,
  pages: (router: PageRouter) => Effect.Effect<void, never, R>
) {
  const store = yield* Store
  const settings = yield* Settings
  const runtime = yield* Effect.runtime<R>()
  const serverContext = runtime.context as Context.Context<never>
  const failed = (req: http.IncomingMessage) => internalError(String(req.headers["x-request-id"] ?? "unknown"))
  /** Runs `effect` as one fiber with the request in its context, and writes what it answers. */
  const serve: Serve = (req, res, request, context, effect) => {
    // the fiber starts with the request in its context (no provide around it to set and restore)
    context.set(HttpServerRequest.HttpServerRequest.key, request)
    const requestRuntime = Runtime.make({ context: Context.unsafeMake(context), runtimeFlags: runtime.runtimeFlags, fiberRefs: runtime.fiberRefs })
    // every request, API or page, is one of the store's requests: what it reads twice is read once (Store.request)
    const fiber = Runtime.runFork(requestRuntime)(lastResort(store.request(effect as Effect.Effect<HttpServerResponse.HttpServerResponse>)))
    fiber.addObserver((exit) => writeResponse(req, res, Exit.isSuccess(exit) ? exit.value : failed(req)))
  }

  // the API: each endpoint with its declaration's decoders and what its middlewares provide (auth.ts), made once
  for (const { group, routes } of groups) {
    // a build that needs services (system.ts) is given them by the server fiber running this
    for (const { name, handler } of yield* (routes as Effect.Effect<ReadonlyArray<Route>>)) {
      const endpoint = group.endpoints[name]!
      let context = serverContext
      for (const tag of [...group.middlewares, ...endpoint.middlewares]) {
        const provided = middlewareProvides.get(tag.key)
        if (provided === undefined) throw new Error(`the route table does not know middleware ${tag.key} (auth.ts)`)
        context = Context.merge(context, provided)
      }
      table.add(endpoint.method, endpoint.path, apiRoute(requestDecoder(endpoint), handler, context, serve))
    }
  }

  // the pages: a form over the body limit is answered 413 (a page, not a reset connection) before a handler reads it
  const maxBody = Option.match(yield* HttpIncomingMessage.MaxBodySize, { onNone: () => Infinity, onSome: Number })
  const page = (handler: PageHandler): Answer => (req, res, params) => {
    const request = new LeanRequest(req)
    const context = new Map(serverContext.unsafeMap)
    context.set(RouteParams.key, params)
    const run = () => serve(req, res, request, context, handler as Effect.Effect<HttpServerResponse.HttpServerResponse, unknown, unknown>)
    if (Number(req.headers["content-length"] ?? 0) > maxBody) {
      req.resume()
      return writeResponse(req, res, tooLargePage(req.headers["accept-language"]))
    }
    // a body of unstated length (chunked) is read first, within the limit: the handler reads it from the request
    if (req.headers["content-length"] === undefined && req.headers["transfer-encoding"] !== undefined) {
      return request.read(maxBody, (body) => (Exit.isSuccess(body) ? run() : writeResponse(req, res, tooLargePage(req.headers["accept-language"]))))
    }
    run()
  }
  // a form that may carry files: a multipart body is read here, its files streamed into the file store (each within
  // ATTACHMENT_MAX_BYTES), its fields given to the handler as a form's; what the handler did not keep is discarded
  const storage = yield* FileStorage
  const attachmentLimit = settings.attachmentMaxBytes ?? Rules.ATTACHMENT_MAX_BYTES
  const withFiles = (handler: PageUploadHandler): Answer => {
    const plain = page(Effect.provideService(Effect.provideService(handler, PageUploads, []), FileStorage, storage))
    return (req, res, params, search) => {
      if (!/^multipart\/form-data/i.test(req.headers["content-type"] ?? "")) return plain(req, res, params, search)
      void readForm(req, storage, attachmentLimit, MAX_PAGE_FILES, maxBody).then((read) => {
        if (read._tag === "TooLarge") return writeResponse(req, res, tooLargePage(req.headers["accept-language"]))
        if (read._tag === "Malformed") return writeResponse(req, res, formInvalidPage(req.headers["accept-language"]))
        const request = new LeanRequest(req)
        request.preset(read.fields)
        const context = new Map(serverContext.unsafeMap)
        context.set(RouteParams.key, params)
        context.set(PageUploads.key, read.uploads)
        const discard = Effect.promise(() => Promise.all(read.uploads.map((u) => storage.discard(u.received.temp))))
        serve(req, res, request, context, Effect.ensuring(handler, discard) as Effect.Effect<HttpServerResponse.HttpServerResponse, unknown, unknown>)
      })
    }
  }
  yield* pages({
    get: (path, handler) => Effect.sync(() => table.add("GET", path, page(handler))),
    post: (path, handler) => Effect.sync(() => table.add("POST", path, page(handler))),
    postWithFiles: (path, handler) => Effect.sync(() => table.add("POST", path, withFiles(handler)))
  })

  const metrics = metricsRoute((yield* Telemetry).metrics, settings.metricsToken)
  table.add("GET", METRICS_PATH, (req, res) => serve(req, res, new LeanRequest(req), new Map(serverContext.unsafeMap), metrics))
  // raw messages of up to 10 MB from relays, beside the API's and the pages' limits (mail/inbound.ts)
  table.add("*", "/inbound/mail", makeInboundRoute(store, settings.inbound))
  // the live pages' streams (live.ts): open for as long as their pages are
  const live = makeLiveHub(store, settings.live)
  table.add("GET", "/live", live.answer)
  // files (files.ts): an upload streams past the body limit to the file store; a download streams from it
  const runFiles: RunEffect = (effect) => Runtime.runPromiseExit(runtime as unknown as Runtime.Runtime<Store | FileStorage>)(store.request(effect))
  const files = makeFileRoutes(runFiles, writeResponse, storage, attachmentLimit)
  table.add("POST", "/api/b2/attachments", files.upload)
  table.add("GET", "/files/:signed_id/:filename", files.download)

  const listener: RequestListener = (req, res) => {
    const found = table.find(req.method, req.url)
    if (found === undefined) return writeResponse(req, res, unrouted(req))
    found.answer(req, res, found.params, found.search)
  }
  // the open streams end before the server closes (which waits for every connection to end)
  return { listener, close: live.close }
})

type Serve = (req: http.IncomingMessage, res: http.ServerResponse, request: LeanRequest, context: Map<string, unknown>,
  effect: Effect.Effect<HttpServerResponse.HttpServerResponse, unknown, unknown>) => void

/** An API endpoint's route: its path and query decoded before its handler runs (a parameter that does not decode: 400). */
const apiRoute = (decode: Decode, handler: RouteHandler, context: Context.Context<never>, serve: Serve): Answer => (req, res, params, search) => {
  const request = new LeanRequest(req)
  const input = decode(request, params, search)
  if (Either.isLeft(input)) return writeResponse(req, res, undecodable(ParseResult.ArrayFormatter.formatErrorSync(input.left)))
  const requestContext = new Map(context.unsafeMap)
  requestContext.set(HttpServerRequest.ParsedSearchParams.key, search)
  serve(req, res, request, requestContext, Effect.suspend(() => handler(input.right) as Effect.Effect<HttpServerResponse.HttpServerResponse>))
}
