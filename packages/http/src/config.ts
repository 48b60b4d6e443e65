import { LogLevel } from "effect"
import type { HttpSettings } from "./settings.js"

export const VERSION = "0.1.0"

/** LOG_LEVEL's words (pino's, decisions §6) as Effect's log levels. */
const LOG_LEVELS: Record<string, LogLevel.LogLevel> = {
  fatal: LogLevel.Fatal, error: LogLevel.Error, warn: LogLevel.Warning, info: LogLevel.Info, debug: LogLevel.Debug,
  trace: LogLevel.Trace, silent: LogLevel.None
}

/** LOG_LEVEL, default info; anything else is refused with the words it takes. */
export const logLevelFromEnv = (value: string | undefined): LogLevel.LogLevel => {
  if (value === undefined || value === "") return LogLevel.Info
  const level = LOG_LEVELS[value.toLowerCase()]
  if (level === undefined) throw new Error(`LOG_LEVEL=${value} is not one of ${Object.keys(LOG_LEVELS).join(", ")}`)
  return level
}

/** BASE_URL, the base of every link; default `http://HOST:PORT` where the server listens. */
export const baseUrlFromEnv = (env: Readonly<Record<string, string | undefined>>, listen: { host: string; port: number }): string =>
  env.BASE_URL || `http://${listen.host}:${listen.port}`

/** Settings from the environment (decisions.md §4). */
export const settingsFromEnv = (
  env: Readonly<Record<string, string | undefined>>,
  listen: { host: string; port: number }
): HttpSettings => ({
  b3ApiKey: env.B3_API_KEY,
  baseUrl: baseUrlFromEnv(env, listen),
  maxBodyBytes: 1024 * 1024,
  version: VERSION,
  allowPrivateWebhooks: env.CONVENE_ALLOW_PRIVATE_WEBHOOKS === "1",
  logLevel: logLevelFromEnv(env.LOG_LEVEL)
})
