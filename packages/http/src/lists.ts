import { Effect } from "effect"
import { requireAccess } from "./auth.js"
import { responseOptions } from "./envelope.js"
import { pageParams, query, requiredIntParam } from "./request.js"

/** What every list of a group's records reads first: the caller, response options, `group_id`, paging (with per/from). */
export const groupListRequest = Effect.gen(function*() {
  const access = yield* requireAccess
  const q = yield* query
  const opts = yield* responseOptions(q)
  const groupId = yield* requiredIntParam(q, "group_id")
  const page = yield* pageParams(q, { aliases: true })
  return { access, q, opts, groupId, page }
})
