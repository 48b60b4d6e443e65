/**
 * Sending one webhook request: JSON body, 5 s timeout, no redirects, and the connection made to the
 * address that was checked (the host name is not resolved a second time, which defeats DNS rebinding).
 */
import type { CheckedDestination, Deliveries } from "@convene/core"
import type { LookupAddress } from "node:dns"

export const WEBHOOK_TIMEOUT_MS = 5000

const pinnedLookup = (target: CheckedDestination) =>
  ((_host: string, options: { all?: boolean } | number | undefined, callback: (...args: Array<unknown>) => void) => {
    const all = typeof options === "object" && options?.all
    if (all) callback(null, [{ address: target.address, family: target.family } satisfies LookupAddress])
    else callback(null, target.address, target.family)
  }) as never

export const sendJson = async (
  target: CheckedDestination,
  request: { method: "POST" | "PUT"; url: string; body: unknown },
  timeoutMs = WEBHOOK_TIMEOUT_MS
): Promise<Deliveries.DeliveryOutcome> => {
  if (new URL(request.url).host !== target.url.host) return { ok: false, status: null, error: "destination changed" }
  try {
    // loaded on the first delivery: a server without webhooks never pays for it
    const { default: got } = await import("got")
    const res = await got(request.url, {
      method: request.method,
      body: JSON.stringify(request.body),
      headers: { "content-type": "application/json; charset=utf-8", "user-agent": "convene-webhooks" },
      timeout: { request: timeoutMs },
      followRedirect: false,
      throwHttpErrors: false,
      retry: { limit: 0 },
      dnsLookup: pinnedLookup(target),
      responseType: "text"
    })
    return res.statusCode >= 200 && res.statusCode < 300
      ? { ok: true, status: res.statusCode }
      : { ok: false, status: res.statusCode, error: `HTTP ${res.statusCode}` }
  } catch (e) {
    return { ok: false, status: null, error: (e as { code?: string; message?: string }).code ?? (e as Error).message ?? "request failed" }
  }
}
