/**
 * `/search` (decisions §13, "Search"): the API's search, with its visibility, in the browser: a field "Search", the
 * reader's groups and the searchable types to filter by, the results grouped by type with their highlight and a link.
 * A visitor searches what is public.
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Groups, Search, SEARCHABLE_TYPES, type SearchResult } from "@convene/core"
import { Effect } from "effect"
import type { Kit } from "../layout/kit.js"
import type { PageRouter } from "../layout/routes.js"
import "./templates.js"

/** Where a result leads: its thread (a comment at its place) or its poll. */
const hrefOf = (r: SearchResult): string =>
  r.searchable_type === "Comment" && r.discussion_key !== null ? `/d/${r.discussion_key}#comment-${r.searchable_id}`
  : r.searchable_type === "Discussion" && r.discussion_key !== null ? `/d/${r.discussion_key}`
  : r.poll_key !== null ? `/p/${r.poll_key}`
  : r.discussion_key !== null ? `/d/${r.discussion_key}`
  : "/"

const titleOf = (r: SearchResult): string => (r.searchable_type === "Discussion" || r.searchable_type === "Comment" ? r.discussion_title : r.poll_title) ?? ""

export const searchRoutes = (router: PageRouter, kit: Kit) =>
  router.get("/search", Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const who = yield* kit.reader(request)
    const params = new URL(request.url, "http://x").searchParams
    const q = (params.get("q") ?? "").slice(0, 200)
    const groupKey = params.get("group") ?? ""
    const type = (SEARCHABLE_TYPES as ReadonlyArray<string>).includes(params.get("type") ?? "") ? params.get("type")! : ""
    const found = yield* Effect.either(kit.run(Effect.gen(function*() {
      const groups = who.user === undefined ? [] : (yield* Groups.listGroupsFor(who.access)).map((v) => v.group)
      const group = groups.find((g) => g.key === groupKey)
      const { results } = yield* Search.search(who.access, {
        query: q,
        ...(group === undefined ? {} : { group_id: group.id }),
        ...(type === "" ? {} : { types: [type] })
      }, { groups: false })
      return { groups, results }
    })))
    if (found._tag === "Left") return kit.refused(request, who, found.left)
    const { groups, results } = found.right
    const sections = SEARCHABLE_TYPES.flatMap((t) => {
      const of = results.filter((r) => r.searchable_type === t)
      return of.length === 0 ? [] : [{
        type: t,
        heading: who.t(`search.type.${t}`),
        results: of.map((r) => ({
          href: hrefOf(r),
          title: titleOf(r),
          highlight: r.highlight,
          by: who.t("search.by", { name: r.author_name ?? who.t("thread.someone"), when: who.time(r.authored_at) }),
          group: r.group_name === null ? "" : who.t("search.in", { group: r.group_name })
        }))
      }]
    })
    return kit.respond(request, who, {
      title: who.t("search.title"),
      template: "@search",
      data: {
        q,
        group: groupKey,
        type,
        groups: groups.map((g) => ({ key: g.key, name: g.name })),
        types: SEARCHABLE_TYPES.map((t) => ({ value: t, label: who.t(`search.type.${t}`) })),
        summary: q.trim() === "" ? who.t("search.recent") : who.t("search.found", { count: results.length }),
        sections
      }
    })
  }))
