/**
 * A request's route template (`/api/b2/discussions/:id`), for the request log and the metrics' labels: a
 * URL itself can carry keys, tokens and ids, and as a label it would grow without bound. Unknown paths
 * share one label.
 */
export const UNMATCHED = "unmatched"

/** The routes beside the API's and the pages': the metrics endpoint. */
export const METRICS_PATH = "/metrics"

export type RouteOf = (url: string | undefined) => string

/**
 * Matches by segments; where two templates match, the one with more literal segments wins (`/x/search` before
 * `/x/:id`). The server gives the templates (the API's, the pages', the metrics endpoint): observing knows no route.
 */
export const routeMatcher = (paths: ReadonlyArray<string>): RouteOf => {
  const templates = [...new Set(paths)]
    .map((path) => ({ path, segments: path.split("/").slice(1) }))
    .sort((a, b) => params(a.segments) - params(b.segments))
  const byLength = new Map<number, Array<(typeof templates)[number]>>()
  for (const t of templates) byLength.set(t.segments.length, [...(byLength.get(t.segments.length) ?? []), t])
  return (url) => {
    if (url === undefined) return UNMATCHED
    const q = url.indexOf("?")
    const segments = (q === -1 ? url : url.slice(0, q)).split("/").slice(1)
    const found = byLength.get(segments.length)?.find((t) => t.segments.every((s, i) => s.startsWith(":") || s === segments[i]))
    return found?.path ?? UNMATCHED
  }
}

const params = (segments: ReadonlyArray<string>) => segments.filter((s) => s.startsWith(":")).length
