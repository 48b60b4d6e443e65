/**
 * The server's one route table: every route it answers (the API's endpoints, the pages, /metrics, /inbound/mail)
 * registered once with its template, and found by one matcher (find-my-way-ts, the router the platform itself
 * uses). The request log and the metrics name a request by the template found here (observe/ knows no route).
 */
import type { Received } from "@convene/core"
import { Context } from "effect"
import * as FindMyWay from "find-my-way-ts"
import type * as http from "node:http"
import { type RouteOf, UNMATCHED } from "./observe/routes.js"

export type PathParams = Readonly<Record<string, string | undefined>>
export type SearchParams = Readonly<Record<string, string | ReadonlyArray<string>>>

/** The path parameters of the route a request was found by (a page's `:key`), in the context it is answered in. */
export class RouteParams extends Context.Tag("@convene/http/RouteParams")<RouteParams, PathParams>() {}

/** The files a page's form sent (received into the file store, not yet kept), for a route that takes them (files.ts). */
export interface PageUpload {
  readonly filename: string
  readonly received: Received
}
export class PageUploads extends Context.Tag("@convene/http/PageUploads")<PageUploads, ReadonlyArray<PageUpload>>() {}

/** How a route answers a request: it writes the response itself. */
export type Answer = (req: http.IncomingMessage, res: http.ServerResponse, params: PathParams, search: SearchParams) => void

interface Row {
  readonly template: string
  readonly answer: Answer
}

export interface Found {
  readonly template: string
  readonly answer: Answer
  readonly params: PathParams
  readonly search: SearchParams
}

export interface RouteTable {
  /** Registers a route; a method and template registered twice is a programming error (thrown at start). */
  readonly add: (method: string | "*", template: string, answer: Answer) => void
  /** The route of a request; a HEAD request is answered by its GET route (its body left out when written). */
  readonly find: (method: string | undefined, url: string | undefined) => Found | undefined
  /** The template of a request's route, or UNMATCHED: the request log's and the metrics' label. */
  readonly templateOf: RouteOf
}

export const makeRouteTable = (): RouteTable => {
  const router = FindMyWay.make<Row>()
  const find: RouteTable["find"] = (method, url) => {
    if (method === undefined || url === undefined) return undefined
    const found = router.find(method, url) ?? (method === "HEAD" ? router.find("GET", url) : undefined)
    return found === undefined ? undefined : { template: found.handler.template, answer: found.handler.answer, params: found.params, search: found.searchParams }
  }
  return {
    add: (method, template, answer) => {
      const row = { template, answer }
      if (method === "*") router.all(template as FindMyWay.PathInput, row)
      else router.on(method, template as FindMyWay.PathInput, row)
    },
    find,
    templateOf: (method, url) => find(method, url)?.template ?? UNMATCHED
  }
}
