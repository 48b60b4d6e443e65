/**
 * Identity providers (decisions §10). The sign-in use case (services/identities.ts) sees only an
 * ExternalIdentity: OpenID Connect is one adapter (packages/http/src/sso/), and SAML or LDAP would be others.
 */
import { Schema } from "effect"
import type { Effect } from "effect"

/** Who a provider vouches for, as the sign-in use case needs it. */
export interface ExternalIdentity {
  /** The identity's type as stored (`identities.identity_type`): "oidc", or "oauth" for Loomio's generic OAuth. */
  readonly provider: string
  /** The provider's stable subject (`identities.uid`). */
  readonly uid: string
  readonly email: string | null
  /** Whether the provider says it checked the address (only then may it link to an existing account). */
  readonly emailVerified: boolean
  readonly name: string | null
  /** The provider's groups claim when the server follows one; undefined leaves every membership alone. */
  readonly groups: ReadonlyArray<string> | undefined
}

/** Why a provider did not vouch for anyone: its own error, a forged or stale callback, a bad token, no answer. */
export class ProviderFailed extends Schema.TaggedError<ProviderFailed>()("ProviderFailed", {
  reason: Schema.Literal("refused", "state", "token", "unreachable"),
  message: Schema.String
}) {}

/** Where the browser goes, and what the caller keeps (opaque to it) until the browser comes back. */
export interface ProviderStart {
  readonly url: string
  readonly pending: string
}

export interface IdentityProvider {
  /** The provider's name on the button: "Sign in with NAME". */
  readonly name: string
  /** The origin `start` sends the browser to: the pages' CSP lets their forms go there. */
  readonly origin: string
  readonly start: (redirectUri: string) => Effect.Effect<ProviderStart, ProviderFailed>
  /** The identity, from the URL the provider sent the browser back to and what `start` asked to keep. */
  readonly finish: (callback: URL, pending: string) => Effect.Effect<ExternalIdentity, ProviderFailed>
}
