/**
 * Who is on the other end of a request (decisions §6 "Behind a reverse proxy"). Without trusted proxies it
 * is the connection's peer, whatever the request's headers say. When the peer is a trusted proxy, the
 * client is the right-most address of `X-Forwarded-For` (or RFC 7239 `Forwarded`) that is not itself a trusted
 * proxy: each proxy appends the address it heard from, so everything left of that was written by the client and proves
 * nothing. Limits count an IPv6 client by its /64 (one subscriber's network), an IPv4-mapped address as
 * the IPv4 address it carries.
 */
import ipaddr from "ipaddr.js"

export type TrustedProxies = ReadonlyArray<readonly [ipaddr.IPv4 | ipaddr.IPv6, number]>

const parse = (address: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined => {
  if (!ipaddr.isValid(address)) return undefined
  const ip = ipaddr.parse(address)
  return ip.kind() === "ipv6" && (ip as ipaddr.IPv6).isIPv4MappedAddress() ? (ip as ipaddr.IPv6).toIPv4Address() : ip
}

/**
 * CONVENE_TRUSTED_PROXIES: comma-separated addresses or CIDRs (`127.0.0.1/32,::1/128`, or `10.0.0.5`).
 * Anything else is an error naming the entry.
 */
export const trustedProxiesFrom = (value: string | undefined): TrustedProxies =>
  (value ?? "").split(",").map((s) => s.trim()).filter((s) => s !== "").map((entry) => {
    try {
      if (entry.includes("/")) return ipaddr.parseCIDR(entry)
      const ip = ipaddr.parse(entry)
      return [ip, ip.kind() === "ipv4" ? 32 : 128] as const
    } catch {
      throw new Error(`CONVENE_TRUSTED_PROXIES: ${entry} is not an address or a CIDR (e.g. 127.0.0.1/32,::1/128)`)
    }
  })

const trusted = (ip: ipaddr.IPv4 | ipaddr.IPv6, proxies: TrustedProxies) =>
  proxies.some(([range, bits]) => range.kind() === ip.kind() && ip.match(range, bits))

type Header = string | ReadonlyArray<string> | undefined
const values = (h: Header) => (typeof h === "string" ? [h] : h ?? [])

/**
 * The node an RFC 7239 `for=` names, without its port: `192.0.2.43`, `192.0.2.43:47011`, `"[2001:db8::17]:4711"`
 * (quotes and brackets are taken off). `unknown` and obfuscated names (`_hidden`) are kept as they are: no address.
 */
const forNode = (value: string): string => {
  const v = value.trim().replace(/^"(.*)"$/, "$1")
  if (v.startsWith("[")) return v.slice(1, v.indexOf("]") === -1 ? undefined : v.indexOf("]"))
  const colon = v.indexOf(":")
  return colon !== -1 && colon === v.lastIndexOf(":") ? v.slice(0, colon) : v
}

/** The hops a proxy chain wrote, left to right: `X-Forwarded-For`'s, or when there is none, RFC 7239 `Forwarded`'s `for=`. */
const hopsOf = (forwardedFor: Header, forwarded: Header): ReadonlyArray<string> => {
  const xff = values(forwardedFor).flatMap((h) => h.split(",")).map((s) => s.trim()).filter((s) => s !== "")
  if (xff.length > 0) return xff
  // elements by commas, pairs by semicolons (a quoted value holds neither in practice: an address and a port)
  return values(forwarded).flatMap((h) => h.split(",")).map((element) => {
    const pair = element.split(";").map((p) => p.trim()).find((p) => /^for=/i.test(p))
    // an element without for= names no client: the chain cannot be followed past it
    return pair === undefined ? "" : forNode(pair.slice(4))
  })
}

/**
 * The client's address, given the connection's peer and the request's `X-Forwarded-For` (all its values) or, when a
 * proxy sends only that, its RFC 7239 `Forwarded`.
 */
export const clientAddress = (peer: string | undefined, forwardedFor: Header, proxies: TrustedProxies, forwarded?: Header): string => {
  // no proxy trusted: the peer, as the socket gives it (nothing to parse on every request)
  if (proxies.length === 0) return peer ?? "unknown"
  const from = parse(peer ?? "")
  if (from === undefined) return peer ?? "unknown"
  if (!trusted(from, proxies)) return from.toString()
  const hops = hopsOf(forwardedFor, forwarded)
  let client = from
  for (let i = hops.length - 1; i >= 0 && trusted(client, proxies); i--) {
    const hop = parse(hops[i]!)
    // a hop that is not an address: the chain cannot be followed past it; the last trusted proxy's peer stands
    if (hop === undefined) break
    client = hop
  }
  return client.toString()
}

/** The key a per-client limit counts under: the IPv4 address, or an IPv6 address's /64. */
export const clientLimitKey = (address: string): string => {
  const ip = parse(address)
  if (ip === undefined) return address
  if (ip.kind() === "ipv4") return ip.toString()
  const parts = (ip as ipaddr.IPv6).parts.slice(0, 4)
  return `${parts.map((p) => p.toString(16)).join(":")}::/64`
}
