import { group } from "../group.js"
import { Search } from "@convene/core"
import { Effect } from "effect"
import { ConveneApi } from "../api.js"
import { requireAccess } from "../auth.js"
import { envelope, responseOptions, wants } from "../envelope.js"
import { groupJson, searchResultJson, userJson } from "../serializers.js"

/** `type` and `types` (comma-separated) together. */
const typesParam = (p: { type?: string | undefined; types?: string | undefined }) =>
  [p.type, p.types].flatMap((v) => (v ?? "").split(",")).map((t) => t.trim()).filter((t) => t !== "")

/** `search_results` with the groups and authors of the results; bounded (at most 20), so `meta` has no total. */
export const B2SearchLive = group(ConveneApi, "b2.search", requireAccess, (handlers) =>
  handlers.handle("searchContent", Effect.fnUntraced(function*({ access, urlParams: p }) {
    const opts = responseOptions(p)
    const found = yield* Search.search(access, {
      query: p.query,
      group_id: p.group_id,
      org_id: p.org_id,
      types: typesParam(p),
      tag: p.tag,
      author_id: p.author_id,
      order: p.order
    }, { groups: wants(opts, "group") })
    return envelope(opts, "search_results", found.results.map(searchResultJson), [
      { type: "group", root: "groups", records: found.groups.map(groupJson) },
      { type: "user", root: "users", records: found.users.map((u) => userJson(access, u)) }
    ])
  })))
