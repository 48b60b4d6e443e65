/**
 * The OpenID Connect adapter of the core's identity provider port (decisions §10), on `openid-client` (a
 * certified relying party): authorization code with PKCE, `state` and `nonce`; the ID token's signature
 * (the provider's JWKS), issuer, audience, expiry and nonce verified by the library. In Loomio's OAuth mode the
 * endpoints are set by hand and the person is read from the profile URL with the access token, as Loomio does.
 */
import { type ExternalIdentity, type IdentityProvider, ProviderFailed } from "@convene/core"
import { Effect } from "effect"
import type * as Client from "openid-client"

/** Loaded by the first sign-in through the provider (or doctor): a server with none configured never holds it. */
const openid = () => import("openid-client")
import type { SsoSettings } from "./settings.js"

/** Seconds one request to the provider may take. */
const TIMEOUT_S = 10

/** The flow's secrets kept (by the caller, in a signed cookie) between the start and the callback. */
interface Pending {
  readonly state: string
  readonly nonce?: string
  readonly verifier: string
}

const loopback = (url: URL) => url.protocol === "http:"

/** A value of the claims or profile at `path` (dots go into objects: "realm_access.roles"). */
const at = (source: Record<string, unknown>, path: string): unknown =>
  path.split(".").reduce<unknown>((v, k) => (v !== null && typeof v === "object" ? (v as Record<string, unknown>)[k] : undefined), source)

const text = (v: unknown): string | null => (typeof v === "string" && v.trim() !== "" ? v.trim() : typeof v === "number" ? String(v) : null)

/** A groups claim's values: a list of names, or one name; anything else is no groups. */
const groupsOf = (v: unknown): ReadonlyArray<string> =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : typeof v === "string" ? [v] : []

/** Which failure the library's error is, for the page: the provider's own answer, a forged or stale callback, or a bad token. */
const failure = (e: unknown): ProviderFailed => {
  const err = e as { name?: string; code?: string; error?: string; error_description?: string; message?: string; cause?: { code?: string; message?: string } }
  // fetch's "fetch failed" says nothing; its cause says what (ECONNREFUSED, ENOTFOUND, a certificate)
  const cause = err.cause?.code ?? err.cause?.message
  const message = String(err.error_description ?? err.message ?? e) + (err.message === "fetch failed" && cause !== undefined ? ` (${cause})` : "")
  if (err.name === "AuthorizationResponseError" || err.error !== undefined) return new ProviderFailed({ reason: "refused", message: String(err.error_description ?? err.error ?? message) })
  if (err.code === "OAUTH_INVALID_RESPONSE" && /state/i.test(message)) return new ProviderFailed({ reason: "state", message })
  if (err.name === "TypeError" || err.name === "AbortError" || err.name === "TimeoutError" || err.code === "OAUTH_TIMEOUT" || /fetch failed|ECONNREFUSED|timed? ?out/i.test(message)) {
    return new ProviderFailed({ reason: "unreachable", message })
  }
  if (/state/i.test(message)) return new ProviderFailed({ reason: "state", message })
  return new ProviderFailed({ reason: "token", message })
}

const attempt = <A>(f: () => Promise<A>) => Effect.tryPromise({ try: f, catch: failure })

/** The library's configuration: discovered (OIDC), or from Loomio's endpoints (OAuth). */
export const configure = async (s: SsoSettings): Promise<Client.Configuration> => {
  const client = await openid()
  if (s.mode === "oidc") {
    const issuer = new URL(s.issuer!)
    // the ID token's signature is checked against the provider's JWKS also when it comes straight from the token
    // endpoint (the library trusts TLS there unless asked): a token signed by another key, or `alg: none`, names nobody
    return client.discovery(issuer, s.clientId, s.clientSecret, undefined, {
      timeout: TIMEOUT_S,
      execute: [...(loopback(issuer) ? [client.allowInsecureRequests] : []), client.enableNonRepudiationChecks]
    })
  }
  const e = s.endpoints!
  const auth = new URL(e.authorization)
  const config = new client.Configuration(
    { issuer: auth.origin, authorization_endpoint: e.authorization, token_endpoint: e.token, userinfo_endpoint: e.profile },
    s.clientId,
    s.clientSecret
  )
  config.timeout = TIMEOUT_S
  if (loopback(auth)) client.allowInsecureRequests(config)
  // Loomio's OAuth reads the person from the profile URL; an ID token beside the access token is not used
  // here (its issuer is not configured, so it could not be verified) and is dropped before the library reads it
  config[client.customFetch] = async (url, options) => {
    const response = await fetch(url, options as RequestInit)
    if (url !== e.token || !response.ok) return response
    const body = (await response.json()) as Record<string, unknown>
    delete body.id_token
    return new Response(JSON.stringify(body), { status: response.status, headers: { "content-type": "application/json" } })
  }
  return config
}

