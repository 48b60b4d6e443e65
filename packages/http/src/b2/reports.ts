import { HttpApiBuilder } from "@effect/platform"
import { Reports } from "@convene/core"
import { Effect } from "effect"
import { ConveneApi } from "../api.js"
import { requireAccess } from "../auth.js"
import { ok, respond } from "../errors.js"
import { query } from "../request.js"

const PARAMS = ["section", "group_scope", "group_ids", "start_month", "end_month", "interval", "member_type"] as const

/** The report is a plain JSON object (no envelope, no meta), as Loomio renders it. */
export const B2ReportsLive = HttpApiBuilder.group(ConveneApi, "b2.reports", (handlers) =>
  handlers.handleRaw("report", () =>
    respond(Effect.gen(function*() {
      const access = yield* requireAccess
      const q = yield* query
      const params = Object.fromEntries(PARAMS.map((name) => [name, q.get(name) ?? undefined]))
      return ok(yield* Reports.participationReport(access, params))
    }))))
