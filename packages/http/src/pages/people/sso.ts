/**
 * Signing in with the identity provider (decisions §10): the button's form starts the flow (CSRF-checked) and
 * sends the browser to the provider; the callback finishes it. What the flow must remember between the two
 * (state, nonce, PKCE verifier, where to go after, the invitation it came from) is a short-lived cookie
 * signed with a server secret, for this path only. Any failure is a page saying what went wrong, and nobody is
 * signed in.
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Identities, type IdentityProvider, ProviderFailed } from "@convene/core"
import { Effect } from "effect"
import { createHmac, timingSafeEqual } from "node:crypto"
import type { HttpSettings } from "../../settings.js"
import { type Kit, type Reader, SECURITY_HEADERS, seeOther } from "../layout/kit.js"
import type { PageRouter } from "../layout/routes.js"
import { ProviderSignInForm } from "./forms.js"

const FLOW_COOKIE = "convene_sso"
const FLOW_PATH = "/auth/oidc"
/** How long a started sign-in may take at the provider. */
const FLOW_TTL_MS = 10 * 60_000

interface Flow {
  /** what the provider adapter asked to keep */
  readonly pending: string
  readonly next: string
  readonly invitation: string | undefined
  readonly at: number
}

export const ssoRoutes = (router: PageRouter, kit: Kit, settings: HttpSettings, provider: IdentityProvider, secret: string) =>
  Effect.gen(function*() {
    const { respond, run } = kit
    const redirectUri = `${settings.baseUrl.replace(/\/$/, "")}${FLOW_PATH}/callback`
    const mac = (payload: string) => createHmac("sha256", secret).update(payload).digest("base64url")
    const seal = (flow: Flow) => {
      const payload = Buffer.from(JSON.stringify(flow)).toString("base64url")
      return `${payload}.${mac(payload)}`
    }
    const unseal = (value: string | undefined, now: number): Flow | undefined => {
      const [payload, sig, extra] = (value ?? "").split(".")
      if (payload === undefined || sig === undefined || extra !== undefined || payload === "") return undefined
      const expected = mac(payload)
      if (sig.length !== expected.length || !timingSafeEqual(Buffer.from(sig), Buffer.from(expected))) return undefined
      try {
        const flow = JSON.parse(Buffer.from(payload, "base64url").toString()) as Flow
        return typeof flow.pending === "string" && typeof flow.at === "number" && now - flow.at < FLOW_TTL_MS ? flow : undefined
      } catch {
        return undefined
      }
    }
    const flowCookie = { ...kit.cookie, path: FLOW_PATH }
    const forget = (response: HttpServerResponse.HttpServerResponse) =>
      HttpServerResponse.unsafeSetCookie(response, FLOW_COOKIE, "", { ...flowCookie, maxAge: "0 seconds" })

    const failedPage = (request: HttpServerRequest.HttpServerRequest, who: Reader, e: ProviderFailed) => {
      const name = provider.name
      const [text, status] = e.reason === "refused"
        ? [who.t("sso.refused", { name, reason: e.message }), 403]
        : e.reason === "state"
        ? [who.t("sso.state"), 400]
        : e.reason === "token"
        ? [who.t("sso.token", { name }), 400]
        : [who.t("sso.unreachable", { name }), 502]
      return forget(respond(request, who, kit.message(who, "sso.failedTitle", text, status, { href: "/sign-in", label: who.t("layout.signIn") })))
    }

    yield* router.post("/auth/oidc", kit.formPost(ProviderSignInForm, (request, who, { next, invitation }) =>
      Effect.gen(function*() {
        const started = yield* Effect.either(provider.start(redirectUri))
        if (started._tag === "Left") return failedPage(request, who, started.left)
        const flow: Flow = { pending: started.right.pending, next, invitation, at: Date.now() }
        return HttpServerResponse.unsafeSetCookie(
          HttpServerResponse.empty({ status: 303, headers: { location: started.right.url, ...SECURITY_HEADERS } }),
          FLOW_COOKIE,
          seal(flow),
          { ...flowCookie, maxAge: `${FLOW_TTL_MS / 1000} seconds` }
        )
      })))

    yield* router.get("/auth/oidc/callback", Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const who = yield* kit.reader(request)
      const flow = unseal(request.cookies[FLOW_COOKIE], Date.now())
      if (flow === undefined) return failedPage(request, who, new ProviderFailed({ reason: "state", message: "no sign-in was started here" }))
      const callback = new URL(`${settings.baseUrl.replace(/\/$/, "")}${request.url}`)
      const identity = yield* Effect.either(provider.finish(callback, flow.pending))
      if (identity._tag === "Left") return failedPage(request, who, identity.left)
      const signedIn = yield* Effect.either(run(Identities.signInWithIdentity(identity.right, flow.invitation)))
      if (signedIn._tag === "Left") {
        return forget(respond(request, who, kit.message(who, "sso.failedTitle", who.t("sso.deactivated"), 403, { href: "/", label: who.t("error.home") })))
      }
      const { landing, session } = signedIn.right
      return forget(kit.signedIn(seeOther(landing ?? (flow.next || "/")), session))
    }))
  })
