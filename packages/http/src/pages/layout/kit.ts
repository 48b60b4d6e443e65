/**
 * What every page route shares: who is reading (session cookie → person, language, time zone), the CSRF
 * check of forms, answering a page in the layout, redirects after a successful POST, and the refusal pages.
 * A session cookie authenticates pages only, never /api/*.
 *
 * Every form carries a CSRF token equal to the `convene_csrf` cookie (`__Host-convene_csrf` on https), and the
 * token is bound to the session by an HMAC under a server secret, so a cookie planted from elsewhere (a
 * sibling subdomain) is refused; a new token comes with every sign-in and sign-out. Every page sends a
 * Content-Security-Policy without inline script and `frame-ancestors 'none'`.
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as UrlParams from "@effect/platform/UrlParams"
import { type Access, type FileStorage, type IdentityProvider, type Invalid, isNumericId, loadAccess, Notifications, People, Rules, Store, type StoreService, type User } from "@convene/core"
import { Effect, type Either, type Schema } from "effect"
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto"
import type { HttpSettings } from "../../settings.js"
import type { PageUploads, PathParams } from "../../routes.js"
import { formDecoder, type FormInput, type FormRefusal, type Submitted } from "./forms.js"
import { type Locale, type MessageKey, pickLocale, serverZone, timeFormatter, type Translate, translator } from "./i18n.js"
import { render } from "./templates.js"

export const SESSION_COOKIE = "convene_session"
export const CSRF_COOKIE = "convene_csrf"
export const THIRTY_DAYS_S = 30 * 86_400

export const SECURITY_HEADERS = {
  "content-security-policy": "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "same-origin",
  "cache-control": "no-store"
}


/** Who reads a page: the person (if signed in), their access, language and time zone. */
export interface Reader {
  readonly user: User | undefined
  readonly access: Access
  readonly locale: Locale
  readonly zone: string
  readonly t: Translate
  readonly time: (iso: string | null | undefined) => string
  readonly slot: (option: string) => string
  /** the person's notifications not seen yet (the header's count) */
  readonly unseen: number
}

/** A reader from what the request says alone (no person): the pages answered before any route's own. */
export const anonymousReader = (acceptLanguage: string | undefined): Reader => readerFor(undefined, Rules.VISITOR, acceptLanguage)

export const readerFor = (user: User | undefined, access: Access, acceptLanguage: string | undefined, unseen = 0): Reader => {
  const locale = pickLocale(user?.locale, acceptLanguage)
  const zone = user?.time_zone ?? serverZone()
  return { user, access, locale, zone, t: translator(locale), ...timeFormatter(locale, zone), unseen }
}

export interface Page {
  readonly title: string
  readonly template: string
  readonly data?: object
  readonly status?: number
  readonly headers?: Record<string, string>
  readonly notice?: string
  readonly crumbs?: ReadonlyArray<{ readonly href: string; readonly label: string }>
  /**
   * What the page follows live (decisions §13): a thread's events (`topic`), or every thread the person reads (home,
   * `topic` undefined); `url` is the address the script asks again for the page's regions (the same window of a thread).
   */
  readonly live?: { readonly topic?: number; readonly url?: string }
}

/** The identity provider as pages show it (its button), when the server has one. */
export interface ProviderButton {
  readonly name: string
  /** e-mail sign-in is off (CONVENE_SSO_ONLY) */
  readonly only: boolean
}

/** A whole document in the layout, for a reader. */
export const documentFor = (reader: Reader, page: Page, csrf: string, sso?: ProviderButton): string => {
  const common = { t: reader.t, esc: Rules.escapeHtml, csrf, zone: reader.zone, lang: reader.locale, signedIn: reader.user !== undefined, unseen: reader.unseen, sso }
  const body = render(page.template, Object.assign({}, common, page.data))
  // a signed-in page hears its live events from the moment it was made (the script asks /live?since=)
  const live = reader.user === undefined ? undefined : { since: new Date().toISOString(), topic: page.live?.topic, url: page.live?.url, follows: page.live !== undefined }
  return render("@layout", Object.assign({}, common, { title: page.title, body, notice: page.notice, crumbs: page.crumbs, live }))
}

