/**
 * Threads in lists (home, a group; decisions §13): "N new" and bold where something is new to the reader, a link to
 * the first unread item, **Mark as read** per thread, **Mark all as read** on home.
 */
import { type Discussion, Discussions, Reading, type Topic } from "@convene/core"
import { Effect, Schema } from "effect"
import { RouteParams } from "../../routes.js"
import { NoFields, Text } from "../layout/forms.js"
import { type Kit, type Reader, segment } from "../layout/kit.js"
import type { PageRouter } from "../layout/routes.js"

/** A thread as a list shows it (the `THREAD_LINK` partial's entry). */
export interface ThreadEntry {
  readonly key: string
  readonly href: string
  readonly title: string
  readonly isNew: boolean
  /** "3 new", "New" (never read), or "" */
  readonly newLabel: string
}

export const threadEntry = (who: Reader, d: { readonly discussion: Discussion; readonly topic: Topic }, read: Reading.ReadView | undefined): ThreadEntry => {
  const state = read?.state
  const isNew = who.user !== undefined && state?.isNew === true
  return {
    key: d.discussion.key,
    // something unread in a thread read before: straight to it (the page opens at it, `#unread` brings it into view)
    href: `/d/${d.discussion.key}${isNew && state?.firstUnread !== undefined ? "#unread" : ""}`,
    title: d.discussion.title,
    isNew,
    newLabel: !isNew ? "" : state!.neverRead ? who.t("threads.new") : who.t("threads.newCount", { count: state!.unread })
  }
}

/** Where **Mark as read** returns: home or a group's page (anything else: home). */
const backTo = (back: string) => (/^\/(g\/[A-Za-z0-9_-]{1,64})?$/.test(back) ? back : "/")

const MarkReadForm = Schema.Struct({ back: Text })

export const readRoutes = (router: PageRouter, kit: Kit) =>
  Effect.gen(function*() {
    yield* router.post("/d/:key/read", kit.post(MarkReadForm, (request, who, form) =>
      Effect.gen(function*() {
        const key = segment(yield* RouteParams, "key")
        const done = yield* Effect.either(kit.run(Effect.flatMap(Discussions.showDiscussion(who.access, key), ({ topic }) => Reading.markThreadRead(who.access, topic.id))))
        if (done._tag === "Left") return kit.refused(request, who, done.left)
        return kit.seeOtherDone(backTo(form.back), "marked_read")
      })))
    yield* router.post("/read-all", kit.post(NoFields, (request, who) =>
      Effect.gen(function*() {
        const done = yield* Effect.either(kit.run(Reading.markAllRead(who.access)))
        if (done._tag === "Left") return kit.refused(request, who, done.left)
        return kit.seeOtherDone("/", "all_read")
      })))
  })
