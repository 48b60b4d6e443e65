/**
 * A request's route template (`/api/b2/discussions/:id`), for the request log and the metrics' labels: a
 * URL itself can carry keys, tokens and ids, and as a label it would grow without bound. Unknown paths
 * share one label. The server's route table (routes.ts) says which: observing knows no route.
 */
export const UNMATCHED = "unmatched"

/** The metrics endpoint's path (its route is the server's: serve.ts). */
export const METRICS_PATH = "/metrics"

export type RouteOf = (method: string | undefined, url: string | undefined) => string