/** The identity provider for these settings; the provider is discovered on first use, again after a failure. */
export const makeIdentityProvider = (s: SsoSettings, identityType = s.mode): IdentityProvider => {
  let configured: Promise<Client.Configuration> | undefined
  const config = attempt(() => {
    configured ??= configure(s).catch((e: unknown) => {
      configured = undefined
      throw e
    })
    return configured
  }).pipe(Effect.mapError((e) => (e.reason === "token" ? new ProviderFailed({ reason: "unreachable", message: e.message }) : e)))

  const identityFrom = (claims: Record<string, unknown>): ExternalIdentity => {
    const a = s.mode === "oidc" ? { uid: "sub", name: "name", email: "email" } : s.attributes
    const verified = at(claims, "email_verified")
    return {
      provider: identityType,
      uid: text(at(claims, a.uid)) ?? "",
      email: text(at(claims, a.email)),
      emailVerified: verified === true || verified === "true",
      name: text(at(claims, a.name)) ?? text(claims.preferred_username),
      groups: s.groupsClaim === undefined ? undefined : groupsOf(at(claims, s.groupsClaim))
    }
  }

  return {
    name: s.name,
    origin: new URL(s.issuer ?? s.endpoints!.authorization).origin,
    start: (redirectUri) =>
      Effect.flatMap(config, (c) =>
        attempt(async () => {
          const client = await openid()
          const verifier = client.randomPKCECodeVerifier()
          const pending: Pending = { state: client.randomState(), verifier, ...(s.mode === "oidc" ? { nonce: client.randomNonce() } : {}) }
          const url = client.buildAuthorizationUrl(c, {
            redirect_uri: redirectUri,
            scope: s.scopes,
            code_challenge: await client.calculatePKCECodeChallenge(verifier),
            code_challenge_method: "S256",
            state: pending.state,
            ...(pending.nonce === undefined ? {} : { nonce: pending.nonce })
          })
          return { url: url.href, pending: JSON.stringify(pending) }
        })),
    finish: (callback, kept) =>
      Effect.flatMap(config, (c) =>
        attempt(async () => {
          const client = await openid()
          const pending = JSON.parse(kept) as Pending
          const tokens = await client.authorizationCodeGrant(c, callback, {
            pkceCodeVerifier: pending.verifier,
            expectedState: pending.state,
            ...(pending.nonce === undefined ? { idTokenExpected: false } : { expectedNonce: pending.nonce, idTokenExpected: true })
          })
          let claims: Record<string, unknown>
          if (s.mode === "oidc") {
            const id = tokens.claims()!
            claims = { ...id }
            // the userinfo endpoint, for what the ID token leaves out (often the address and the groups)
            if (c.serverMetadata().userinfo_endpoint !== undefined) {
              claims = { ...(await client.fetchUserInfo(c, tokens.access_token, id.sub)), ...id }
            }
          } else {
            const response = await client.fetchProtectedResource(c, tokens.access_token, new URL(s.endpoints!.profile), "GET")
            if (!response.ok) throw new Error(`the profile URL answered ${response.status}`)
            claims = (await response.json()) as Record<string, unknown>
          }
          const identity = identityFrom(claims)
          if (identity.uid === "") throw new Error(`the provider named nobody: no "${s.mode === "oidc" ? "sub" : s.attributes.uid}" in what it sent`)
          return identity
        }))
  }
}

/** What `convene doctor` says of the provider: the discovery document's issuer and endpoints, or why it failed. */
export const inspectProvider = async (s: SsoSettings): Promise<{ readonly ok: boolean; readonly message: string }> => {
  if (s.mode === "oauth") {
    const e = s.endpoints!
    return { ok: true, message: `OAuth (Loomio's variables), "${s.name}": authorize at ${e.authorization}, tokens at ${e.token}, profile at ${e.profile}` }
  }
  try {
    const meta = (await configure(s)).serverMetadata()
    const groups = s.groupsClaim === undefined
      ? ""
      : meta.claims_supported === undefined || meta.claims_supported.includes(s.groupsClaim)
      ? `; groups from the "${s.groupsClaim}" claim`
      : `; the provider does not list the "${s.groupsClaim}" claim among its claims`
    return {
      ok: true,
      message: `${meta.issuer}, "${s.name}": authorize at ${meta.authorization_endpoint}, tokens at ${meta.token_endpoint}, keys at ${meta.jwks_uri}${groups}`
    }
  } catch (e) {
    return { ok: false, message: `cannot read the discovery document of ${s.issuer}: ${failure(e).message}` }
  }
}
