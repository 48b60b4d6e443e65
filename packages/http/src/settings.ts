import { Context } from "effect"

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
}

export class Settings extends Context.Tag("@convene/http/Settings")<Settings, HttpSettings>() {}
