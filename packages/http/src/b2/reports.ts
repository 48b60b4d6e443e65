import { group } from "../group.js"
import { Reports } from "@convene/core"
import { Effect } from "effect"
import { ConveneApi } from "../api.js"
import { requireAccess } from "../auth.js"
import { ok, respond } from "../errors.js"

/** The report is a plain JSON object (no envelope, no meta), as Loomio renders it. */
export const B2ReportsLive = group(ConveneApi, "b2.reports", (handlers) =>
  handlers.handleRaw("getParticipationReport", Effect.fnUntraced(function*({ urlParams }) {
    const access = yield* requireAccess
    return ok(yield* Reports.participationReport(access, urlParams))
  }, respond)))
