import { HttpApiBuilder } from "@effect/platform"
import { Search } from "@convene/core"
import { Effect } from "effect"
import { ConveneApi } from "../api.js"
import { requireAccess } from "../auth.js"
import { envelope, responseOptions, wants } from "../envelope.js"
import { ok, respond } from "../errors.js"
import { intParam, query } from "../request.js"
import { groupJson, searchResultJson, userJson } from "../serializers.js"

/** `type` and `types` (comma-separated) together. */
const typesParam = (q: URLSearchParams) =>
  [...q.getAll("type"), ...q.getAll("types")].flatMap((v) => v.split(",")).map((t) => t.trim()).filter((t) => t !== "")

/** `search_results` with the groups and authors of the results; bounded (at most 20), so `meta` has no total. */
export const B2SearchLive = HttpApiBuilder.group(ConveneApi, "b2.search", (handlers) =>
  handlers.handleRaw("search", () =>
    respond(Effect.gen(function*() {
      const access = yield* requireAccess
      const q = yield* query
      const opts = yield* responseOptions(q)
      const found = yield* Search.search(access, {
        query: q.get("query") ?? undefined,
        group_id: yield* intParam(q, "group_id"),
        org_id: yield* intParam(q, "org_id", { min: 0 }),
        types: typesParam(q),
        tag: q.get("tag") ?? undefined,
        author_id: yield* intParam(q, "author_id"),
        order: q.get("order") ?? undefined
      }, { groups: wants(opts, "group") })
      return ok(envelope(opts, "search_results", found.results.map(searchResultJson), [
        { type: "group", root: "groups", records: found.groups.map(groupJson) },
        { type: "user", root: "users", records: found.users.map((u) => userJson(access, u)) }
      ]))
    }))))
