/**
 * The pages of decisions §5 and the profile of §9: invitations, sign-in by code or one-time link, sign-out,
 * unsubscribing, the API access page, and /profile (name, time zone, language).
 */
import { RouteParams } from "../../routes.js"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Groups, loadAccess, People, Rules, type Store, type User, Users, Volumes } from "@convene/core"
import { Effect } from "effect"
import { clientOf } from "../../observe/telemetry.js"
import type { HttpSettings } from "../../settings.js"
import { accountRoutes } from "./account.js"
import { serverZone } from "../layout/i18n.js"
import { NoFields } from "../layout/forms.js"
import { fieldMessages, type Kit, noticeOf, type Page, type Reader, seeOther, segment } from "../layout/kit.js"
import { AcceptInvitationForm, CodeForm, nextOf, ProfileForm, SignInForm, SignOutForm } from "./forms.js"
import type { PageRouter } from "../layout/routes.js"
import "./templates.js"

/** Each language's name in itself (the profile's choices). */
const LANGUAGE_NAMES: Record<Rules.Locale, string> = { en: "English", de: "Deutsch", fr: "Français" }

/**
 * Where a sign-in returns to: a path on this server only (never `//host` or a scheme: no open redirect), else
 * "" (home).
 */

/** The zones offered as suggestions (any IANA name the runtime knows is accepted). */
const ZONES: ReadonlyArray<string> = typeof Intl.supportedValuesOf === "function" ? Intl.supportedValuesOf("timeZone") : ["UTC"]

// the client behind any trusted proxy (observe/telemetry.ts), an IPv6 client by its /64
const ipOf = (request: HttpServerRequest.HttpServerRequest) => Rules.clientLimitKey(clientOf(request.headers))

/** With CONVENE_SSO_ONLY, e-mail sign-in answers this: a page pointing to the provider. */
const ssoOnlyOf = (kit: Kit) =>
  kit.sso?.only === true
    ? (request: HttpServerRequest.HttpServerRequest, who: Reader, next = "") =>
      kit.respond(request, who, { title: who.t("sso.onlyTitle", { name: kit.sso!.name }), template: "@sso-only", data: { next }, status: 403 })
    : undefined

const tooManyOf = (kit: Kit) => (request: HttpServerRequest.HttpServerRequest, who: Reader, e: { message: string; retryAfter: number }) =>
  kit.respond(request, who, { ...kit.message(who, "error.tooManyTitle", e.message, 429), headers: { "retry-after": String(e.retryAfter) } })

/** Invitations: the page says whose invitation it is and what accepting does; accepting may sign a new person in. */
const invitationRoutes = (router: PageRouter, kit: Kit) =>
  Effect.gen(function*() {
    const { formPost, message, reader, respond, run, signedIn } = kit
    const ssoOnly = ssoOnlyOf(kit)

    const invitationPage = Effect.fnUntraced(function*(request: HttpServerRequest.HttpServerRequest, token: string, errors?: Record<string, string>, status = 200) {
      const view = yield* run(People.showInvitation(token))
      const who = yield* reader(request)
      const signIn = { href: "/sign-in", label: who.t("layout.signIn") }
      if (view === undefined) return respond(request, who, message(who, "invitation.notFoundTitle", who.t("invitation.notFound"), 404, signIn))
      if (view.state !== "valid") {
        return respond(request, who, message(who, "invitation.goneTitle", who.t(view.state === "used" ? "invitation.used" : "invitation.expired"), 410, signIn))
      }
      const holder = People.invitationHolder(view.invitee, who.user)
      const viaProvider = holder._tag === "NewPerson" || holder._tag === "SignInFirst" ? { invitation: token, next: `/invitations/${token}` } : {}
      // someone else signed in is told whose invitation it is (decisions §5, amended)
      const me = who.user !== undefined && who.user.id !== view.invitee.id ? Rules.displayName(who.user) : undefined
      const inviter = view.inviter?.name ?? who.t("invitation.anAdministrator")
      const group = view.group?.name ?? ""
      const where = view.invitation.kind === "group"
        ? who.t("invitation.toGroup", { inviter, group })
        : view.invitation.kind === "poll"
        ? who.t(view.group ? "invitation.toPollOf" : "invitation.toPoll", { inviter, group })
        : who.t(view.group ? "invitation.toDiscussionOf" : "invitation.toDiscussion", { inviter, group })
      return respond(request, who, {
        title: who.t("invitation.title"),
        template: "@invitation",
        status,
        data: { token, where, message: view.invitation.message, askName: view.invitee.placeholder, errors, holder: holder._tag, email: view.invitee.email ?? "", me, ...viaProvider }
      })
    })

    yield* router.get("/invitations/:token", Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      return yield* invitationPage(request, segment(yield* RouteParams, "token"))
    }))

    yield* router.post("/invitations/:token", formPost(AcceptInvitationForm, (request, who, { name }) => Effect.gen(function*() {
      const token = segment(yield* RouteParams, "token")
      if (ssoOnly !== undefined) {
        // a new person's acceptance signs them in: with the provider only
        const view = yield* run(People.showInvitation(token))
        if (view !== undefined && People.invitationHolder(view.invitee, who.user)._tag === "NewPerson") return ssoOnly(request, who, `/invitations/${token}`)
      }
      const accepted = yield* Effect.either(run(People.acceptInvitation(token, name, who.user)))
      if (accepted._tag === "Left") {
        const e = accepted.left
        if (e._tag === "Invalid") return yield* invitationPage(request, token, { name: who.t("invitation.giveName") }, 422)
        // an existing account's invitation, and not that account signed in: the page says whose it is; nothing changed
        if (e._tag === "SignInFirst" || e._tag === "WrongPerson") return yield* invitationPage(request, token, undefined, 403)
        return yield* invitationPage(request, token)
      }
      const { landing, session } = accepted.right
      return session === undefined ? seeOther(landing) : signedIn(seeOther(landing), session)
    })))
  })

