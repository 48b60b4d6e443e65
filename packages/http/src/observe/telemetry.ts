/**
 * What the server and its workers report to the operator: the log, and the metrics when they are on. One
 * value handed to the server, the workers and the scheduler; an embedded server gets a silent one.
 */
import { Rules } from "@convene/core"
import { Context } from "effect"
import { randomUUID, timingSafeEqual } from "node:crypto"
import type * as http from "node:http"
import { type Log, silentLog } from "./log.js"
import type { Metrics } from "./metrics.js"
import type { RouteOf } from "./routes.js"

export interface TelemetryService {
  readonly log: Log
  /** undefined: no metrics collected, /metrics answers 404 */
  readonly metrics?: Metrics
}

export class Telemetry extends Context.Tag("@convene/http/Telemetry")<Telemetry, TelemetryService>() {}

export const silentTelemetry = (): TelemetryService => ({ log: silentLog() })

/**
 * Every API answer (decisions §6 "Responses"): never sniffed as another type, never cached (they carry
 * people's data and keys), and nothing in it may load or frame anything if a browser renders it.
 */
const API_HEADERS = [
  ["x-content-type-options", "nosniff"],
  ["cache-control", "no-store"],
  ["content-security-policy", "default-src 'none'; frame-ancestors 'none'"]
] as const
const isApi = (url: string | undefined) => url !== undefined && (url.startsWith("/api/") || url === "/healthz" || url.startsWith("/healthz?"))

/** Where the request carries its client's address, as `observeRequests` decided it (whatever the client sent there is replaced). */
export const CLIENT_HEADER = "x-convene-client"

/** The client's address, as `observeRequests` decided it. */
export const clientOf = (headers: Readonly<Record<string, string | undefined>>): string => headers[CLIENT_HEADER] ?? "unknown"

/** An X-Request-Id a client may choose: at most 128 characters that are safe in a log line and a header. */
const SAFE_REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/

const requestIdOf = (sent: string | Array<string> | undefined): string =>
  typeof sent === "string" && SAFE_REQUEST_ID.test(sent) ? sent : randomUUID()

/**
 * Runs before the application sees a request: gives it a request id (echoed, else generated) that every
 * response carries, and when the response is done logs one line and counts it. Only the route template is
 * recorded, never the URL, its query, headers or body.
 */
export const observeRequests = (server: http.Server, telemetry: TelemetryService, routeOf: RouteOf, proxies: Rules.TrustedProxies = []) => {
  const { log, metrics } = telemetry
  const logging = log.isLevelEnabled("info")
  server.on("request", (req: http.IncomingMessage, res: http.ServerResponse) => {
    const id = requestIdOf(req.headers["x-request-id"])
    // the application reads it from here (an unexpected failure is logged under the same id)
    req.headers["x-request-id"] = id
    res.setHeader("x-request-id", id)
    // who the client is, decided once (behind trusted proxies, from X-Forwarded-For): limits, logs and /metrics read it
    const client = Rules.clientAddress(req.socket.remoteAddress, req.headers["x-forwarded-for"], proxies, req.headers.forwarded)
    req.headers[CLIENT_HEADER] = client
    if (isApi(req.url)) for (const [name, value] of API_HEADERS) res.setHeader(name, value)
    if (!logging && metrics === undefined) return
    const started = performance.now()
    const route = routeOf(req.method, req.url)
    const method = req.method ?? "GET"
    metrics?.arrived(method, route)
    res.once("close", () => {
      const ms = performance.now() - started
      // a response cut short (the client went away) is logged as such: 499, nginx's word for it
      const status = res.writableFinished ? res.statusCode : 499
      metrics?.request(method, route, status, ms / 1000)
      if (logging) log.info({ req_id: id, method, route, status, ms: Math.round(ms * 10) / 10, client }, "request")
    })
  })
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+)$/

/** /metrics: from loopback when no token is set; with METRICS_TOKEN, from anywhere with that bearer token only. */
export const metricsAllowed = (remoteAddress: string | undefined, authorization: string | undefined, token: string | undefined): boolean => {
  if (token === undefined) return LOOPBACK.test(remoteAddress ?? "")
  const sent = Buffer.from(authorization?.startsWith("Bearer ") ? authorization.slice(7) : "")
  const wanted = Buffer.from(token)
  return sent.length === wanted.length && timingSafeEqual(sent, wanted)
}

