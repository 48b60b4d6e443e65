import { group } from "./group.js"
import { Store } from "@convene/core"
import { Effect } from "effect"
import { ConveneApi } from "./api.js"
import { serverApiDocument, userApiDocument } from "./openapi.js"
import { json, ok } from "../errors.js"
import { Settings } from "../settings.js"

export const SystemLive = group(ConveneApi, "system", Effect.void, (handlers) =>
  Effect.gen(function*() {
    const store = yield* Store
    const settings = yield* Settings
    // generated from the endpoint declarations when first asked for (an idle server holds neither), then kept
    const b2 = yield* Effect.cached(Effect.sync(() => userApiDocument(settings.baseUrl)))
    const b3 = yield* Effect.cached(Effect.sync(() => serverApiDocument(settings.baseUrl)))
    return handlers
      // 503 when the database does not answer (a closed or broken file throws: a defect, caught here too)
      .handleRaw("healthz", () =>
        Effect.map(Effect.catchAllCause(store.ping, () => Effect.succeed(false)), (up) =>
          up ? ok({ ok: true }) : json(503, { ok: false })))
      .handle("version", () => Effect.succeed({ version: settings.version, api: "loomio-b2-compatible" }))
      .handle("openapiB2", () => b2)
      .handle("openapiB3", () => b3)
  }))
