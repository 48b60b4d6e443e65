/**
 * The identity provider's configuration (decisions §10): OpenID Connect by discovery (OIDC_*), else Loomio's
 * generic OAuth variables (OAUTH_*), so a Loomio install's environment carries over. A half-set configuration
 * is refused, naming what is missing.
 */

type Env = Readonly<Record<string, string | undefined>>

export interface SsoSettings {
  /** "oidc": discovery and a verified ID token; "oauth": Loomio's endpoints set by hand and its profile URL. */
  readonly mode: "oidc" | "oauth"
  /** The button reads "Sign in with NAME". */
  readonly name: string
  readonly clientId: string
  readonly clientSecret: string
  readonly scopes: string
  /** OIDC_ISSUER (mode oidc). */
  readonly issuer?: string
  /** OAUTH_AUTH_URL, OAUTH_TOKEN_URL, OAUTH_PROFILE_URL (mode oauth). */
  readonly endpoints?: { readonly authorization: string; readonly token: string; readonly profile: string }
  /** Which profile attributes hold the subject, the name and the address (mode oauth; OAUTH_ATTR_*). */
  readonly attributes: { readonly uid: string; readonly name: string; readonly email: string }
  /** OIDC_GROUPS_CLAIM: the claim whose values are group handles; unset, memberships are left alone. */
  readonly groupsClaim?: string
  /** CONVENE_SSO_ONLY=1 or FEATURES_DISABLE_EMAIL_LOGIN=1: the provider is the only way in. */
  readonly only: boolean
}

const set = (v: string | undefined): v is string => v !== undefined && v.trim() !== ""

/** Every named variable, or an error naming the first missing one (a half-set configuration). */
const all = (env: Env, names: ReadonlyArray<string>, what: string): Record<string, string> => {
  const missing = names.filter((n) => !set(env[n]))
  if (missing.length > 0) {
    const given = names.filter((n) => set(env[n]))
    throw new Error(`${what} is half set: ${given.join(", ")} ${given.length === 1 ? "is" : "are"} set but ${missing.join(", ")} ${missing.length === 1 ? "is" : "are"} not`)
  }
  return Object.fromEntries(names.map((n) => [n, env[n]!.trim()]))
}

/** An endpoint: https, or http on this machine only (a provider for tests or development). */
const endpoint = (name: string, value: string): string => {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new Error(`${name}=${value} is not an absolute URL`)
  }
  const loopback = url.hostname === "localhost" || url.hostname === "127.0.0.1" || url.hostname === "[::1]"
  if (url.protocol !== "https:" && !(url.protocol === "http:" && loopback)) {
    throw new Error(`${name}=${value} must be an https URL (http is accepted on localhost only)`)
  }
  return value
}

const OIDC = ["OIDC_ISSUER", "OIDC_CLIENT_ID", "OIDC_CLIENT_SECRET"] as const
const OAUTH = ["OAUTH_AUTH_URL", "OAUTH_TOKEN_URL", "OAUTH_PROFILE_URL", "OAUTH_APP_KEY", "OAUTH_APP_SECRET"] as const

/** The provider the environment configures, or undefined; a half-set or wrong configuration throws, naming the variable. */
export const ssoFromEnv = (env: Env): SsoSettings | undefined => {
  const only = env.CONVENE_SSO_ONLY === "1" || env.FEATURES_DISABLE_EMAIL_LOGIN === "1"
  const groupsClaim = set(env.OIDC_GROUPS_CLAIM) ? env.OIDC_GROUPS_CLAIM.trim() : undefined
  const attributes = {
    uid: set(env.OAUTH_ATTR_UID) ? env.OAUTH_ATTR_UID.trim() : "sub",
    name: set(env.OAUTH_ATTR_NAME) ? env.OAUTH_ATTR_NAME.trim() : "name",
    email: set(env.OAUTH_ATTR_EMAIL) ? env.OAUTH_ATTR_EMAIL.trim() : "email"
  }
  if (OIDC.some((n) => set(env[n]))) {
    const v = all(env, OIDC, "The OpenID Connect configuration")
    const issuer = endpoint("OIDC_ISSUER", v.OIDC_ISSUER!)
    return {
      mode: "oidc",
      name: set(env.OIDC_PROVIDER_NAME) ? env.OIDC_PROVIDER_NAME.trim() : new URL(issuer).hostname,
      clientId: v.OIDC_CLIENT_ID!,
      clientSecret: v.OIDC_CLIENT_SECRET!,
      scopes: set(env.OIDC_SCOPES) ? env.OIDC_SCOPES.trim() : "openid email profile",
      issuer,
      attributes,
      ...(groupsClaim === undefined ? {} : { groupsClaim }),
      only
    }
  }
  if (OAUTH.some((n) => set(env[n]))) {
    const v = all(env, OAUTH, "The OAuth configuration")
    return {
      mode: "oauth",
      name: set(env.OAUTH_LOGIN_PROVIDER_NAME) ? env.OAUTH_LOGIN_PROVIDER_NAME.trim() : new URL(endpoint("OAUTH_AUTH_URL", v.OAUTH_AUTH_URL!)).hostname,
      clientId: v.OAUTH_APP_KEY!,
      clientSecret: v.OAUTH_APP_SECRET!,
      scopes: set(env.OAUTH_SCOPE) ? env.OAUTH_SCOPE.trim() : "openid email profile",
      endpoints: {
        authorization: endpoint("OAUTH_AUTH_URL", v.OAUTH_AUTH_URL!),
        token: endpoint("OAUTH_TOKEN_URL", v.OAUTH_TOKEN_URL!),
        profile: endpoint("OAUTH_PROFILE_URL", v.OAUTH_PROFILE_URL!)
      },
      attributes,
      ...(groupsClaim === undefined ? {} : { groupsClaim }),
      only
    }
  }
  if (only) {
    const which = env.CONVENE_SSO_ONLY === "1" ? "CONVENE_SSO_ONLY=1" : "FEATURES_DISABLE_EMAIL_LOGIN=1"
    throw new Error(`${which} turns e-mail sign-in off, but no identity provider is configured (set OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET)`)
  }
  if (groupsClaim !== undefined) throw new Error("OIDC_GROUPS_CLAIM is set, but no identity provider is configured (set OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET)")
  return undefined
}
