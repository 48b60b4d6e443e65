import * as Etag from "@effect/platform/Etag"
import * as FileSystem from "@effect/platform/FileSystem"
import * as HttpPlatform from "@effect/platform/HttpPlatform"
import * as Path from "@effect/platform/Path"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import * as HttpServerError from "@effect/platform/HttpServerError"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { NodeUrlPolicyLive, People, Rules, Store, type StoreService } from "@convene/core"
import { Cause, Effect, Exit, Fiber, Layer, Option } from "effect"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { ConveneApi } from "./api.js"
import { type B1Auth, B1AuthLive, type B2Auth, B2AuthLive, type B3Auth, B3AuthLive } from "./auth.js"
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
import { lastResort, makeListener } from "./serve.js"
import { type HttpSettings, Settings } from "./settings.js"
import { SystemLive } from "./system.js"
import { PagesLive } from "./pages/pages.js"
import { withLog } from "./observe/log.js"
import { MetricsLive } from "./metricsRoute.js"
import { METRICS_PATH, routeMatcher } from "./observe/routes.js"
import { observeRequests, silentTelemetry, Telemetry, type TelemetryService } from "./observe/telemetry.js"
import { PAGE_ROUTES } from "./pages/layout/routes.js"

/** Every route's template, for the request log's and the metrics' labels (observe/routes.ts). */
const ROUTES = routeMatcher([
  ...Object.values(ConveneApi.groups).flatMap((group) => Object.values(group.endpoints).map((endpoint) => endpoint.path as string)),
  ...PAGE_ROUTES,
  METRICS_PATH
])

/** The API's endpoint groups: served by the platform's app (which documents them) and the lean path (serve.ts). */
const groups = [
  SystemLive, B2GroupsLive, B2MembershipsLive, B3UsersLive, B2DiscussionsLive, B2CommentsLive, B2ThreadsLive, B2ReactionsLive,
  B2ChatbotsLive, B2PollsLive, B2ReportsLive, B2SearchLive, B1DiscussionsLive, B1PollsLive, B1MembershipsLive
] as const

/** What the groups' handlers need from the server's context, besides the auth middlewares (auth.ts). */
type HandlerServices = Exclude<Layer.Layer.Context<(typeof groups)[number]>, B1Auth | B2Auth | B3Auth>

const ApiLive = HttpApiBuilder.api(ConveneApi).pipe(
  Layer.provide(HttpApiBuilder.middleware(lastResort)),
  Layer.provide(groups),
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

/**
 * Attaches the request listener (serve.ts), then listens; closing stops accepting connections and lets
 * in-flight requests finish. The listener exists before the port opens, so no request finds none.
 */
const listen = (server: http.Server, address: { readonly port: number; readonly host: string }) =>
  Layer.scopedDiscard(Effect.gen(function*() {
    // the groups' handlers run in this fiber's context on the lean path: it must hold what they need
    yield* Effect.context<HandlerServices>()
    const listener = yield* makeListener(yield* HttpApiBuilder.httpApp, groups)
    server.on("request", listener)
    yield* Effect.acquireRelease(
      Effect.async<void, HttpServerError.ServeError>((resume) => {
        const onError = (cause: Error) => resume(Effect.fail(new HttpServerError.ServeError({ cause })))
        server.once("error", onError)
        server.listen(address, () => {
          server.off("error", onError)
          resume(Effect.void)
        })
      }),
      () =>
        Effect.async<void>((resume) => {
          server.off("request", listener)
          if (!server.listening) return resume(Effect.void)
          server.close(() => resume(Effect.void))
        })
    )
  })).pipe(Layer.provide([HttpApiBuilder.Router.Live, HttpApiBuilder.Middleware.layer]))

/**
 * What the platform's router asks of its host to answer with files or read multipart bodies, which convene never
 * does: a file system that refuses every call, in place of Node's (whose modules would be loaded for nothing).
 */
const NoFilesLive = HttpPlatform.layer.pipe(Layer.provideMerge(Layer.mergeAll(FileSystem.layerNoop({}), Path.layer, Etag.layerWeak)))

/** The server as a Layer, for Effect programs that compose it with other services. */
export const serverLayer = (options: ServerOptions, server: http.Server) =>
  listen(server, { port: options.port, host: options.host }).pipe(
    Layer.provide(AppLive),
    Layer.provide(NoFilesLive),
    Layer.provide(Layer.succeed(Store, options.store)),
    Layer.provide(Layer.succeed(People.InvitationTtlDays, options.settings.invitationTtlDays ?? Rules.INVITATION_TTL_DAYS)),
    Layer.provide(Layer.succeed(Telemetry, options.telemetry ?? silentTelemetry())),
    Layer.provide(NodeUrlPolicyLive(options.settings.allowPrivateWebhooks ?? false)),
    Layer.provide(Layer.succeed(Settings, options.settings)),
    // every request's body limit, in the context the listener's fibers start with (request.ts)
    Layer.provide(Layer.succeed(HttpServerRequest.MaxBodySize, Option.some(FileSystem.Size(options.settings.maxBodyBytes))))
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
  observeRequests(server, telemetry, ROUTES, options.settings.trustedProxies)
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
