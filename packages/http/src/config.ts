import { directoryStorage, type FileStorageService, Rules, s3Storage } from "@convene/core"
import { randomBytes } from "node:crypto"
import { accessSync, constants, existsSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
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

/**
 * Where files live (decisions §14): S3-compatible storage when AWS_BUCKET is set (Loomio's variables, AWS_ENDPOINT for
 * MinIO, Garage or Ceph), else the directory of STORAGE_DIR. A half-set S3 configuration is refused, naming what is missing.
 */
export const fileStorageFromEnv = (env: Env, database: string): FileStorageService => {
  if (!env.AWS_BUCKET) return directoryStorage(storageDirFromEnv(env, database))
  const missing = ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"].filter((name) => !env[name])
  if (missing.length > 0) throw new Error(`AWS_BUCKET is set but ${missing.join(" and ")} ${missing.length === 1 ? "is" : "are"} not: files need both keys`)
  if (env.AWS_ENDPOINT) {
    let url: URL | undefined
    try {
      url = new URL(env.AWS_ENDPOINT)
    } catch { /* below */ }
    if (url === undefined || (url.protocol !== "http:" && url.protocol !== "https:")) throw new Error(`AWS_ENDPOINT=${env.AWS_ENDPOINT} is not an http(s) URL (e.g. http://127.0.0.1:9000)`)
  }
  return s3Storage({
    bucket: env.AWS_BUCKET,
    region: env.AWS_REGION || "us-east-1",
    accessKeyId: env.AWS_ACCESS_KEY_ID!,
    secretAccessKey: env.AWS_SECRET_ACCESS_KEY!,
    ...(env.AWS_ENDPOINT ? { endpoint: env.AWS_ENDPOINT } : {})
  })
}

/** `convene doctor`'s files check: a probe object written, read back and deleted. */
export const probeFileStorage = async (storage: FileStorageService): Promise<{ readonly ok: boolean; readonly message: string }> => {
  // a directory not made yet is made by the first upload: its nearest existing parent must be writable (nothing is made here)
  if (storage.kind === "directory" && !existsSync(storage.describe)) {
    let parent = dirname(resolve(storage.describe))
    while (!existsSync(parent) && dirname(parent) !== parent) parent = dirname(parent)
    try {
      accessSync(parent, constants.W_OK)
      return { ok: true, message: `${storage.describe}: not made yet; the first upload makes it (${parent} is writable)` }
    } catch {
      return { ok: false, message: `${storage.describe}: not made yet, and ${parent} is not writable` }
    }
  }
  const key = `probe/${randomBytes(8).toString("hex")}`
  const bytes = randomBytes(64)
  try {
    await storage.put(key, bytes)
    const back = await storage.read(key)
    const chunks: Array<Buffer> = []
    for await (const c of back ?? []) chunks.push(Buffer.from(c as Uint8Array))
    await storage.remove(key)
    if (!Buffer.concat(chunks).equals(bytes)) return { ok: false, message: `${storage.describe}: a probe object written did not read back the same` }
    return { ok: true, message: `${storage.describe}: a probe object written, read back and deleted` }
  } catch (e) {
    await storage.remove(key).catch(() => undefined)
    return { ok: false, message: `${storage.describe}: ${e instanceof Error ? e.message : String(e)}` }
  }
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
