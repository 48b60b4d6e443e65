/**
 * GET /metrics: what observe/ measures, as Prometheus text; loopback only, or with METRICS_TOKEN as a bearer
 * token from anywhere. The server puts it in its route table (serve.ts), so observing needs no route of its own.
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect } from "effect"
import { json } from "../errors.js"
import type { Metrics } from "./metrics.js"
import { clientOf, metricsAllowed } from "./telemetry.js"

/** The route's answer; without metrics (an embedded server) it is not there. */
export const metricsRoute = (metrics: Metrics | undefined, token: string | undefined) =>
  Effect.gen(function*() {
    if (metrics === undefined) return json(404, { error: "Not found" })
    const request = yield* HttpServerRequest.HttpServerRequest
    if (!metricsAllowed(clientOf(request.headers), request.headers.authorization, token)) return json(403, { error: "Forbidden" })
    const text = yield* Effect.promise(() => metrics.registry.metrics())
    return HttpServerResponse.text(text, { contentType: metrics.registry.contentType, headers: { "cache-control": "no-store" } })
  })
