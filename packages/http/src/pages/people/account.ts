/**
 * "Your account" on the profile (decisions §12): **Download my data** (one JSON file: the profile, the memberships
 * and everything the person wrote, each with its link) and **Delete my account** (confirmed by typing one's
 * address; as `convene users redact`). The core decides who may (the OwnAccount policy).
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Account } from "@convene/core"
import { Effect } from "effect"
import type { HttpSettings } from "../../settings.js"
import { fieldMessages, type Kit, type Reader } from "../layout/kit.js"
import type { PageRouter } from "../layout/routes.js"
import { DeleteAccountForm, EmailChangeForm } from "./forms.js"
import { NoFields } from "../layout/forms.js"
import { RouteParams } from "../../routes.js"

/** The download: plain records with absolute links, nothing secret (no key, no hash, no token). */
const dataJson = (d: Account.AccountData, base: string) => {
  const thread = (id: number) => `${base}/d/${d.discussionKeys.get(id) ?? ""}`
  const poll = (id: number) => `${base}/p/${d.pollKeys.get(id) ?? ""}`
  const u = d.user
  return {
    profile: { id: u.id, name: u.name, username: u.username, email: u.email, country: u.country, time_zone: u.time_zone, locale: u.locale, created_at: u.created_at },
    memberships: d.memberships.map(({ group, membership: m }) => ({
      group: group.name, link: `${base}/g/${group.key}`, admin: m.admin, delegate: m.delegate, title: m.title, accepted_at: m.accepted_at, created_at: m.created_at
    })),
    discussions: d.discussions.map((x) => ({
      title: x.title, description: x.description, description_format: x.description_format, created_at: x.created_at, discarded_at: x.discarded_at, link: thread(x.id)
    })),
    comments: d.comments.map((c) => ({
      body: c.body, body_format: c.body_format, created_at: c.created_at, edited_at: c.edited_at, discarded_at: c.discarded_at, link: `${thread(c.discussion_id)}#comment-${c.id}`
    })),
    polls: d.polls.map((p) => ({
      title: p.title, details: p.details, details_format: p.details_format, poll_type: p.poll_type, closing_at: p.closing_at, closed_at: p.closed_at, created_at: p.created_at, link: poll(p.id)
    })),
    votes: d.stances.map((s) => ({ cast_at: s.cast_at, reason: s.reason, reason_format: s.reason_format, latest: s.latest, link: poll(s.poll_id) })),
    outcomes: d.outcomes.map((o) => ({ statement: o.statement, statement_format: o.statement_format, created_at: o.created_at, link: poll(o.poll_id) })),
    reactions: d.reactions.map((r) => ({ reaction: r.reaction, reactable_type: r.reactable_type, reactable_id: r.reactable_id, created_at: r.created_at }))
  }
}

/** A form of "Your account" (its one field an address), under the profile. */
const accountPage = (title: "account.deleteTitle" | "account.changeEmail", template: string) =>
  (who: Reader, form: { email: string }, errors?: Record<string, string>, status = 200) => ({
    title: who.t(title),
    template,
    status,
    crumbs: [{ href: "/profile", label: who.t("profile.title") }],
    data: { form, errors }
  })
const deletePage = accountPage("account.deleteTitle", "@delete-account")
const emailPage = accountPage("account.changeEmail", "@change-email")


/** A change link's token as a link carries it, or "" (no stored hash matches it). */
const tokenIn = (params: Record<string, string | undefined>) => (/^[A-Za-z0-9_-]{16,64}$/.test(params.token ?? "") ? params.token! : "")

export const accountRoutes = (router: PageRouter, kit: Kit, settings: HttpSettings) =>
  Effect.gen(function*() {
    yield* router.get("/profile/email", kit.signedInGet((request, who) => Effect.succeed(kit.respond(request, who, emailPage(who, { email: "" })))))

    yield* router.post("/profile/email", kit.post(EmailChangeForm, (request, who, form) =>
      Effect.gen(function*() {
        const asked = yield* Effect.either(kit.run(Account.requestEmailChange(who.access, form.email)))
        if (asked._tag === "Right") return kit.seeOtherDone("/profile", "email_link_sent")
        const e = asked.left
        if (e._tag !== "Invalid") return kit.refused(request, who, e)
        return kit.respond(request, who, emailPage(who, form, fieldMessages(e), 422))
      })))

    // the link shows what it does; only the button changes the address (a mail scanner's GET changes nothing)
    yield* router.get("/profile/email/:token", Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const who = yield* kit.reader(request)
      const email = yield* kit.run(Account.showEmailChange(tokenIn(yield* RouteParams)))
      return kit.respond(request, who, email === undefined
        ? kit.message(who, "account.changeEmail", who.t("account.emailLinkInvalid"), 410, { href: "/profile", label: who.t("profile.title") })
        : { title: who.t("account.confirmEmailTitle", { email }), template: "@confirm-email", data: { email } })
    }))

    yield* router.post("/profile/email/:token", kit.formPost(NoFields, (request, who) =>
      Effect.gen(function*() {
        const email = yield* kit.run(Account.confirmEmailChange(tokenIn(yield* RouteParams)))
        return kit.respond(request, who, email === undefined
          ? kit.message(who, "account.changeEmail", who.t("account.emailLinkInvalid"), 410, { href: "/profile", label: who.t("profile.title") })
          : kit.message(who, "account.changeEmail", who.t("account.emailChanged", { email }), 200, { href: "/", label: who.t("error.home") }))
      })))

    const base = settings.baseUrl.replace(/\/$/, "")

    yield* router.get("/profile/data", kit.signedInGet((request, who) =>
      Effect.gen(function*() {
        const data = yield* Effect.either(kit.run(Account.accountData(who.access)))
        if (data._tag === "Left") return kit.refused(request, who, data.left)
        return HttpServerResponse.unsafeJson(dataJson(data.right, base), {
          headers: { "content-disposition": `attachment; filename="convene-data.json"`, "cache-control": "no-store", "x-content-type-options": "nosniff" }
        })
      })))

    yield* router.get("/profile/delete", kit.signedInGet((request, who) => Effect.succeed(kit.respond(request, who, deletePage(who, { email: "" })))))

    yield* router.post("/profile/delete", kit.post(DeleteAccountForm, (request, who, form) =>
      Effect.gen(function*() {
        const deleted = yield* Effect.either(kit.run(Account.deleteOwnAccount(who.access, form.email)))
        if (deleted._tag === "Right") return kit.signedOut(kit.seeOtherDone("/", "account_deleted"))
        const e = deleted.left
        if (e._tag !== "Invalid") return kit.refused(request, who, e)
        return kit.respond(request, who, deletePage(who, form, { email: who.t("account.wrongEmail") }, 422))
      })))
  })


