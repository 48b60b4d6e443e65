/**
 * **React** and removing one's own reaction (decisions §13), from the thread page (comments) and the poll page (the
 * poll, votes, outcomes): the core's Reactions use cases decide who may, and the page goes back where it was.
 */
import { ITEMABLE_TYPES, Reactions, Rules, type User } from "@convene/core"
import { Effect, Schema } from "effect"
import { RouteParams } from "../../routes.js"
import { OneOf, Text, Trimmed } from "../layout/forms.js"
import { idFrom, type Kit, type Reader, seeOther, segment } from "../layout/kit.js"
import type { PageRouter } from "../layout/routes.js"

/** A page a reaction's form may send the reader back to: a thread or a poll of this server. */
const backOf = (back: string): string => (/^\/[dp]\/[A-Za-z0-9]{1,40}(\?from=[0-9]{1,9})?$/.test(back) ? back : "/")

const ReactForm = Schema.Struct({ reactable_type: OneOf(...ITEMABLE_TYPES), reactable_id: Trimmed, reaction: Text, back: Text })
const UnreactForm = Schema.Struct({ back: Text })

/** The reactions under a record, as a page shows them: each emoji, how many, who, and the reader's own. */
export const reactionsView = (who: Reader, reactions: ReadonlyArray<{ id: number; user_id: number; reaction: string }>, users: ReadonlyMap<number, User>) =>
  Rules.summariseReactions(reactions, who.user?.id ?? 0).map((r) => ({
    emoji: r.emoji,
    count: r.count,
    names: r.userIds.map((id) => { const u = users.get(id); return u === undefined ? who.t("thread.someone") : Rules.displayName(u) }).join(", "),
    mine: r.mine
  }))

export const reactionRoutes = (router: PageRouter, kit: Kit) =>
  Effect.gen(function*() {
    // **React**: the emoji to choose from, for a record the reader may react to (a page of its own: no script needed)
    yield* router.get("/reactions/new", kit.signedInGet((request, who) =>
      Effect.gen(function*() {
        const params = new URL(request.url, "http://x").searchParams
        const type = ITEMABLE_TYPES.find((t) => t === params.get("type"))
        const id = idFrom(params.get("id") ?? "")
        const back = backOf(params.get("back") ?? "")
        if (type === undefined) return kit.notFound(request, who)
        const allowed = yield* Effect.either(kit.run(Reactions.reactionTarget(who.access, type, id)))
        if (allowed._tag === "Left") return kit.refused(request, who, allowed.left)
        return kit.respond(request, who, {
          title: who.t("reactions.react"),
          template: "@react",
          data: { type, id, back, emoji: Rules.REACTION_EMOJI.map((e) => ({ e, label: who.t("reactions.with", { emoji: e }) })) }
        })
      })))
    yield* router.post("/reactions", kit.post(ReactForm, (request, who, form) =>
      Effect.gen(function*() {
        const id = idFrom(form.reactable_id)
        const back = backOf(form.back)
        const done = yield* Effect.either(kit.run(Reactions.addReaction(who.access, { reactable_type: form.reactable_type, reactable_id: id, reaction: form.reaction })))
        if (done._tag === "Left") return kit.refused(request, who, done.left)
        return seeOther(form.reactable_type === "Comment" ? `${back}#comment-${id}` : back)
      })))
    yield* router.post("/reactions/:id/delete", kit.post(UnreactForm, (request, who, form) =>
      Effect.gen(function*() {
        const done = yield* Effect.either(kit.run(Reactions.removeReaction(who.access, idFrom(segment(yield* RouteParams, "id")))))
        if (done._tag === "Left") return kit.refused(request, who, done.left)
        return seeOther(backOf(form.back))
      })))
  })
