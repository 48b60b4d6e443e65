/**
 * The server-rendered pages of decisions §5, a thin binding of the core's People service beside the API:
 * invitations, sign-in by code or one-time link, sign-out and the API access page. They share nothing of
 * the API's bearer auth: a session cookie authenticates pages only, never /api/*.
 *
 * Every form carries a CSRF token equal to the `convene_csrf` cookie (double submit, SameSite=Lax); every
 * page sends a Content-Security-Policy without inline script and `frame-ancestors 'none'`.
 */
import { HttpApiBuilder, HttpRouter, HttpServerRequest, HttpServerResponse, UrlParams } from "@effect/platform"
import { Groups, loadAccess, People, Store, type User, Users } from "@convene/core"
import { Effect, Option } from "effect"
import { randomBytes, timingSafeEqual } from "node:crypto"
import { Settings } from "../settings.js"
import { render, STYLESHEET } from "./templates.js"

const SESSION_COOKIE = "convene_session"
const CSRF_COOKIE = "convene_csrf"
const THIRTY_DAYS_S = 30 * 86_400

const SECURITY_HEADERS = {
  "content-security-policy": "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "same-origin",
  "cache-control": "no-store"
}

interface Page {
  readonly title: string
  readonly template: string
  readonly data: object
  readonly status?: number
  readonly headers?: Record<string, string>
}

const sameSecret = (a: string, b: string) => a.length === b.length && a.length > 0 && timingSafeEqual(Buffer.from(a), Buffer.from(b))

