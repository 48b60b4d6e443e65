/**
 * The server-rendered pages of decisions §5, a thin binding of the core's People service beside the API:
 * invitations, sign-in by code or one-time link, sign-out and the API access page. They share nothing of
 * the API's bearer auth: a session cookie authenticates pages only, never /api/*.
 *
 * Every form carries a CSRF token equal to the `convene_csrf` cookie (double submit, SameSite=Lax); every
 * page sends a Content-Security-Policy without inline script and `frame-ancestors 'none'`.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as UrlParams from "@effect/platform/UrlParams"
import { type Access, Discussions, Groups, loadAccess, People, type Poll, Polls, Rules, Stances, Store, Threads, type User, Users } from "@convene/core"
import { Effect, Option } from "effect"
import { randomBytes, timingSafeEqual } from "node:crypto"
import { clientOf } from "../observe/telemetry.js"
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

/** A page answered before any route's own (no person, no form): a message in the layout. */
const plainPage = (status: number, title: string, text: string, headers: Record<string, string>) =>
  HttpServerResponse.text(render("@layout", { title, body: render("@message", { text }), signedIn: false, csrf: "" }), {
    status,
    contentType: "text/html; charset=utf-8",
    headers: { ...SECURITY_HEADERS, ...headers }
  })

/** A page asked for while another process holds the database's write lock (an import, a restore): try again. */
export const busyPage = () =>
  plainPage(503, "Busy", "The server is busy with a maintenance task. Nothing was changed; try again in a moment.", { "retry-after": "5" })

/** A form whose body is over the server's limit (a page route): a page that says so, never a reset connection. */
export const tooLargePage = () =>
  plainPage(413, "Too large", "What you sent is larger than this server accepts. Nothing was changed; go back and send less.", { connection: "close" })

interface Page {
  readonly title: string
  readonly template: string
  readonly data: object
  readonly status?: number
  readonly headers?: Record<string, string>
}

const sameSecret = (a: string, b: string) => a.length === b.length && a.length > 0 && timingSafeEqual(Buffer.from(a), Buffer.from(b))

