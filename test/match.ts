import type { Test } from "tap"

/** Where `found` holds an array of another length than the pattern's array at the same place, at any depth. */
const shortArrays = (found: unknown, pattern: unknown, path: string): Array<string> => {
  if (Array.isArray(pattern)) {
    const here = Array.isArray(found) && found.length === pattern.length ? [] : [`${path || "the value"}: ${Array.isArray(found) ? `${found.length} items` : "not an array"}, ${pattern.length} wanted`]
    return Array.isArray(found) ? [...here, ...pattern.flatMap((p, i) => shortArrays(found[i], p, `${path}[${i}]`))] : here
  }
  if (pattern === null || typeof pattern !== "object" || pattern instanceof RegExp || found === null || typeof found !== "object") return []
  return Object.entries(pattern).flatMap(([k, p]) => shortArrays((found as Record<string, unknown>)[k], p, path === "" ? k : `${path}.${k}`))
}

/**
 * tap's t.match, with every array in the pattern matched whole, at any depth: t.match alone takes `[a, b]` as a
 * prefix (and `[]` matches any array), so a row too many passes. test/runner.test.ts refuses an array in a t.match.
 */
export const matchExact = (t: Test, found: unknown, pattern: unknown, message = "should match pattern") => {
  t.same(shortArrays(found, pattern, ""), [], `${message}: every array whole`)
  return t.match(found, pattern, message)
}