/** Sign-in by code or one-time link (a GET never signs in: mail scanners follow links), and sign-out. */
const signInRoutes = (router: PageRouter, kit: Kit) =>
  Effect.gen(function*() {
    const { formPost, message, reader, respond, run, signedIn } = kit
    const ssoOnly = ssoOnlyOf(kit)
    const tooMany = tooManyOf(kit)

    const signInPage = (who: Reader, email: string, next: string, errors?: Record<string, string>, status = 200): Page =>
      ({ title: who.t("signIn.title"), template: "@sign-in", data: { email, errors, next }, status })
    const codePage = (who: Reader, email: string, next: string, errors?: Record<string, string>, status = 200): Page =>
      ({ title: who.t("signIn.codeTitle"), template: "@sign-in-code", data: { email, errors, next }, status })

    yield* router.get("/sign-in", Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const who = yield* reader(request)
      return respond(request, who, signInPage(who, "", nextOf(new URL(request.url, "http://x").searchParams.get("next"))))
    }))

    yield* router.post("/sign-in", formPost(SignInForm, (request, who, { email, next }) => Effect.gen(function*() {
      if (ssoOnly !== undefined) return ssoOnly(request, who, next)
      const result = yield* Effect.either(run(People.requestSignIn(email, ipOf(request))))
      if (result._tag === "Left") {
        if (result.left._tag === "TooManyRequests") return tooMany(request, who, result.left)
        return respond(request, who, signInPage(who, email, next, { email: who.t("signIn.invalidEmail") }, 422))
      }
      return respond(request, who, codePage(who, email, next))
    })))

    yield* router.post("/sign-in/code", formPost(CodeForm, (request, who, { email, code, next }) => Effect.gen(function*() {
      if (ssoOnly !== undefined) return ssoOnly(request, who, next)
      const result = yield* Effect.either(run(People.signInWithCode(email, code, ipOf(request))))
      if (result._tag === "Left") {
        if (result.left._tag === "TooManyRequests") return tooMany(request, who, result.left)
        return respond(request, who, codePage(who, email, next, { code: result.left.message }, 403))
      }
      return signedIn(seeOther(next || "/"), result.right.session)
    })))

    // a GET never signs in (mail scanners follow links); the page asks for one click
    yield* router.get("/sign-in/link/:token", Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const who = yield* reader(request)
      if (ssoOnly !== undefined) return ssoOnly(request, who)
      return respond(request, who, { title: who.t("signIn.linkTitle"), template: "@sign-in-link", data: { token: segment(yield* RouteParams, "token") } })
    }))

    yield* router.post("/sign-in/link/:token", formPost(NoFields, (request, who) => Effect.gen(function*() {
      if (ssoOnly !== undefined) return ssoOnly(request, who)
      const token = segment(yield* RouteParams, "token")
      const result = yield* Effect.either(run(People.signInWithLink(token)))
      if (result._tag === "Left") return respond(request, who, message(who, "signIn.linkGoneTitle", result.left.message, 410, { href: "/sign-in", label: who.t("layout.signIn") }))
      return signedIn(seeOther("/"), result.right.session)
    })))

    yield* router.post("/sign-out", formPost(SignOutForm, (_request, who, { next }) => Effect.gen(function*() {
      if (who.user !== undefined) yield* run(People.endSignIns(who.user.id))
      // switching accounts to accept an invitation: sign in again, then back to it
      return kit.signedOut(seeOther(next === "" ? "/sign-in" : `/sign-in?next=${encodeURIComponent(next)}`))
    })))
  })

