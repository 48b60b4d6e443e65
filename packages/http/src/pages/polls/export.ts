/**
 * A poll's results taken away (decisions §15): `/p/{key}/export.csv` (a spreadsheet: the poll, its results per
 * option, one row per vote) and `/p/{key}/print` (the same as a page to print), for those who may see the results
 * now (the core's ExportResults). An anonymous poll's rows name no one and carry no ids.
 */
import { RouteParams } from "../../routes.js"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Polls, Rules } from "@convene/core"
import { Effect } from "effect"
import { type MessageKey, percentText } from "../layout/i18n.js"
import { type Kit, type Reader, SECURITY_HEADERS, segment } from "../layout/kit.js"
import type { PageRouter } from "../layout/routes.js"
import { define } from "../layout/templates.js"
import { bodyHtml } from "../layout/bodies.js"
import { choiceText, optionLabel, pollStateText, resultColumns } from "./words.js"

/**
 * One CSV field (RFC 4180: quoted when it holds a comma, quote or line break). A text that a spreadsheet would run
 * as a formula (=, +, -, @, a tab or a return first) is kept as text with a leading apostrophe (OWASP's CSV injection advice).
 */
export const csvField = (value: string | number | null): string => {
  if (value === null) return ""
  if (typeof value === "number") return String(value)
  const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text
}
const csvLine = (fields: ReadonlyArray<string | number | null>) => fields.map(csvField).join(",")

/** What both the spreadsheet and the printed page show, in the reader's words. */
const exported = (who: Reader, e: Polls.ResultsExport) => {
  const p = e.view.poll
  const columns = resultColumns(who, p.poll_type)
  const options = [...e.view.options].sort((a, b) => a.priority - b.priority || a.id - b.id)
  return {
    poll: p,
    named: !p.anonymous,
    columns,
    results: e.view.results.options.map((r) => ({ label: optionLabel(who, p, r.name), values: columns.values(r), share: r.votes_cast_percent })),
    options: options.map((o) => ({ id: o.id, label: optionLabel(who, p, o.name) })),
    ballots: e.ballots
  }
}

const csvOf = (who: Reader, e: Polls.ResultsExport): string => {
  const x = exported(who, e)
  const p = x.poll
  const lines = [
    csvLine([who.t("export.poll"), p.title]),
    csvLine([who.t("poll.type"), who.t(`pollType.${p.poll_type}` as MessageKey)]),
    csvLine([who.t("export.state"), pollStateText(who, p)]),
    csvLine([who.t("export.voters"), e.view.voters_count]),
    csvLine([who.t("export.cast"), e.view.cast_count]),
    csvLine([who.t("export.delegated"), e.view.delegated_count]),
    "",
    csvLine([who.t("poll.option"), ...x.columns.headers, who.t("poll.share")]),
    ...x.results.map((r) => csvLine([r.label, ...r.values, `${r.share}%`])),
    "",
    csvLine([...(x.named ? [who.t("export.voterId"), who.t("export.voter")] : []), who.t("export.castAt"), ...x.options.map((o) => o.label), who.t("export.reason"),
      ...(x.named ? [who.t("export.castBy")] : [])]),
    ...x.ballots.map((b) => csvLine([
      ...(x.named ? [b.stance.participant_id, b.voter === undefined ? "" : Rules.displayName(b.voter)] : []),
      b.stance.cast_at,
      ...x.options.map((o) => b.stance.choices.get(o.id) ?? 0),
      b.stance.reason ?? "",
      ...(x.named ? [b.delegate === undefined ? "" : Rules.displayName(b.delegate)] : [])
    ]))
  ]
  // a byte order mark: spreadsheets then read the text as UTF-8
  return "\ufeff" + lines.join("\r\n") + "\r\n"
}

define("@poll-print", `<p class="meta"><%= it.type %> · <%= it.state %></p>
<% if (it.detailsHtml) { %><div class="body"><%~ it.detailsHtml %></div><% } %>
<p><%= it.t("poll.voted", { cast: it.cast, voters: it.voters }) %><% if (it.delegated > 0) { %> <%= it.t("poll.delegatedCount", { count: it.delegated }) %><% } %></p>
<h2><%= it.t("poll.results") %></h2>
<table class="results"><caption class="visually-hidden"><%= it.t("poll.results") %></caption>
<thead><tr><th scope="col"><%= it.t("poll.option") %></th><% for (const h of it.columns) { %><th scope="col"><%= h %></th><% } %><th scope="col"><%= it.t("poll.share") %></th></tr></thead><tbody>
<% for (const r of it.results) { %><tr><th scope="row"><%= r.label %></th><% for (const v of r.values) { %><td><%= v %></td><% } %><td><%= r.share %></td></tr><% } %>
</tbody></table>
<h2><%= it.t("export.votes") %></h2>
<% if (it.ballots.length === 0) { %><p><%= it.t("export.noVotes") %></p><% } else { %><ol class="votes"><% for (const b of it.ballots) { %><li><p class="meta"><%= b.heading %></p><p><%= b.choice %></p><% if (b.reason) { %><p><%= b.reason %></p><% } %></li><% } %></ol><% } %>
<p class="no-print"><a href="/p/<%= it.key %>"><%= it.t("export.back") %></a></p>
`)

const printPage = (who: Reader, e: Polls.ResultsExport) => {
  const x = exported(who, e)
  const p = x.poll
  return {
    title: p.title,
    template: "@poll-print",
    crumbs: [{ href: `/p/${p.key}`, label: p.title }],
    data: {
      key: p.key,
      type: who.t(`pollType.${p.poll_type}` as MessageKey),
      state: pollStateText(who, p),
      detailsHtml: bodyHtml(p.details, p.details_format),
      cast: e.view.cast_count,
      voters: e.view.voters_count,
      delegated: e.view.delegated_count,
      columns: x.columns.headers,
      results: x.results.map((r) => ({ ...r, share: percentText(who.locale, r.share) })),
      ballots: x.ballots.map((b) => ({
        heading: [x.named ? (b.voter === undefined ? who.t("thread.someone") : Rules.displayName(b.voter)) : who.t("export.aVoter"), who.time(b.stance.cast_at),
          ...(b.delegate === undefined ? [] : [who.t("export.castByName", { name: Rules.displayName(b.delegate) })])].join(" · "),
        // in the poll page's words for a vote
        choice: choiceText(who, p, e.view.options, b.stance.choices),
        reason: b.stance.reason ?? ""
      }))
    }
  }
}

/** The export, where the core lets the reader see the results; refused as the poll page would be. */
const withExport = (kit: Kit, show: (request: HttpServerRequest.HttpServerRequest, who: Reader, e: Polls.ResultsExport) => HttpServerResponse.HttpServerResponse) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const who = yield* kit.reader(request)
    const found = yield* Effect.either(kit.run(Polls.exportResults(who.access, segment(yield* RouteParams, "key"))))
    if (found._tag === "Left") return kit.refused(request, who, found.left)
    return show(request, who, found.right)
  })

export const pollExportRoutes = (router: PageRouter, kit: Kit) =>
  Effect.gen(function*() {
    yield* router.get("/p/:key/export.csv", withExport(kit, (_request, who, e) =>
      HttpServerResponse.text(csvOf(who, e), {
        contentType: "text/csv; charset=utf-8",
        headers: { ...SECURITY_HEADERS, "cache-control": "private, no-store", "content-disposition": `attachment; filename="poll-${e.view.poll.key}.csv"` }
      })))
    yield* router.get("/p/:key/print", withExport(kit, (request, who, e) => kit.respond(request, who, printPage(who, e))))
  })
