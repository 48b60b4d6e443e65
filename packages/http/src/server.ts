import * as FileSystem from "@effect/platform/FileSystem"
import * as HttpServerError from "@effect/platform/HttpServerError"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { FileStorage, type FileStorageService, Groups, NodeUrlPolicyLive, People, Rules, Store, type StoreService } from "@convene/core"
import { Cause, Effect, Exit, Fiber, Layer, Option } from "effect"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { B2GroupsLive } from "./api/b2/groups.js"
import { B2MembershipsLive } from "./api/b2/memberships.js"
import { B3UsersLive } from "./api/b3/users.js"
import { B2CommentsLive } from "./api/b2/comments.js"
import { B2DiscussionsLive } from "./api/b2/discussions.js"
import { B2ReactionsLive } from "./api/b2/reactions.js"
import { B2ThreadsLive } from "./api/b2/threads.js"
import { B2ChatbotsLive } from "./api/b2/chatbots.js"
import { B2PollsLive } from "./api/b2/polls.js"
import { B2ReportsLive } from "./api/b2/reports.js"
import { B2SearchLive } from "./api/b2/search.js"
import { B1DiscussionsLive } from "./api/b1/discussions.js"
import { B1MembershipsLive } from "./api/b1/memberships.js"
import { B1PollsLive } from "./api/b1/polls.js"
import type { GroupRoutes } from "./api/group.js"
import { makeListener } from "./serve.js"
import { type HttpSettings, Settings } from "./settings.js"
import { SystemLive } from "./api/system.js"
import { pageRoutes } from "./pages/pages.js"
import { withLog } from "./observe/log.js"
import { observeRequests, silentTelemetry, Telemetry, type TelemetryService } from "./observe/telemetry.js"
import { makeRouteTable, type RouteTable } from "./routes.js"

/** The API's endpoint groups, each endpoint put in the route table once (serve.ts). */
const groups = [
  SystemLive, B2GroupsLive, B2MembershipsLive, B3UsersLive, B2DiscussionsLive, B2CommentsLive, B2ThreadsLive, B2ReactionsLive,
  B2ChatbotsLive, B2PollsLive, B2ReportsLive, B2SearchLive, B1DiscussionsLive, B1PollsLive, B1MembershipsLive
] as const

type ServicesOf<G> = G extends GroupRoutes<infer R> ? R : never
/** What the groups' handlers and builds need from the server's context (what the auth middlewares provide is not asked: auth.ts). */
type HandlerServices = ServicesOf<(typeof groups)[number]>

export interface ServerOptions {
  readonly store: StoreService
  readonly settings: HttpSettings
  /** where files' bytes live (decisions §14); default: none, and an upload is refused (503) */
  readonly files?: FileStorageService
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
const listen = (server: http.Server, table: RouteTable, address: { readonly port: number; readonly host: string }) =>
  Layer.scopedDiscard(Effect.gen(function*() {
    // the groups' handlers run in this fiber's context: it must hold what they need
    yield* Effect.context<HandlerServices>()
    const { close: closeStreams, listener } = yield* makeListener(table, groups, pageRoutes)
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
          closeStreams()
          if (!server.listening) return resume(Effect.void)
          server.close(() => resume(Effect.void))
        })
    )
  }))

/** Without a file store (an embedder that gave none): an upload is refused, and no file is found. */
const noFileStorage: FileStorageService = {
  kind: "none",
  describe: "no file storage",
  receive: () => Promise.reject(new Error("this server has no file storage")),
  keep: () => Promise.reject(new Error("this server has no file storage")),
  discard: () => Promise.resolve(),
  read: () => Promise.resolve(undefined),
  put: () => Promise.reject(new Error("this server has no file storage")),
  remove: () => Promise.resolve(),
  exists: () => Promise.resolve(false)
}

/** The server as a Layer, for Effect programs that compose it with other services (`table`: where its routes go). */
export const serverLayer = (options: ServerOptions, server: http.Server, table: RouteTable = makeRouteTable()) =>
  listen(server, table, { port: options.port, host: options.host }).pipe(
    Layer.provide(Layer.succeed(Store, options.store)),
    Layer.provide(Layer.succeed(FileStorage, options.files ?? noFileStorage)),
    Layer.provide(Layer.succeed(People.InvitationTtlDays, options.settings.invitationTtlDays ?? Rules.INVITATION_TTL_DAYS)),
    Layer.provide(Layer.succeed(Groups.GroupCreation, { onlyAdmins: options.settings.onlyAdminsStartGroups ?? false })),
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
  const table = makeRouteTable()
  // before the application's own listener: the request id exists before anything reads the request; the route's
  // template is the table's, filled before the port opens
  observeRequests(server, telemetry, table.templateOf, options.settings.trustedProxies)
  const fiber = Effect.runFork(Layer.launch(serverLayer({ ...options, telemetry }, server, table)).pipe(withLog(telemetry.log)))
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
