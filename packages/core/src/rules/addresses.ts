/**
 * Which destinations a webhook may reach: globally routable unicast addresses only. An address is
 * refused when ipaddr.js puts it in any special range (private, loopback, link-local, documentation,
 * benchmarking, reserved, …), when it is in Loomio's SafeHttpService list (reference/loomio-api.md §5),
 * or, for IPv6, when it lies outside the global unicast block 2000::/3. IPv4-mapped IPv6 addresses
 * are judged as the IPv4 address they carry, so `::ffff:127.0.0.1` is as blocked as `127.0.0.1`.
 */
import ipaddr from "ipaddr.js"

const BLOCKED_CIDRS = [
  "0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12", "192.0.0.0/24",
  "192.168.0.0/16", "198.18.0.0/15", "224.0.0.0/4", "240.0.0.0/4", "255.255.255.255/32",
  "::/128", "::1/128", "fc00::/7", "fe80::/10", "ff00::/8", "::/96", "64:ff9b::/96", "64:ff9b:1::/48", "2001::/32", "2002::/16"
]

const BLOCKED = BLOCKED_CIDRS.map((c) => ipaddr.parseCIDR(c))
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR("2000::/3")

/** True when the address is private, reserved, or not an address at all (unparseable counts as blocked). */
export const isBlockedAddress = (address: string): boolean => {
  if (!ipaddr.isValid(address)) return true
  let ip = ipaddr.parse(address)
  if (ip.kind() === "ipv6" && (ip as ipaddr.IPv6).isIPv4MappedAddress()) ip = (ip as ipaddr.IPv6).toIPv4Address()
  if (ip.range() !== "unicast") return true
  if (ip.kind() === "ipv6" && !ip.match(GLOBAL_UNICAST_V6)) return true
  return BLOCKED.some(([range, bits]) => range.kind() === ip.kind() && ip.match(range, bits))
}

export type ParsedDestination =
  | { readonly ok: true; readonly url: URL; readonly host: string; readonly literal: boolean }
  | { readonly ok: false; readonly reason: string }

/** Scheme and host checks that need no DNS: http(s) only, a host, no credentials in the URL. */
export const parseDestination = (raw: string): ParsedDestination => {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return { ok: false, reason: "is not a valid URL" }
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return { ok: false, reason: "must use http or https" }
  if (url.username !== "" || url.password !== "") return { ok: false, reason: "must not contain credentials" }
  const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname
  if (host === "") return { ok: false, reason: "must have a host" }
  return { ok: true, url, host, literal: ipaddr.isValid(host) }
}
