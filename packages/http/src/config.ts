import { Rules } from "@convene/core"
import { dirname, join } from "node:path"
import { b3Enabled } from "./api/auth.js"
import { LOG_LEVELS, type LogLevelName } from "./observe/log.js"
import type { HttpSettings } from "./settings.js"
import { inboundFromEnv } from "./mail/inbound.js"
import { ssoFromEnv } from "./sso/settings.js"

export const VERSION = "0.1.0"

type Env = Readonly<Record<string, string | undefined>>

/** LOG_LEVEL (pino's words, decisions §6), default info; anything else is refused with the words it takes. */
export const logLevelFromEnv = (value: string | undefined): LogLevelName => {
  if (value === undefined || value === "") return "info"
  const level = LOG_LEVELS.find((l) => l === value.toLowerCase())
  if (level === undefined) throw new Error(`LOG_LEVEL=${value} is not one of ${LOG_LEVELS.join(", ")}`)
  return level
}

/** BASE_URL, the base of every link; default `http://HOST:PORT` where the server listens. */
export const baseUrlFromEnv = (env: Env, listen: { host: string; port: number }): string =>
  env.BASE_URL || `http://${listen.host}:${listen.port}`

/** ATTACHMENT_MAX_BYTES (decisions §14): the largest file an upload may hold, default 25 MiB. */
export const attachmentMaxBytesFromEnv = (value: string | undefined): number => {
  if (value === undefined || value === "") return Rules.ATTACHMENT_MAX_BYTES
  if (!/^[0-9]{1,15}$/.test(value) || Number(value) < 1) throw new Error(`ATTACHMENT_MAX_BYTES=${value} is not a number of bytes (e.g. 26214400 for 25 MiB)`)
  return Number(value)
}

/** STORAGE_DIR (decisions §14): where files live; default `files/` beside the SQLite file, or in the working directory. */
export const storageDirFromEnv = (env: Env, database: string): string => {
  if (env.STORAGE_DIR) return env.STORAGE_DIR
  return /^postgres(ql)?:\/\//.test(database) ? "files" : join(dirname(database), "files")
}

/** Settings from the environment (decisions.md §4). */
export const settingsFromEnv = (env: Env, listen: { host: string; port: number }): HttpSettings => {
  const sso = ssoFromEnv(env)
  const inbound = inboundFromEnv(env)
  return {
  b3ApiKey: env.B3_API_KEY,
  baseUrl: baseUrlFromEnv(env, listen),
  maxBodyBytes: 1024 * 1024,
  attachmentMaxBytes: attachmentMaxBytesFromEnv(env.ATTACHMENT_MAX_BYTES),
  version: VERSION,
  allowPrivateWebhooks: env.CONVENE_ALLOW_PRIVATE_WEBHOOKS === "1",
  logLevel: logLevelFromEnv(env.LOG_LEVEL),
  invitationTtlDays: Rules.invitationTtlDaysFrom(env.INVITATION_TTL_DAYS),
  onlyAdminsStartGroups: env.FEATURES_DISABLE_CREATE_GROUP === "1",
  explorePublicGroups: env.FEATURES_EXPLORE_PUBLIC_GROUPS === "1",
  trustedProxies: Rules.trustedProxiesFrom(env.CONVENE_TRUSTED_PROXIES),
  ...(env.METRICS_TOKEN ? { metricsToken: env.METRICS_TOKEN } : {}),
  ...(sso === undefined ? {} : { sso }),
  ...(inbound === undefined ? {} : { inbound })
  }
}

const WILDCARD_HOSTS = new Set(["0.0.0.0", "::", "[::]"])

/**
 * What in the configuration is probably a mistake (decisions §6): `serve` prints these at start and
 * `doctor` reports them. Each is a sentence saying what happens and what to do.
 */
export const configWarnings = (env: Env, listen: { host: string; port: number }): ReadonlyArray<string> => {
  const warnings: Array<string> = []
  const b3 = env.B3_API_KEY ?? ""
  const b3Length = b3.length
  if (b3 !== "" && !b3Enabled(b3)) {
    warnings.push(`B3_API_KEY has ${b3Length} characters; the Server API (/api/b3) stays off unless it has more than 16`)
  }
  if (env.BASE_URL) {
    let url: URL | undefined
    try {
      url = new URL(env.BASE_URL)
    } catch { /* reported below */ }
    if (url === undefined || (url.protocol !== "http:" && url.protocol !== "https:")) {
      warnings.push(`BASE_URL=${env.BASE_URL} is not an absolute http(s) URL; links in mail, webhooks and pages will not work (e.g. BASE_URL=https://convene.example.org)`)
    }
  } else if (WILDCARD_HOSTS.has(listen.host)) {
    warnings.push(`HOST=${listen.host} without BASE_URL: links will point to http://${listen.host}:${listen.port}, which nobody can open; set BASE_URL to the address people use`)
  }
  if (env.METRICS_TOKEN !== undefined && env.METRICS_TOKEN !== "" && env.METRICS_TOKEN.length < 16) {
    warnings.push(`METRICS_TOKEN has ${env.METRICS_TOKEN.length} characters; use at least 16`)
  }
  return warnings
}
