/**
 * `/notifications` (decisions §13): the newest 50, the unseen first, each naming who did what and linking to it; those
 * shown are seen from then on; **Mark all as read**. The header counts those not seen (layout/kit.ts).
 */
import { Notifications, Rules } from "@convene/core"
import { Effect } from "effect"
import { NoFields } from "../layout/forms.js"
import type { MessageKey } from "../layout/i18n.js"
import { type Kit, noticeOf } from "../layout/kit.js"
import type { PageRouter } from "../layout/routes.js"
import { define } from "../layout/templates.js"
import { CSRF } from "../layout/templates.js"

define("@notifications", `<% if (it.items.length === 0) { %><p><%= it.t("notifications.none") %></p><% } else { %>
<form method="post" action="/notifications/seen">${CSRF}<p><button type="submit"><%= it.t("notifications.markAll") %></button></p></form>
<ul class="notifications"><% for (const n of it.items) { %><li<%~ n.unseen ? ' class="unseen"' : "" %>><a href="<%= n.path %>"><%= n.text %></a><% if (n.unseen) { %> <span class="count"><%= it.t("notifications.new") %></span><% } %><br><span class="meta"><%= n.when %></span></li><% } %></ul><% } %>
`)

/** A notification's path as stored: a page of this server (anything else goes home). */
const pathOf = (path: string) => (/^\/[A-Za-z0-9/_\-.#?=]{0,200}$/.test(path) && !path.startsWith("//") ? path : "/")

export const notificationRoutes = (router: PageRouter, kit: Kit) =>
  Effect.gen(function*() {
    yield* router.get("/notifications", kit.signedInGet((request, who) =>
      Effect.gen(function*() {
        const shown = yield* Effect.either(kit.run(Notifications.showNotifications(who.access)))
        if (shown._tag === "Left") return kit.refused(request, who, shown.left)
        const actors = new Map(shown.right.actors.map((u) => [u.id, Rules.displayName(u)]))
        const items = shown.right.notifications.map((n) => ({
          text: who.t(`mail.${n.kind}` as MessageKey, { who: n.actor_id === null ? who.t("thread.someone") : actors.get(n.actor_id) ?? who.t("thread.someone"), title: n.title }),
          path: pathOf(n.path),
          when: who.time(n.created_at),
          unseen: n.seen_at === null
        }))
        // the header's count as it is once these are seen
        const seenNow = { ...who, unseen: Math.max(0, who.unseen - items.filter((i) => i.unseen).length) }
        return kit.respond(request, seenNow, { title: who.t("notifications.title"), template: "@notifications", notice: noticeOf(request, who), data: { items } })
      })))
    yield* router.post("/notifications/seen", kit.post(NoFields, (request, who) =>
      Effect.gen(function*() {
        const done = yield* Effect.either(kit.run(Notifications.markAllSeen(who.access)))
        if (done._tag === "Left") return kit.refused(request, who, done.left)
        return kit.seeOtherDone("/notifications", "all_seen")
      })))
  })