/** Unsubscribing: the link is the credential (no sign-in, no CSRF cookie: mail clients POST it one-click, RFC 8058). */
const unsubscribeRoutes = (router: PageRouter, kit: Kit) =>
  Effect.gen(function*() {
    const { message, reader, respond, run } = kit
    /** Both unsubscribe routes: the link's token, read (GET) or used (POST), and the page saying where it stands. */
    const unsubscribeRoute = (use: (token: string) => Effect.Effect<{ readonly group: { readonly name: string }; readonly muted: boolean } | undefined, never, Store>) =>
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const token = segment(yield* RouteParams, "token")
        const who = yield* reader(request)
        const found = yield* run(use(token))
        if (found === undefined) return respond(request, who, message(who, "unsubscribe.notFoundTitle", who.t("unsubscribe.notFound"), 404))
        return respond(request, who, {
          title: who.t(found.muted ? "unsubscribe.doneTitle" : "unsubscribe.title"),
          template: "@unsubscribe",
          data: { token, group: found.group.name, muted: found.muted }
        })
      })

    yield* router.get("/unsubscribe/:token", unsubscribeRoute(People.showUnsubscribe))
    yield* router.post("/unsubscribe/:token", unsubscribeRoute((token) =>
      Effect.map(People.unsubscribe(token), (group) => (group === undefined ? undefined : { group, muted: true }))))
  })

/** The API access page: the caller's key is shown once, when made anew. */
const apiAccessRoutes = (router: PageRouter, kit: Kit, settings: HttpSettings) =>
  Effect.gen(function*() {
    const { respond, run } = kit
    const apiAccess = Effect.fnUntraced(function*(who: Reader, user: User, newKey?: string) {
      const access = yield* run(loadAccess(user))
      const views = yield* run(Groups.listGroupsFor(access))
      return {
        title: who.t("apiAccess.title"),
        template: "@api-access",
        data: {
          name: user.name ?? user.username ?? "",
          email: user.email ?? "",
          newKey,
          apiBase: `${settings.baseUrl.replace(/\/$/, "")}/api/b2`,
          groups: views.filter((v) => access.memberships.get(v.group.id)?.accepted_at != null).map((v) => ({ id: v.group.id, key: v.group.key, name: v.group.name }))
        },
        headers: { "referrer-policy": "no-referrer", "cache-control": "no-store" }
      } satisfies Page
    })

    yield* router.get("/profile/api_access", kit.signedInGet((request, who) => Effect.map(apiAccess(who, who.user), (page) => respond(request, who, page))))

    yield* router.post("/profile/api_access", kit.post(NoFields, (request, who) =>
      Effect.gen(function*() {
        const rotated = yield* Effect.orDie(run(Users.rotateApiKey({ id: who.user.id })))
        return respond(request, who, yield* apiAccess(who, rotated.user, rotated.apiKey))
      })))
  })

/** The profile: name, time zone, language, the catch-up e-mail and each group's volume. */
const profileRoutes = (router: PageRouter, kit: Kit) =>
  Effect.gen(function*() {
    const { respond, run } = kit
    const profilePage = Effect.fnUntraced(function*(who: Reader & { user: User }, form: { name: string; time_zone: string; locale: string; catch_up: string }, errors?: Record<string, string>, status = 200) {
      const volumes = yield* run(Volumes.groupVolumes(who.access))
      return {
      title: who.t("profile.title"),
      template: "@profile",
      status,
      data: {
        form, errors, zones: ZONES, serverZone: serverZone(),
        groups: volumes.map((v) => ({ key: v.group.key, name: v.group.name, volume: v.volume })),
        locales: Rules.LOCALES.map((code) => ({ code, name: LANGUAGE_NAMES[code] }))
      }
    } satisfies Page
    })

    yield* router.get("/profile", kit.signedInGet((request, who) =>
      Effect.map(profilePage(who, { name: who.user.name ?? "", time_zone: who.user.time_zone ?? "", locale: who.user.locale ?? "", catch_up: who.user.catch_up ?? "" }), (page) =>
        respond(request, who, { ...page, notice: noticeOf(request, who) }))))

    yield* router.post("/profile", kit.post(ProfileForm, (request, who, input) =>
      Effect.gen(function*() {
        const saved = yield* Effect.either(run(People.updateProfile(who.user, input)))
        if (saved._tag === "Left") {
          const raw = fieldMessages(saved.left)
          const errors = {
            ...(raw.name ? { name: raw.name === "blank" ? who.t("error.blank") : who.t("profile.badName") } : {}),
            ...(raw.time_zone ? { time_zone: who.t("profile.badZone") } : {}),
            ...(raw.locale ? { locale: raw.locale } : {}),
            ...(raw.catch_up ? { catch_up: raw.catch_up } : {})
          }
          return respond(request, who, yield* profilePage(who, input, errors, 422))
        }
        return kit.seeOtherDone("/profile", "saved")
      })))
  })

export const sessionRoutes = (router: PageRouter, kit: Kit, settings: HttpSettings) =>
  Effect.gen(function*() {
    yield* invitationRoutes(router, kit)
    yield* signInRoutes(router, kit)
    yield* unsubscribeRoutes(router, kit)
    yield* apiAccessRoutes(router, kit, settings)
    yield* profileRoutes(router, kit)
    yield* accountRoutes(router, kit, settings)
  })