/** Every page's route, for the request log and metrics (server.ts); a route not listed here does not compile. */
export const PAGE_ROUTES = [
  "/assets/convene.css",
  "/invitations/:token",
  "/sign-in",
  "/sign-in/code",
  "/sign-in/link/:token",
  "/sign-out",
  "/g/:key",
  "/d/:key",
  "/p/:key",
  "/p/:key/vote",
  "/unsubscribe/:token",
  "/profile/api_access"
] as const
const at = (path: (typeof PAGE_ROUTES)[number]) => path

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
      // a signed-in page sets the session cookie again, so the browser keeps it as long as the server's sliding
      // session (which still ends 90 days after the sign-in, whatever the cookie says)
      const session = request.cookies[SESSION_COOKIE]
      if (user !== undefined && session !== undefined) response = HttpServerResponse.unsafeSetCookie(response, SESSION_COOKIE, session, { ...cookie, maxAge: `${THIRTY_DAYS_S} seconds` })
      return response
    }

    const message = (title: string, text: string, status: number, link?: { href: string; label: string }): Page => ({
      title, template: "@message", data: { text, link }, status
    })

    const currentUser = (request: HttpServerRequest.HttpServerRequest) => run(People.sessionUser(request.cookies[SESSION_COOKIE]))

    /** A form's fields, once its CSRF token matched the cookie's; otherwise undefined (answered 403). */
    const form = (request: HttpServerRequest.HttpServerRequest) =>
      Effect.map(Effect.orElseSucceed(request.urlParamsBody, () => UrlParams.empty), (params) =>
        sameSecret(field(params, "csrf"), request.cookies[CSRF_COOKIE] ?? "") ? params : undefined)

    const forbiddenForm = (request: HttpServerRequest.HttpServerRequest) =>
      respond(request, undefined, message("Form expired", "This form is no longer valid (its security token did not match). Go back, reload the page and try again.", 403))

    const signedIn = (response: HttpServerResponse.HttpServerResponse, session: string) =>
      HttpServerResponse.unsafeSetCookie(
        // a new CSRF token with the new session
        HttpServerResponse.unsafeSetCookie(response, CSRF_COOKIE, randomBytes(24).toString("base64url"), cookie),
        SESSION_COOKIE, session, { ...cookie, maxAge: `${THIRTY_DAYS_S} seconds` }
      )

    const seeOther = (location: string) => HttpServerResponse.empty({ status: 303, headers: { location, ...SECURITY_HEADERS } })

    // the client behind any trusted proxy (observe/telemetry.ts), an IPv6 client by its /64
    const ipOf = (request: HttpServerRequest.HttpServerRequest) => Rules.clientLimitKey(clientOf(request.headers))

    const tooMany = (request: HttpServerRequest.HttpServerRequest, e: { message: string; retryAfter: number }) =>
      respond(request, undefined, { ...message("Please wait", e.message, 429), headers: { "retry-after": String(e.retryAfter) } })

    const apiAccess = Effect.fnUntraced(function*(user: User, newKey?: string) {
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

    yield* router.get(at("/assets/convene.css"), Effect.succeed(HttpServerResponse.text(STYLESHEET, {
      contentType: "text/css; charset=utf-8",
      headers: { "cache-control": "public, max-age=3600", "x-content-type-options": "nosniff" }
    })))

    // Invitations

    const invitationPage = Effect.fnUntraced(function*(request: HttpServerRequest.HttpServerRequest, token: string, error?: string, status = 200) {
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

    yield* router.get(at("/invitations/:token"), Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const { token } = (yield* HttpRouter.params) as { token: string }
      return yield* invitationPage(request, token)
    }))

    yield* router.post(at("/invitations/:token"), Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const { token } = (yield* HttpRouter.params) as { token: string }
      const fields = yield* form(request)
      if (fields === undefined) return forbiddenForm(request)
      const accepted = yield* Effect.either(run(People.acceptInvitation(token, field(fields, "name"))))
      if (accepted._tag === "Left") {
        const e = accepted.left
        if (e._tag === "Invalid") return yield* invitationPage(request, token, "Please give your name.", 422)
        return yield* invitationPage(request, token)
      }
      return signedIn(seeOther(accepted.right.landing), accepted.right.session)
    }))

    // Sign-in and sign-out

    yield* router.get(at("/sign-in"), Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      return respond(request, yield* currentUser(request), { title: "Sign in", template: "@sign-in", data: { email: "" } })
    }))

    yield* router.post(at("/sign-in"), Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const fields = yield* form(request)
      if (fields === undefined) return forbiddenForm(request)
      const email = field(fields, "email").trim()
      const result = yield* Effect.either(run(People.requestSignIn(email, ipOf(request))))
      if (result._tag === "Left") {
        const e = result.left
        if (e._tag === "TooManyRequests") return tooMany(request, e)
        return respond(request, undefined, { title: "Sign in", template: "@sign-in", data: { email, error: "Enter a valid e-mail address." }, status: 422 })
      }
      return respond(request, undefined, { title: "Enter your code", template: "@sign-in-code", data: { email } })
    }))

    yield* router.post(at("/sign-in/code"), Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const fields = yield* form(request)
      if (fields === undefined) return forbiddenForm(request)
      const email = field(fields, "email").trim()
      const result = yield* Effect.either(run(People.signInWithCode(email, field(fields, "code"), ipOf(request))))
      if (result._tag === "Left") {
        const e = result.left
        if (e._tag === "TooManyRequests") return tooMany(request, e)
        return respond(request, undefined, { title: "Enter your code", template: "@sign-in-code", data: { email, error: e.message }, status: 403 })
      }
      return signedIn(seeOther("/profile/api_access"), result.right.session)
    }))

    // a GET never signs in (mail scanners follow links); the page asks for one click
    yield* router.get(at("/sign-in/link/:token"), Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const { token } = (yield* HttpRouter.params) as { token: string }
      return respond(request, undefined, { title: "Sign in to convene", template: "@sign-in-link", data: { token } })
    }))

    yield* router.post(at("/sign-in/link/:token"), Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const { token } = (yield* HttpRouter.params) as { token: string }
      const fields = yield* form(request)
      if (fields === undefined) return forbiddenForm(request)
      const result = yield* Effect.either(run(People.signInWithLink(token)))
      if (result._tag === "Left") return respond(request, undefined, message("Link no longer valid", result.left.message, 410, { href: "/sign-in", label: "Sign in" }))
      return signedIn(seeOther("/profile/api_access"), result.right.session)
    }))

    yield* router.post(at("/sign-out"), Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const fields = yield* form(request)
      if (fields === undefined) return forbiddenForm(request)
      const user = yield* currentUser(request)
      if (user !== undefined) yield* run(People.endSignIns(user.id))
      return HttpServerResponse.unsafeSetCookie(seeOther("/sign-in"), SESSION_COOKIE, "", { ...cookie, maxAge: "0 seconds" })
    }))


    // Record pages: what the links in mail, webhooks and the markdown export point to, with the API's visibility

    /** A signed-out visitor sees no title: only a prompt to sign in. */
    const signInPrompt = (request: HttpServerRequest.HttpServerRequest) =>
      respond(request, undefined, message("Sign in to see this", "This page is visible to the people it is shared with. Sign in to see it.", 403, { href: "/sign-in", label: "Sign in" }))
    const notVisible = (request: HttpServerRequest.HttpServerRequest, user: User) =>
      respond(request, user, message("Not found", "There is nothing here, or it is not shared with you.", 404, { href: "/profile/api_access", label: "Your groups" }))

    /**
     * Runs a record page with the reader's access (a signed-out visitor's is Rules.VISITOR: only what is
     * public). A refusal of the core becomes the sign-in prompt or the not-found page: no title leaks.
     */
    const recordPage = Effect.fnUntraced(function*(build: (request: HttpServerRequest.HttpServerRequest, user: User | undefined, access: Access) => Effect.Effect<Page, unknown, Store>) {
      const request = yield* HttpServerRequest.HttpServerRequest
      const user = yield* currentUser(request)
      const access = user === undefined ? Rules.VISITOR : yield* run(loadAccess(user))
      const page = yield* Effect.either(run(build(request, user, access)))
      if (page._tag === "Right") return respond(request, user, page.right)
      return user === undefined ? signInPrompt(request) : notVisible(request, user)
    })

    const keyParam = Effect.map(HttpRouter.params, (p) => String(p.key ?? ""))

    yield* router.get(at("/g/:key"), Effect.flatMap(keyParam, (key) =>
      recordPage((_request, _user, access) =>
        Effect.gen(function*() {
          const view = yield* Groups.showGroup(access, key)
          const page = { limit: 100, offset: 0 }
          const discussions = yield* Discussions.listDiscussions(access, view.group.id, "all", page)
          const polls = yield* Polls.listPolls(access, view.group.id, "all", page)
          return {
            title: view.group.name,
            template: "@group",
            data: {
              description: view.group.description,
              discussions: discussions.records.map((d) => ({ key: d.discussion.key, title: d.discussion.title })),
              polls: polls.records.map((p) => ({ key: p.poll.key, title: p.poll.title, state: pollState(p.poll) }))
            }
          } satisfies Page
        }))))

    yield* router.get(at("/d/:key"), Effect.flatMap(keyParam, (key) =>
      recordPage((_request, _user, access) =>
        Effect.gen(function*() {
          const view = yield* Discussions.showDiscussion(access, key)
          const markdown = yield* Threads.threadMarkdown(access, view.topic.id)
          const group = view.topic.group_id === null ? undefined : yield* Groups.findGroup(String(view.topic.group_id))
          return {
            title: view.discussion.title,
            template: "@thread",
            data: { group: group === undefined ? undefined : { key: group.key, name: group.name }, html: Rules.markdownToHtml(withoutFrontMatter(markdown)) }
          } satisfies Page
        }))))

    const pollPage = (key: string, note: { notice?: string; error?: string; status?: number } = {}) =>
      recordPage((_request, user, access) =>
        Effect.gen(function*() {
          const view = yield* Polls.showPoll(access, key)
          const group = view.poll.group_id === null ? undefined : yield* Groups.findGroup(String(view.poll.group_id))
          const data = pollData(view, access)
          // a visitor reads a public poll; voting needs a signed-in person
          return { title: view.poll.title, template: "@poll", status: note.status ?? 200, data: { ...data, canVote: data.canVote && user !== undefined, ...note, group } } satisfies Page
        }))

    yield* router.get(at("/p/:key"), Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const voted = new URL(request.url, "http://x").searchParams.get("voted") === "1"
      return yield* pollPage(yield* keyParam, voted ? { notice: "Your vote is recorded." } : {})
    }))

    yield* router.post(at("/p/:key/vote"), Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const key = yield* keyParam
      const user = yield* currentUser(request)
      if (user === undefined) return signInPrompt(request)
      const fields = yield* form(request)
      if (fields === undefined) return forbiddenForm(request)
      const access = yield* run(loadAccess(user))
      const found = yield* Effect.either(run(Polls.showPoll(access, key)))
      if (found._tag === "Left") return notVisible(request, user)
      const scores = ballotFromForm(found.right, fields)
      const reason = field(fields, "reason")
      const cast = yield* Effect.either(run(Stances.castVote(access, { poll_id: found.right.poll.id, option_scores: scores, reason })))
      if (cast._tag === "Left") {
        const e = cast.left
        const error = e._tag === "Invalid" ? Object.values(e.errors).flat().join("; ") : e.message
        return yield* pollPage(key, { error, status: e._tag === "Forbidden" ? 403 : 422 })
      }
      return seeOther(`/p/${encodeURIComponent(key)}?voted=1`)
    }))

    // Unsubscribing: the link is the credential (no sign-in, no CSRF cookie: mail clients POST it one-click, RFC 8058)

    yield* router.get(at("/unsubscribe/:token"), Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const token = String((yield* HttpRouter.params).token ?? "")
      const found = yield* run(People.showUnsubscribe(token))
      if (found === undefined) return respond(request, undefined, message("Link not found", "This unsubscribe link is not valid.", 404))
      return respond(request, undefined, { title: "Unsubscribe", template: "@unsubscribe", data: { token, group: found.group.name, muted: found.muted } })
    }))

    yield* router.post(at("/unsubscribe/:token"), Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const token = String((yield* HttpRouter.params).token ?? "")
      const group = yield* run(People.unsubscribe(token))
      if (group === undefined) return respond(request, undefined, message("Link not found", "This unsubscribe link is not valid.", 404))
      return respond(request, undefined, { title: "Unsubscribed", template: "@unsubscribe", data: { token, group: group.name, muted: true } })
    }))

    // The API access page

    yield* router.get(at("/profile/api_access"), Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const user = yield* currentUser(request)
      if (user === undefined) return seeOther("/sign-in")
      return respond(request, user, yield* apiAccess(user))
    }))

    yield* router.post(at("/profile/api_access"), Effect.gen(function*() {
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

/** A form field's value ("" when absent). */
const field = (params: UrlParams.UrlParams, name: string): string => Option.getOrElse(UrlParams.getFirst(params, name), () => "")

/** The markdown export starts with YAML front matter; a page shows what follows it. */
const withoutFrontMatter = (markdown: string) => (markdown.startsWith("---\n") ? markdown.slice(markdown.indexOf("\n---\n", 4) + 5) : markdown)

const pollState = (p: Poll) =>
  p.closed_at !== null ? "closed" : p.opened_at === null ? "draft" : `open until ${new Date(p.closing_at!).toUTCString()}`

/** How a poll type is voted on a page: one choice, several, a number per option, or yes/maybe/no. */
const inputOf = (p: Poll): "radio" | "checkbox" | "number" | "meeting" => {
  switch (p.poll_type) {
    case "proposal":
    case "count":
      return "radio"
    case "poll":
      return p.maximum_stance_choices > 1 ? "checkbox" : "radio"
    case "meeting":
      return "meeting"
    default:
      return "number"
  }
}

const numberBounds = (p: Poll, optionCount: number) => {
  switch (p.poll_type) {
    case "score":
      return { min: p.min_score, max: p.max_score }
    case "ranked_choice":
      return { min: 1, max: optionCount }
    default:
      return { min: 0, max: p.dots_per_person }
  }
}

const pollData = (view: Polls.ShownPoll, access: Access) => {
  const p = view.poll
  const mine = view.my_stance?.cast_at != null ? view.my_stance : undefined
  const ordered = p.shuffle_options ? Rules.shuffledFor(access.user.id, view.options) : view.options
  const input = inputOf(p)
  return {
    key: p.key,
    detailsHtml: p.details === "" ? "" : p.details_format === "html" ? p.details : Rules.markdownToHtml(p.details),
    state: pollState(p),
    voters: view.voters_count,
    cast: view.cast_count,
    // the vote rule, as the API asks it (open, and this person a voter)
    canVote: view.vote_refusal === null,
    myVote: mine !== undefined,
    reason: mine?.reason ?? "",
    input,
    maybe: p.can_respond_maybe,
    ...numberBounds(p, view.options.length),
    options: ordered.map((o) => ({
      id: o.id,
      name: o.name,
      label: o.name,
      score: mine?.choices.get(o.id) ?? (input === "meeting" ? 0 : input === "number" ? numberBounds(p, view.options.length).min : 0)
    })),
    results: view.results === null ? null : view.results.options.map((r) => ({ label: r.name, score: r.score, voters: r.voter_count })),
    hiddenUntil: p.hide_results === "until_closed" ? "until the poll closes" : "until you vote"
  }
}

/** The ballot a poll page's form describes, as option name → score (the core checks it against the type's rules). */
const ballotFromForm = (view: Polls.PollView, params: UrlParams.UrlParams): Record<string, number> => {
  const input = inputOf(view.poll)
  if (input === "radio" || input === "checkbox") {
    return Object.fromEntries(UrlParams.getAll(params, "choice").map((name) => [name, 1]))
  }
  const out: Record<string, number> = {}
  for (const [k, v] of params) if (k.startsWith("score:")) out[k.slice("score:".length)] = /^-?[0-9]{1,6}$/.test(v.trim()) ? Number(v.trim()) : Number.NaN
  return out
}