/** A page answered before any route's own (no person, no form): a message in the layout. */
export const plainPage = (status: number, acceptLanguage: string | undefined, title: MessageKey, text: MessageKey, headers: Record<string, string> = {}) => {
  const reader = anonymousReader(acceptLanguage)
  const html = documentFor(reader, { title: reader.t(title), template: "@message", data: { text: reader.t(text), link: { href: "/", label: reader.t("error.home") } } }, "")
  return HttpServerResponse.text(html, { status, contentType: "text/html; charset=utf-8", headers: { ...SECURITY_HEADERS, ...headers } })
}

const sameSecret = (a: string, b: string) => a.length === b.length && a.length > 0 && timingSafeEqual(Buffer.from(a), Buffer.from(b))

/** What a route does with its decoded form. */
export type FormAct<W extends Reader, A, R> = (request: HttpServerRequest.HttpServerRequest, who: W, form: A, input: FormInput) => Effect.Effect<HttpServerResponse.HttpServerResponse, never, R>
/** What a route shows for a form its Schema refused. */
export type FormInvalid<W extends Reader, R> = (request: HttpServerRequest.HttpServerRequest, who: W, refusal: FormRefusal) => Effect.Effect<HttpServerResponse.HttpServerResponse, never, R>

export const seeOther = (location: string) => HttpServerResponse.empty({ status: 303, headers: { location, ...SECURITY_HEADERS } })

/**
 * What a POST just did, told once on the page it leads to (decisions §9, amended): a short-lived cookie naming the
 * page's path, the notice and its number (a member's id, a count), never a URL parameter that a reload or a
 * bookmark repeats. The page that shows it clears it. Only names from this list are shown (a cookie set by anything
 * else puts no words on a page; a member is named from the records).
 */
const NOTICE_COOKIE = "convene_notice"
/** The header the live script's requests carry (liveScript.ts). */
const LIVE_HEADER = "x-convene-live"
const NOTICE_TTL = "60 seconds"
export type DoneName = keyof typeof NOTICES | "admin" | "removed" | "invited" | "resent" | "resendTooSoon" | "cancelled" | "approved" | "declined" | "reminded" | "remindTooSoon"
const DONE_NAMES: ReadonlySet<string> = new Set<DoneName>(["admin", "removed", "invited", "resent", "resendTooSoon", "cancelled", "approved", "declined", "reminded", "remindTooSoon"])
const pathOf = (url: string) => new URL(url, "http://x").pathname

/** The notice the request's cookie carries for this page, if any. */
export const doneOf = (request: HttpServerRequest.HttpServerRequest): { readonly what: DoneName; readonly n: number | undefined } | undefined => {
  const raw = request.cookies[NOTICE_COOKIE]
  // the live script asking for the page again (liveScript.ts) neither shows the notice nor spends it: the page the
  // person is sent to next does (a refresh between a form's answer and its next page took it, under load)
  if (raw === undefined || request.method !== "GET" || request.headers[LIVE_HEADER] !== undefined) return undefined
  const [path, what, n] = Buffer.from(raw, "base64url").toString().split("\n")
  if (path !== pathOf(request.url) || what === undefined || !(what in NOTICES || DONE_NAMES.has(what))) return undefined
  return { what: what as DoneName, n: n !== undefined && /^[0-9]{1,12}$/.test(n) ? Number(n) : undefined }
}

/** A path segment of a route (its key or id), as text. */
export const segment = (params: PathParams, name: string) => String(params[name] ?? "")

/** A record's id as a form or a route names it: digits, else 0 (which names no record: not found). */
export const idFrom = (text: string): number => (isNumericId(text) ? Number(text) : 0)

/** The core's field messages as one message per field (a page shows each beside its field). */
export const fieldMessages = (e: Invalid): Record<string, string> =>
  Object.fromEntries(Object.entries(e.errors).map(([k, v]) => [k, v.join("; ")]))

/** The CSRF cookie's name: `__Host-` on https (Secure, whole site, no Domain: no other host can set it). */
export const csrfCookieName = (secure: boolean) => (secure ? `__Host-${CSRF_COOKIE}` : CSRF_COOKIE)