export const PagesLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const store = yield* Store
    const settings = yield* Settings
    const secure = settings.baseUrl.startsWith("https:")
    const cookie = { httpOnly: true, sameSite: "lax" as const, path: "/", secure }
    const run = <A, E>(effect: Effect.Effect<A, E, Store>) => Effect.provideService(effect, Store, store)

    /** The request's CSRF token (the cookie's, or a new one the response sets). */
    const csrfOf = (request: HttpServerRequest.HttpServerRequest) => {
      const existing = request.cookies[CSRF_COOKIE]
      return existing !== undefined && /^[A-Za-z0-9_-]{32}$/.test(existing) ? { token: existing, fresh: false } : { token: randomBytes(24).toString("base64url"), fresh: true }
    }

    const respond = (request: HttpServerRequest.HttpServerRequest, user: User | undefined, page: Page) => {
      const csrf = csrfOf(request)
      const body = render(page.template, { ...page.data, csrf: csrf.token })
      const html = render("@layout", { title: page.title, body, signedIn: user !== undefined, csrf: csrf.token })
      let response = HttpServerResponse.text(html, {
        status: page.status ?? 200,
        contentType: "text/html; charset=utf-8",
        headers: { ...SECURITY_HEADERS, ...page.headers }
      })
      if (csrf.fresh) response = HttpServerResponse.unsafeSetCookie(response, CSRF_COOKIE, csrf.token, cookie)
      return response
    }

    const message = (title: string, text: string, status: number, link?: { href: string; label: string }): Page => ({
      title, template: "@message", data: { text, link }, status
    })

    const currentUser = (request: HttpServerRequest.HttpServerRequest) => run(People.sessionUser(request.cookies[SESSION_COOKIE]))

    /** A form's fields, once its CSRF token matched the cookie's; otherwise undefined (answered 403). */
    const form = (request: HttpServerRequest.HttpServerRequest) =>
      Effect.map(Effect.orElseSucceed(request.urlParamsBody, () => UrlParams.empty), (params) => {
        const fields = Object.fromEntries(params.map(([k, v]) => [k, v]))
        const cookieToken = request.cookies[CSRF_COOKIE] ?? ""
        return sameSecret(String(fields.csrf ?? ""), cookieToken) ? fields as Record<string, string> : undefined
      })

    const forbiddenForm = (request: HttpServerRequest.HttpServerRequest) =>
      respond(request, undefined, message("Form expired", "This form is no longer valid (its security token did not match). Go back, reload the page and try again.", 403))

    const signedIn = (response: HttpServerResponse.HttpServerResponse, session: string) =>
      HttpServerResponse.unsafeSetCookie(
        // a new CSRF token with the new session
        HttpServerResponse.unsafeSetCookie(response, CSRF_COOKIE, randomBytes(24).toString("base64url"), cookie),
        SESSION_COOKIE, session, { ...cookie, maxAge: `${THIRTY_DAYS_S} seconds` }
      )

    const seeOther = (location: string) => HttpServerResponse.empty({ status: 303, headers: { location, ...SECURITY_HEADERS } })

    const ipOf = (request: HttpServerRequest.HttpServerRequest) => Option.getOrElse(request.remoteAddress, () => "unknown")

    const tooMany = (request: HttpServerRequest.HttpServerRequest, e: { message: string; retryAfter: number }) =>
      respond(request, undefined, { ...message("Please wait", e.message, 429), headers: { "retry-after": String(e.retryAfter) } })

    const apiAccess = (user: User, newKey?: string) =>
      Effect.gen(function*() {
        const access = yield* run(loadAccess(user))
        const views = yield* run(Groups.listGroupsFor(access))
        return {
          title: "API access",
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

    yield* router.get("/assets/convene.css", Effect.succeed(HttpServerResponse.text(STYLESHEET, {
      contentType: "text/css; charset=utf-8",
      headers: { "cache-control": "public, max-age=3600", "x-content-type-options": "nosniff" }
    })))

    // Invitations

    const invitationPage = (request: HttpServerRequest.HttpServerRequest, token: string, error?: string, status = 200) =>
      Effect.gen(function*() {
        const view = yield* run(People.showInvitation(token))
        const user = yield* currentUser(request)
        if (view === undefined) return respond(request, user, message("Invitation not found", "This invitation link is not valid. Check that you copied the whole link.", 404, { href: "/sign-in", label: "Sign in" }))
        if (view.state !== "valid") {
          return respond(request, user, message("Invitation no longer valid",
            view.state === "used" ? "This invitation has already been accepted." : "This invitation has expired. Ask whoever invited you to invite you again.",
            410, { href: "/sign-in", label: "Sign in" }))
        }
        const where = view.invitation.kind === "group" ? `join the group ${view.group?.name ?? ""}` : `take part in a ${view.invitation.kind === "poll" ? "poll" : "discussion"}${view.group ? ` of ${view.group.name}` : ""}`
        return respond(request, user, {
          title: "You are invited",
          template: "@invitation",
          status,
          data: {
            token,
            inviter: view.inviter?.name ?? "An administrator",
            where,
            message: view.invitation.message,
            askName: view.invitee.name === null,
            error
          }
        })
      })

    yield* router.get("/invitations/:token", Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const { token } = (yield* HttpRouter.params) as { token: string }
      return yield* invitationPage(request, token)
    }))

    yield* router.post("/invitations/:token", Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const { token } = (yield* HttpRouter.params) as { token: string }
      const fields = yield* form(request)
      if (fields === undefined) return forbiddenForm(request)
      const accepted = yield* Effect.either(run(People.acceptInvitation(token, fields.name)))
      if (accepted._tag === "Left") {
        const e = accepted.left
        if (e._tag === "Invalid") return yield* invitationPage(request, token, "Please give your name.", 422)
        return yield* invitationPage(request, token)
      }
      return signedIn(seeOther("/profile/api_access"), accepted.right.session)
    }))

    // Sign-in and sign-out

    yield* router.get("/sign-in", Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      return respond(request, yield* currentUser(request), { title: "Sign in", template: "@sign-in", data: { email: "" } })
    }))

    yield* router.post("/sign-in", Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const fields = yield* form(request)
      if (fields === undefined) return forbiddenForm(request)
      const email = String(fields.email ?? "").trim()
      const result = yield* Effect.either(run(People.requestSignIn(email, ipOf(request))))
      if (result._tag === "Left") {
        const e = result.left
        if (e._tag === "TooManyRequests") return tooMany(request, e)
        return respond(request, undefined, { title: "Sign in", template: "@sign-in", data: { email, error: "Enter a valid e-mail address." }, status: 422 })
      }
      return respond(request, undefined, { title: "Enter your code", template: "@sign-in-code", data: { email } })
    }))

    yield* router.post("/sign-in/code", Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const fields = yield* form(request)
      if (fields === undefined) return forbiddenForm(request)
      const email = String(fields.email ?? "").trim()
      const result = yield* Effect.either(run(People.signInWithCode(email, String(fields.code ?? ""))))
      if (result._tag === "Left") {
        const e = result.left
        if (e._tag === "TooManyRequests") return tooMany(request, e)
        return respond(request, undefined, { title: "Enter your code", template: "@sign-in-code", data: { email, error: e.message }, status: 403 })
      }
      return signedIn(seeOther("/profile/api_access"), result.right.session)
    }))

    // a GET never signs in (mail scanners follow links); the page asks for one click
    yield* router.get("/sign-in/link/:token", Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const { token } = (yield* HttpRouter.params) as { token: string }
      return respond(request, undefined, { title: "Sign in to convene", template: "@sign-in-link", data: { token } })
    }))

    yield* router.post("/sign-in/link/:token", Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const { token } = (yield* HttpRouter.params) as { token: string }
      const fields = yield* form(request)
      if (fields === undefined) return forbiddenForm(request)
      const result = yield* Effect.either(run(People.signInWithLink(token)))
      if (result._tag === "Left") return respond(request, undefined, message("Link no longer valid", result.left.message, 410, { href: "/sign-in", label: "Sign in" }))
      return signedIn(seeOther("/profile/api_access"), result.right.session)
    }))

    yield* router.post("/sign-out", Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const fields = yield* form(request)
      if (fields === undefined) return forbiddenForm(request)
      const user = yield* currentUser(request)
      if (user !== undefined) yield* run(People.endSessions(user.id))
      return HttpServerResponse.unsafeSetCookie(seeOther("/sign-in"), SESSION_COOKIE, "", { ...cookie, maxAge: "0 seconds" })
    }))

    // The API access page

    yield* router.get("/profile/api_access", Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const user = yield* currentUser(request)
      if (user === undefined) return seeOther("/sign-in")
      return respond(request, user, yield* apiAccess(user))
    }))

    yield* router.post("/profile/api_access", Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const user = yield* currentUser(request)
      if (user === undefined) return seeOther("/sign-in")
      const fields = yield* form(request)
      if (fields === undefined) return forbiddenForm(request)
      const rotated = yield* Effect.orDie(run(Users.rotateApiKey({ id: user.id })))
      return respond(request, user, yield* apiAccess(rotated.user, rotated.apiKey))
    }))
  })
)
