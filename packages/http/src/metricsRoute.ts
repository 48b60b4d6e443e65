/**
 * GET /metrics, a route of the server beside the API and the pages: what observe/ measures, answered here (so
 * observing needs no setting and no route of its own).
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect } from "effect"
import { json } from "./errors.js"
import { METRICS_PATH } from "./observe/routes.js"
import { clientOf, metricsAllowed, Telemetry } from "./observe/telemetry.js"
import { Settings } from "./settings.js"

/** GET /metrics: Prometheus text; loopback only, or with METRICS_TOKEN as a bearer token from anywhere. */
export const MetricsLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const telemetry = yield* Telemetry
    const { metricsToken } = yield* Settings
    yield* router.get(METRICS_PATH, Effect.gen(function*() {
      const metrics = telemetry.metrics
      if (metrics === undefined) return json(404, { error: "Not found" })
      const request = yield* HttpServerRequest.HttpServerRequest
      if (!metricsAllowed(clientOf(request.headers), request.headers.authorization, metricsToken)) return json(403, { error: "Forbidden" })
      const text = yield* Effect.promise(() => metrics.registry.metrics())
      return HttpServerResponse.text(text, { contentType: metrics.registry.contentType, headers: { "cache-control": "no-store" } })
    }))
  }))
