import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import type * as HttpApp from "@effect/platform/HttpApp"
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
// the module, not the package index: the index loads every Node platform module (workers, sockets, …)
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { badRequest, DatabaseError, NodeUrlPolicyLive, People, Rules, Store, type StoreService } from "@convene/core"
import { Cause, Effect, Exit, Fiber, Layer, Option } from "effect"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { ConveneApi } from "./api.js"
import { B1AuthLive, B2AuthLive, B3AuthLive } from "./auth.js"
import { B2GroupsLive } from "./b2/groups.js"
import { B2MembershipsLive } from "./b2/memberships.js"
import { B3UsersLive } from "./b3/users.js"
import { B2CommentsLive } from "./b2/comments.js"
import { B2DiscussionsLive } from "./b2/discussions.js"
import { B2ReactionsLive } from "./b2/reactions.js"
import { B2ThreadsLive } from "./b2/threads.js"
import { B2ChatbotsLive } from "./b2/chatbots.js"
import { B2PollsLive } from "./b2/polls.js"
import { B2ReportsLive } from "./b2/reports.js"
import { B2SearchLive } from "./b2/search.js"
import { B1DiscussionsLive } from "./b1/discussions.js"
import { B1MembershipsLive } from "./b1/memberships.js"
import { B1PollsLive } from "./b1/polls.js"
import { databaseBusy, errorResponse, internalError, issueMessage } from "./errors.js"
import { type HttpSettings, Settings } from "./settings.js"
import { SystemLive } from "./system.js"
import { busyPage, PagesLive } from "./pages/pages.js"
import { withLog } from "./observe/log.js"
import { MetricsLive, observeRequests, silentTelemetry, Telemetry, type TelemetryService } from "./observe/telemetry.js"

/**
 * The last line of defence: an unknown route is a JSON 404; anything unexpected is logged with the
 * request's id (never its headers or body, which carry secrets) and answered 500 without details.
 */
const lastResort = (app: HttpApp.Default): HttpApp.Default =>
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

const ApiLive = HttpApiBuilder.api(ConveneApi).pipe(
  Layer.provide(HttpApiBuilder.middleware(lastResort)),
  Layer.provide([SystemLive, B2GroupsLive, B2MembershipsLive, B3UsersLive]),
  Layer.provide([B2DiscussionsLive, B2CommentsLive, B2ThreadsLive, B2ReactionsLive]),
  Layer.provide([B2ChatbotsLive, B2PollsLive]),
  Layer.provide([B2ReportsLive, B2SearchLive, B1DiscussionsLive, B1PollsLive, B1MembershipsLive]),
  Layer.provide([B1AuthLive, B2AuthLive, B3AuthLive])
)

/** The API and, beside it, the pages (which read the same store and settings, never the API's auth) and /metrics. */
const AppLive = Layer.mergeAll(ApiLive, PagesLive, MetricsLive)

export interface ServerOptions {
  readonly store: StoreService
  readonly settings: HttpSettings
  readonly port: number
  readonly host: string
  /** the log and metrics; default: a silent log and no metrics (an embedded server writes nothing) */
  readonly telemetry?: TelemetryService
}

export interface RunningServer {
  readonly url: string
  readonly port: number
  /** Stops accepting connections, lets in-flight requests finish, and resolves when the server is down. */
  readonly close: () => Promise<void>
}

/** The server as a Layer, for Effect programs that compose it with other services. */
export const serverLayer = (options: ServerOptions, server: http.Server) =>
  HttpApiBuilder.serve().pipe(
    Layer.provide(AppLive),
    Layer.provide(NodeHttpServer.layer(() => server, { port: options.port, host: options.host })),
    Layer.provide(Layer.succeed(Store, options.store)),
    Layer.provide(Layer.succeed(People.InvitationTtlDays, options.settings.invitationTtlDays ?? Rules.INVITATION_TTL_DAYS)),
    Layer.provide(Layer.succeed(Telemetry, options.telemetry ?? silentTelemetry())),
    Layer.provide(NodeUrlPolicyLive(options.settings.allowPrivateWebhooks ?? false)),
    Layer.provide(Layer.succeed(Settings, options.settings))
  )

/** Why listening failed, in the system's words (EADDRINUSE …), not the platform's wrapper ("ServeError"). */
const listenError = (cause: Cause.Cause<unknown>): Error => {
  const failure = Cause.squash(cause) as { cause?: unknown; message?: string }
  const inner = failure.cause as { code?: string; message?: string } | undefined
  return new Error(inner?.message ?? failure.message ?? Cause.pretty(cause))
}

/** Starts the HTTP server; resolves once it listens (port 0 picks a free port). */
export const startServer = (options: ServerOptions): Promise<RunningServer> => {
  const server = http.createServer()
  const telemetry = options.telemetry ?? silentTelemetry()
  // before the application's own listener: the request id exists before anything reads the request
  observeRequests(server, telemetry)
  const fiber = Effect.runFork(
    // no tracing spans per request: they cost time on the hot path and nothing consumes them
    Layer.launch(serverLayer({ ...options, telemetry }, server).pipe(HttpMiddleware.withTracerDisabledWhen(() => true))).pipe(withLog(telemetry.log))
  )
  return new Promise((resolve, reject) => {
    const onListening = () => {
      const port = (server.address() as AddressInfo).port
      resolve({
        url: `http://${options.host.includes(":") ? `[${options.host}]` : options.host}:${port}`,
        port,
        close: () => Effect.runPromise(Fiber.interrupt(fiber)).then(() => undefined)
      })
    }
    server.once("listening", onListening)
    fiber.addObserver((exit) => {
      if (!server.listening) {
        server.off("listening", onListening)
        reject(Exit.isFailure(exit) ? listenError(exit.cause) : new Error("server stopped"))
      }
    })
  })
}
