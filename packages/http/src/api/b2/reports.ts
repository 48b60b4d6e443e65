import { group } from "../group.js"
import { Reports } from "@convene/core"
import { Effect } from "effect"
import { ConveneApi } from "../api.js"
import { requireAccess } from "../auth.js"

/** The report is a plain JSON object (no envelope, no meta), as Loomio renders it. */
export const B2ReportsLive = group(ConveneApi, "b2.reports", requireAccess, (handlers) =>
  // spread: the report's interfaces become the plain object the document declares
  handlers.handle("getParticipationReport", ({ access, urlParams }) => Effect.map(Reports.participationReport(access, urlParams), (r) => ({ ...r }))))
