/**
 * Letting people in and letting a group go (decisions §12): **Join group**, **Ask to join**, the requests an inviter
 * answers, the shareable link and its **Reset link**, `/explore`, and **Delete group**. The core's Joining and
 * GroupDeletion use cases decide; a page shows a control only where the group page's rules allow it.
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { type Group, GroupDeletion, Joining, Rules, type User } from "@convene/core"
import { Effect } from "effect"
import { RouteParams } from "../../routes.js"
import { NoFields } from "../layout/forms.js"
import { doneOf, fieldMessages, idFrom, type Kit, noticeOf, type Reader, seeOther, segment } from "../layout/kit.js"
import type { PageRouter } from "../layout/routes.js"
import type { HttpSettings } from "../../settings.js"
import { AskToJoinForm, DeclineForm, DeleteGroupForm } from "./forms.js"
import { groupFor } from "./pageGroup.js"
import "./templates.js"

const EXPLORE_PAGE = 50

const askPage = (who: Reader, group: Group, form: { introduction: string }, errors?: Record<string, string>, status = 200) => ({
  title: who.t("ask.title", { group: group.name }),
  template: "@ask-to-join",
  status,
  crumbs: [{ href: `/g/${group.key}`, label: group.name }],
  data: { key: group.key, form, errors }
})

const deletePage = (who: Reader, group: Group, form: { confirmation: string }, errors?: Record<string, string>, status = 200) => ({
  title: who.t("deleteGroup.title", { group: group.name }),
  template: "@delete-group",
  status,
  crumbs: [{ href: `/g/${group.key}`, label: group.name }],
  data: { key: group.key, name: group.name, form, errors }
})

/** `/g/{key}/requests`: waiting requests with **Approve** and **Decline**, then those answered. */
const requestsPage = (kit: Kit) =>
  kit.signedInGet((request, who) =>
    Effect.gen(function*() {
      const listed = yield* Effect.either(kit.run(Joining.listRequests(who.access, segment(yield* RouteParams, "key"))))
      if (listed._tag === "Left") return kit.refused(request, who, listed.left)
      const { group, requests } = listed.right
      const name = (u: User | undefined) => (u === undefined ? who.t("thread.someone") : Rules.displayName(u))
      const done = doneOf(request)
      const acted = done?.n === undefined ? undefined : requests.find((r) => r.request.id === done.n)
      const notice = acted === undefined ? noticeOf(request, who)
        : done?.what === "approved" ? who.t("requests.approvedNotice", { name: name(acted.requestor) })
        : done?.what === "declined" ? who.t("requests.declinedNotice", { name: name(acted.requestor) })
        : undefined
      const shown = requests.map((r) => ({
        id: r.request.id,
        name: name(r.requestor),
        introduction: r.request.introduction,
        asked: who.time(r.request.created_at),
        answer: r.request.response === null ? undefined : who.t(r.request.response === "approved" ? "requests.answerApproved" : "requests.answerDeclined", {
          name: name(r.responder),
          when: who.time(r.request.responded_at!)
        })
      }))
      return kit.respond(request, who, {
        title: who.t("requests.title", { group: group.name }),
        template: "@requests",
        crumbs: [{ href: `/g/${group.key}`, label: group.name }],
        notice,
        data: { key: group.key, waiting: shown.filter((r) => r.answer === undefined), answered: shown.filter((r) => r.answer !== undefined) }
      })
    }))

/** **Approve** or **Decline** (with its reason): the core asks the rule again, and mails the requester. */
const answer = (kit: Kit, approve: boolean) =>
  kit.post(DeclineForm, (request, who, { reason }) =>
    Effect.gen(function*() {
      const params = yield* RouteParams
      const key = segment(params, "key")
      const done = yield* Effect.either(kit.run(Joining.answerRequest(who.access, key, idFrom(segment(params, "id")), approve, approve ? "" : reason)))
      if (done._tag === "Left") {
        // a request answered meanwhile (or a reason too long): said on the list again
        if (done.left._tag === "Invalid") {
          const text = Object.values(fieldMessages(done.left)).join(" ")
          return kit.respond(request, who, kit.message(who, "requests.notAnswered", text, 422, { href: `/g/${key}/requests`, label: who.t("requests.back") }))
        }
        return kit.refused(request, who, done.left)
      }
      return kit.seeOtherDone(`/g/${key}/requests`, approve ? "approved" : "declined", done.right.request.id)
    }))

/** The shareable link's page part (on the invite page), for those who may invite. */
export const shareableLink = (kit: Kit, settings: HttpSettings, who: Reader, key: string) =>
  Effect.map(Effect.either(kit.run(Joining.joinLink(who.access, key))), (link) => (link._tag === "Right" ? new URL(link.right, settings.baseUrl).toString() : undefined))

const linkGone = (kit: Kit, request: HttpServerRequest.HttpServerRequest, who: Reader) =>
  kit.respond(request, who, kit.message(who, "joinLink.goneTitle", who.t("joinLink.gone"), 404, { href: "/", label: who.t("error.home") }))

