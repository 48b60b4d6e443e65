import type { HttpSettings } from "./settings.js"

export const VERSION = "0.1.0"

/** Settings from the environment (decisions.md §4). */
export const settingsFromEnv = (
  env: NodeJS.ProcessEnv,
  listen: { host: string; port: number }
): HttpSettings => ({
  b3ApiKey: env.B3_API_KEY,
  baseUrl: env.BASE_URL ?? `http://${listen.host}:${listen.port}`,
  maxBodyBytes: 1024 * 1024,
  version: VERSION,
  allowPrivateWebhooks: env.CONVENE_ALLOW_PRIVATE_WEBHOOKS === "1"
})
