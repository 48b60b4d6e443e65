import { Context, Effect, Layer } from "effect"
import { lookup } from "node:dns/promises"
import { isBlockedAddress, parseDestination } from "../rules/addresses.js"

/** A destination checked as public, with the address to connect to (pinned: no second DNS answer is used). */
export interface CheckedDestination {
  readonly url: URL
  readonly address: string
  readonly family: 4 | 6
}

/** How host names are resolved and whether private destinations are allowed (CONVENE_ALLOW_PRIVATE_WEBHOOKS). */
export interface UrlPolicyService {
  readonly allowPrivate: boolean
  readonly resolve: (host: string) => Effect.Effect<ReadonlyArray<{ address: string; family: number }>, string>
}

export class UrlPolicy extends Context.Tag("@convene/core/UrlPolicy")<UrlPolicy, UrlPolicyService>() {}

export const nodeUrlPolicy = (allowPrivate: boolean): UrlPolicyService => ({
  allowPrivate,
  resolve: (host) =>
    Effect.tryPromise({
      try: () => lookup(host, { all: true, verbatim: true }),
      catch: () => `could not be resolved`
    })
})

export const NodeUrlPolicyLive = (allowPrivate: boolean) => Layer.succeed(UrlPolicy, nodeUrlPolicy(allowPrivate))

/**
 * The one check of a webhook destination, at save time and again at send time: http(s), resolvable, and
 * (unless private destinations are allowed) no resolved address in a blocked range. Fails with the reason.
 */
export const checkDestination = Effect.fnUntraced(function*(raw: string): Effect.fn.Return<CheckedDestination, string, UrlPolicy> {
  const policy = yield* UrlPolicy
  const parsed = parseDestination(raw)
  if (!parsed.ok) return yield* Effect.fail(parsed.reason)
  const addresses = parsed.literal
    ? [{ address: parsed.host, family: parsed.host.includes(":") ? 6 : 4 }]
    : yield* policy.resolve(parsed.host)
  if (addresses.length === 0) return yield* Effect.fail("could not be resolved")
  if (!policy.allowPrivate && addresses.some((a) => isBlockedAddress(a.address))) {
    return yield* Effect.fail("must be a public address (it resolves to a private or reserved one)")
  }
  const first = addresses[0]!
  return { url: parsed.url, address: first.address, family: first.family === 6 ? 6 : 4 }
})