/** `csrfSecret`: the server's own (People.serverSecret("csrf")), the same on every server of the database. */
export const makeKit = (store: StoreService, settings: HttpSettings, csrfSecret: string, provider?: IdentityProvider) => {
  const secure = settings.baseUrl.startsWith("https:")
  const sso: ProviderButton | undefined = provider === undefined ? undefined : { name: provider.name, only: settings.sso?.only ?? false }
  // the provider's button is a form whose answer redirects to the provider: form-action must allow its origin
  const providerOrigin = provider?.origin
  const headers = providerOrigin === undefined
    ? SECURITY_HEADERS
    : { ...SECURITY_HEADERS, "content-security-policy": SECURITY_HEADERS["content-security-policy"].replace("form-action 'self'", `form-action 'self' ${providerOrigin}`) }
  const cookie = { httpOnly: true, sameSite: "lax" as const, path: "/", secure }
  const csrfName = csrfCookieName(secure)
  const run = <A, E>(effect: Effect.Effect<A, E, Store>) => Effect.provideService(effect, Store, store)
  /** A use case of a form that takes files: the file store and the form's uploads are its route's (postWithFiles). */
  const runWithFiles = <A, E>(effect: Effect.Effect<A, E, Store | FileStorage | PageUploads>) => Effect.provideService(effect, Store, store)

  /** A token is a nonce and its HMAC with the session it belongs to ("" signed out). */
  const macOf = (nonce: string, session: string) => createHmac("sha256", csrfSecret).update(`${nonce}|${session}`).digest("base64url")
  const mintCsrf = (session: string) => {
    const nonce = randomBytes(24).toString("base64url")
    return `${nonce}.${macOf(nonce, session)}`
  }
  const csrfValid = (token: string, session: string) => {
    const [nonce, mac, extra] = token.split(".")
    return extra === undefined && nonce !== undefined && /^[A-Za-z0-9_-]{32}$/.test(nonce) && mac !== undefined && sameSecret(mac, macOf(nonce, session))
  }
  const sessionOf = (request: HttpServerRequest.HttpServerRequest) => request.cookies[SESSION_COOKIE] ?? ""

  /** The request's CSRF token (the cookie's when it is bound to this session, else a new one the response sets). */
  const csrfOf = (request: HttpServerRequest.HttpServerRequest) => {
    const existing = request.cookies[csrfName]
    return existing !== undefined && csrfValid(existing, sessionOf(request)) ? { token: existing, fresh: false } : { token: mintCsrf(sessionOf(request)), fresh: true }
  }

  const currentUser = (request: HttpServerRequest.HttpServerRequest) => run(People.sessionUser(request.cookies[SESSION_COOKIE]))

  /** The reader of this request: the signed-in person with their access, or a visitor (Rules.VISITOR). */
  const reader = Effect.fnUntraced(function*(request: HttpServerRequest.HttpServerRequest) {
    const user = yield* currentUser(request)
    const access = user === undefined ? Rules.VISITOR : yield* run(loadAccess(user))
    // the header's count: read for a page, not for a form's POST (its answer is a redirect)
    const unseen = user === undefined || request.method !== "GET" ? 0 : yield* run(Notifications.unseenCount(access))
    return readerFor(user, access, request.headers["accept-language"], unseen)
  })

  const respond = (request: HttpServerRequest.HttpServerRequest, who: Reader, page: Page) => {
    const csrf = csrfOf(request)
    let response = HttpServerResponse.text(documentFor(who, page, csrf.token, sso), {
      status: page.status ?? 200,
      contentType: "text/html; charset=utf-8",
      headers: Object.assign({}, headers, { "content-language": who.locale, vary: "Accept-Language, Cookie" }, page.headers)
    })
    if (csrf.fresh) response = HttpServerResponse.unsafeSetCookie(response, csrfName, csrf.token, cookie)
    // the notice was shown here: once
    if (doneOf(request) !== undefined) response = HttpServerResponse.unsafeSetCookie(response, NOTICE_COOKIE, "", { ...cookie, maxAge: "0 seconds" })
    // a signed-in page read sets the session cookie again, so the browser keeps it as long as the server's sliding
    // session (which still ends 90 days after the sign-in, whatever the cookie says); a POST's answer never does
    const session = request.cookies[SESSION_COOKIE]
    if (who.user !== undefined && session !== undefined && request.method === "GET") response = HttpServerResponse.unsafeSetCookie(response, SESSION_COOKIE, session, { ...cookie, maxAge: `${THIRTY_DAYS_S} seconds` })
    return response
  }

  const message = (who: Reader, title: MessageKey, text: string, status: number, link?: { href: string; label: string }): Page => ({
    title: who.t(title), template: "@message", data: { text, link }, status
  })

  /** A form's fields, once its CSRF token matched the cookie's and is bound to this session; otherwise undefined (answered 403). */
  const form = (request: HttpServerRequest.HttpServerRequest) =>
    Effect.map(Effect.orElseSucceed(request.urlParamsBody, () => UrlParams.empty), (params) => {
      const token = request.cookies[csrfName] ?? ""
      const sent = UrlParams.getFirst(params, "csrf")
      return sent._tag === "Some" && sameSecret(sent.value, token) && csrfValid(token, sessionOf(request)) ? params : undefined
    })

  const formExpired = (request: HttpServerRequest.HttpServerRequest, who: Reader) =>
    respond(request, who, message(who, "error.formExpiredTitle", who.t("error.formExpired"), 403))

  /** A form the route has no page to show again for (its fields are not typed by a person): a clear 422. */
  const formInvalid = (request: HttpServerRequest.HttpServerRequest, who: Reader) =>
    Effect.succeed(respond(request, who, message(who, "error.formInvalidTitle", who.t("error.formInvalid"), 422, { href: "/", label: who.t("error.home") })))

  /** A signed-out visitor sees no title: only a prompt to sign in. */
  const signInPrompt = (request: HttpServerRequest.HttpServerRequest, who: Reader) =>
    respond(request, who, message(who, "error.signInTitle", who.t("error.signIn"), 403, { href: "/sign-in", label: who.t("layout.signIn") }))

  const notFound = (request: HttpServerRequest.HttpServerRequest, who: Reader) =>
    respond(request, who, message(who, "error.notFoundTitle", who.t("error.notFound"), 404, { href: "/", label: who.t("error.home") }))

  const forbidden = (request: HttpServerRequest.HttpServerRequest, who: Reader) =>
    respond(request, who, message(who, "error.forbiddenTitle", who.t("error.forbidden"), 403, { href: "/", label: who.t("error.home") }))

  /**
   * What a page answers when the core refuses: a visitor is asked to sign in; reading something not shown to
   * the person is 404 whatever the reason (no title leaks); an action the rules refuse is 403.
   */
  const refused = (request: HttpServerRequest.HttpServerRequest, who: Reader, e: { readonly _tag: string }) =>
    who.user === undefined ? signInPrompt(request, who) : e._tag === "Forbidden" && request.method === "POST" ? forbidden(request, who) : notFound(request, who)

  /**
   * A form POST: the CSRF check, then the form decoded by its Schema (forms.ts) and handed to `act`; a form its
   * Schema refuses goes to `invalid` (the page again, its messages beside their fields), nothing written.
   */
  const submitted = <W extends Reader, A, R>(
    who: W,
    request: HttpServerRequest.HttpServerRequest,
    decode: (params: UrlParams.UrlParams, t: Translate) => Either.Either<Submitted<A>, FormRefusal>,
    act: FormAct<W, A, R>,
    invalid: FormInvalid<W, R> | undefined
  ) =>
    Effect.flatMap(form(request), (params) => {
      if (params === undefined) return Effect.succeed(formExpired(request, who))
      const decoded = decode(params, who.t)
      return decoded._tag === "Right" ? act(request, who, decoded.right.form, decoded.right.input) : (invalid ?? formInvalid)(request, who, decoded.left)
    })

  /** A form POST anyone may send (sign-in, an invitation). */
  const formPost = <A, I, R>(schema: Schema.Schema<A, I>, act: FormAct<Reader, A, R>, invalid?: FormInvalid<Reader, R>) => {
    const decode = formDecoder(schema)
    return Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      return yield* submitted(yield* reader(request), request, decode, act, invalid)
    })
  }

  /** A signed-in POST: a visitor is asked to sign in before the form is even read; a forged form is refused with nothing written. */
  const post = <A, I, R>(schema: Schema.Schema<A, I>, act: FormAct<Reader & { user: User }, A, R>, invalid?: FormInvalid<Reader & { user: User }, R>) => {
    const decode = formDecoder(schema)
    return Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const who = yield* reader(request)
      if (who.user === undefined) return signInPrompt(request, who)
      return yield* submitted(who as Reader & { user: User }, request, decode, act, invalid)
    })
  }

  /** A GET that needs a signed-in person (others are sent to sign in). */
  const signedInGet = <R>(show: (request: HttpServerRequest.HttpServerRequest, who: Reader & { user: User }) => Effect.Effect<HttpServerResponse.HttpServerResponse, never, R>) =>
    Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const who = yield* reader(request)
      // signed in, the person comes back here (a shared link to join a group, a form they were sent to)
      if (who.user === undefined) return seeOther(`/sign-in?next=${encodeURIComponent(pathOf(request.url))}`)
      return yield* show(request, who as Reader & { user: User })
    })

  /** A signed-in session begins: a new CSRF token with it, bound to it. */
  const signedIn = (response: HttpServerResponse.HttpServerResponse, session: string) =>
    HttpServerResponse.unsafeSetCookie(
      HttpServerResponse.unsafeSetCookie(response, csrfName, mintCsrf(session), cookie),
      SESSION_COOKIE, session, { ...cookie, maxAge: `${THIRTY_DAYS_S} seconds` }
    )

  /** A POST's answer: on to `location`, where the page tells once what was done. */
  const seeOtherDone = (location: string, what: DoneName, n?: number) =>
    HttpServerResponse.unsafeSetCookie(seeOther(location), NOTICE_COOKIE, Buffer.from([pathOf(location), what, n ?? ""].join("\n")).toString("base64url"), {
      ...cookie,
      maxAge: NOTICE_TTL
    })

  /** The session ends: its cookie goes, and a new CSRF token for nobody comes. */
  const signedOut = (response: HttpServerResponse.HttpServerResponse) =>
    HttpServerResponse.unsafeSetCookie(
      HttpServerResponse.unsafeSetCookie(response, csrfName, mintCsrf(""), cookie),
      SESSION_COOKIE, "", { ...cookie, maxAge: "0 seconds" }
    )

  return { run, runWithFiles, reader, respond, message, formPost, signInPrompt, notFound, forbidden, refused, post, signedInGet, signedIn, signedOut, seeOtherDone, currentUser, sso, provider, cookie }
}