export const joiningRoutes = (router: PageRouter, kit: Kit, settings: HttpSettings) =>
  Effect.gen(function*() {
    yield* router.post("/g/:key/join", kit.post(NoFields, (request, who) =>
      Effect.gen(function*() {
        const joined = yield* Effect.either(kit.run(Joining.joinGroup(who.access, segment(yield* RouteParams, "key"))))
        if (joined._tag === "Left") return kit.refused(request, who, joined.left)
        return kit.seeOtherDone(`/g/${joined.right.group.key}`, "joined")
      })))

    yield* router.get("/g/:key/ask", kit.signedInGet((request, who) =>
      Effect.gen(function*() {
        const found = yield* Effect.either(groupFor(kit, who, segment(yield* RouteParams, "key"), (may) => may.ask))
        if (found._tag === "Left") return kit.refused(request, who, found.left)
        return kit.respond(request, who, askPage(who, found.right, { introduction: "" }))
      })))
    yield* router.post("/g/:key/ask", kit.post(AskToJoinForm, (request, who, form) =>
      Effect.gen(function*() {
        const key = segment(yield* RouteParams, "key")
        const asked = yield* Effect.either(kit.run(Joining.askToJoin(who.access, key, form.introduction)))
        if (asked._tag === "Right") return kit.seeOtherDone(`/g/${key}`, "asked")
        if (asked.left._tag !== "Invalid") return kit.refused(request, who, asked.left)
        const errors = fieldMessages(asked.left)
        const found = yield* Effect.either(groupFor(kit, who, key, (may) => may.ask))
        if (found._tag === "Left") return kit.refused(request, who, found.left)
        return kit.respond(request, who, askPage(who, found.right, form, errors, 422))
      })))

    yield* router.get("/g/:key/requests", requestsPage(kit))
    yield* router.post("/g/:key/requests/:id/approve", answer(kit, true))
    yield* router.post("/g/:key/requests/:id/decline", answer(kit, false))

    yield* router.post("/g/:key/link/reset", kit.post(NoFields, (request, who) =>
      Effect.gen(function*() {
        const key = segment(yield* RouteParams, "key")
        const reset = yield* Effect.either(kit.run(Joining.resetJoinLink(who.access, key)))
        if (reset._tag === "Left") return kit.refused(request, who, reset.left)
        return kit.seeOtherDone(`/g/${key}/invite`, "link_reset")
      })))

    // the link: signed out, to sign in first and back here; signed in, **Join group** (a GET never joins)
    yield* router.get("/join/:token", kit.signedInGet((request, who) =>
      Effect.gen(function*() {
        const group = yield* kit.run(Joining.groupOfLink(segment(yield* RouteParams, "token")))
        if (group === undefined) return linkGone(kit, request, who)
        if (who.access.memberships.get(group.id)?.accepted_at != null) return seeOther(`/g/${group.key}`)
        return kit.respond(request, who, { title: who.t("joinLink.title", { group: group.name }), template: "@join-link", data: { name: group.name } })
      })))
    yield* router.post("/join/:token", kit.post(NoFields, (request, who) =>
      Effect.gen(function*() {
        const joined = yield* Effect.either(kit.run(Joining.joinByLink(who.access, segment(yield* RouteParams, "token"))))
        if (joined._tag === "Left") {
          return joined.left._tag === "NotFound" ? linkGone(kit, request, who) : kit.refused(request, who, joined.left)
        }
        return kit.seeOtherDone(`/g/${joined.right.key}`, "joined")
      })))

    yield* router.get("/g/:key/delete", kit.signedInGet((request, who) =>
      Effect.gen(function*() {
        const found = yield* Effect.either(groupFor(kit, who, segment(yield* RouteParams, "key"), (may) => may.delete))
        if (found._tag === "Left") return kit.refused(request, who, found.left)
        return kit.respond(request, who, deletePage(who, found.right, { confirmation: "" }))
      })))
    yield* router.post("/g/:key/delete", kit.post(DeleteGroupForm, (request, who, form) =>
      Effect.gen(function*() {
        const key = segment(yield* RouteParams, "key")
        const deleted = yield* Effect.either(kit.run(GroupDeletion.deleteGroup(who.access, key, form.confirmation)))
        if (deleted._tag === "Right") return kit.seeOtherDone("/", "group_deleted")
        if (deleted.left._tag !== "Invalid") return kit.refused(request, who, deleted.left)
        const found = yield* Effect.either(groupFor(kit, who, key, (may) => may.delete))
        if (found._tag === "Left") return kit.refused(request, who, found.left)
        return kit.respond(request, who, deletePage(who, found.right, form, { confirmation: who.t("deleteGroup.wrong") }, 422))
      })))

    if (settings.explorePublicGroups === true) {
      yield* router.get("/explore", Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const who = yield* kit.reader(request)
        const params = new URL(request.url, "http://x").searchParams
        const q = (params.get("q") ?? "").slice(0, 100)
        const pageNo = Math.max(1, Math.min(1000, Number.parseInt(params.get("page") ?? "1", 10) || 1))
        // one more than a page: whether there is a next one
        const found = yield* kit.run(Joining.exploreGroups(q, { limit: EXPLORE_PAGE + 1, offset: (pageNo - 1) * EXPLORE_PAGE }))
        const link = (n: number) => `/explore?${new URLSearchParams({ ...(q === "" ? {} : { q }), page: String(n) })}`
        return kit.respond(request, who, {
          title: who.t("explore.title"),
          template: "@explore",
          data: {
            q,
            groups: found.slice(0, EXPLORE_PAGE).map((v) => ({
              key: v.group.key,
              name: v.group.name,
              description: (v.group.description ?? "").slice(0, 280),
              members: who.t("explore.members", { count: v.counts.accepted_memberships_count })
            })),
            previous: pageNo > 1 ? link(pageNo - 1) : undefined,
            next: found.length > EXPLORE_PAGE ? link(pageNo + 1) : undefined
          }
        })
      }))
    }
  })
