import type { IdentityProvider, Rules } from "@convene/core"
import { Context } from "effect"
import type { LogLevelName } from "./observe/log.js"
import type { InboundSettings } from "./mail/inbound.js"
import type { SsoSettings } from "./sso/settings.js"

export interface HttpSettings {
  /** The server-wide secret of /api/b3; the Server API is off unless it is longer than 16 characters. */
  readonly b3ApiKey: string | undefined
  /** Base of links in messages and documents. */
  readonly baseUrl: string
  /** Largest accepted request body; larger → 413. */
  readonly maxBodyBytes: number
  readonly version: string
  /** Allow webhooks to private and reserved addresses (CONVENE_ALLOW_PRIVATE_WEBHOOKS=1). */
  readonly allowPrivateWebhooks?: boolean
  /** The least severe log entry written (LOG_LEVEL); default info. */
  readonly logLevel?: LogLevelName
  /** METRICS_TOKEN: /metrics wants it as a bearer token; unset, /metrics answers loopback only. */
  readonly metricsToken?: string
  /** INVITATION_TTL_DAYS: how many days an invitation stays valid; default 30. */
  readonly invitationTtlDays?: number
  /** FEATURES_DISABLE_CREATE_GROUP=1: only the server's administrators start groups (decisions §12) */
  readonly onlyAdminsStartGroups?: boolean
  /** FEATURES_EXPLORE_PUBLIC_GROUPS=1: `/explore` lists open groups (decisions §12); off by default */
  readonly explorePublicGroups?: boolean
  /** CONVENE_TRUSTED_PROXIES: the proxies whose X-Forwarded-For names the client; none by default. */
  readonly trustedProxies?: Rules.TrustedProxies
  /** The identity provider's configuration (OIDC_* or OAUTH_*, decisions §10); unset, sign-in is by e-mail only. */
  readonly sso?: SsoSettings
  /** An embedder's own identity provider adapter, in place of the one `sso` configures (its `only` still applies). */
  readonly identityProvider?: IdentityProvider
  /** Replies by e-mail (REPLY_HOSTNAME, INBOUND_*, decisions §11); unset, notifications carry no reply address. */
  readonly inbound?: InboundSettings
  /** The live pages' streams (decisions §13): how much a client may leave unread, how often they are kept alive (tests shorten them). */
  readonly live?: LiveOptions
  /** the largest file an upload may hold (decisions §14: ATTACHMENT_MAX_BYTES, default 25 MiB) */
  readonly attachmentMaxBytes?: number
}

/** The live pages' streams (live.ts). */
export interface LiveOptions {
  /** bytes a stream may leave unread before it is cut (default 64 KiB) */
  readonly maxBuffered?: number
  /** a comment line this often keeps proxies from closing an idle stream, and the session is checked again (default 25 s) */
  readonly heartbeatMs?: number
  /** how often the hub looks for events without a wake-up (default 1 s) */
  readonly pollMs?: number
}

export class Settings extends Context.Tag("@convene/http/Settings")<Settings, HttpSettings>() {}