export type Kit = ReturnType<typeof makeKit>

/** The notices a page tells once after a POST (`seeOtherDone`), by name. */
export const NOTICES = {
  voted: "poll.recorded",
  commented: "comment.posted",
  comment_deleted: "comment.removedNotice",
  comment_empty: "comment.emptyNotice",
  closed: "thread.closedNotice",
  reopened: "thread.reopenedNotice",
  poll_closed: "poll.closedNotice",
  poll_reopened: "poll.reopenedNotice",
  outcome: "poll.outcomeShared",
  poll_started: "poll.started",
  saved: "profile.saved",
  settings_saved: "settings.saved",
  left: "leave.done",
  account_deleted: "account.deleted",
  email_link_sent: "account.emailLinkSent",
  poll_saved: "poll.saved",
  pinned: "thread.pinnedNotice",
  joined: "group.joined",
  asked: "group.asked",
  link_reset: "link.resetDone",
  group_deleted: "deleteGroup.done",
  thread_saved: "thread.savedNotice",
  all_seen: "notifications.allSeen",
  thread_moved: "thread.movedNotice",
  tags_saved: "tags.saved",
  templates_saved: "templates.saved",
  unpinned: "thread.unpinnedNotice",
  volume: "volume.saved",
  marked_read: "threads.markedRead",
  all_read: "home.allRead",
  delegated: "delegation.saved",
  delegation_revoked: "delegation.revoked"
} as const satisfies Record<string, MessageKey>

export const noticeOf = (request: HttpServerRequest.HttpServerRequest, who: Reader): string | undefined => {
  const done = doneOf(request)
  return done !== undefined && done.what in NOTICES ? who.t(NOTICES[done.what as keyof typeof NOTICES]) : undefined
}
