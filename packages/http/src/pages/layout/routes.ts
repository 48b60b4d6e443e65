/** The pages' side of the server's route table (routes.ts), which the page modules add their routes to. */
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import type { FileStorage } from "@convene/core"
import type { Effect } from "effect"
import type { PageUploads, RouteParams } from "../../routes.js"

/** A page's path template (`/g/:key`), registered once, in the module of its feature. */
export type PageRoute = `/${string}`

/** A page's handler: it reads the request and its path parameters (RouteParams) from its context, and nothing else. */
export type PageHandler = Effect.Effect<HttpServerResponse.HttpServerResponse, never, HttpServerRequest.HttpServerRequest | RouteParams>
/** A form that may send files (multipart): its handler also reads what they were (PageUploads; none from a form without). */
export type PageUploadHandler = Effect.Effect<HttpServerResponse.HttpServerResponse, never, HttpServerRequest.HttpServerRequest | RouteParams | PageUploads | FileStorage>

/** The pages' side of the server's route table (serve.ts): each page's route is registered once, here. */
export interface PageRouter {
  readonly get: (path: PageRoute, handler: PageHandler) => Effect.Effect<void>
  readonly post: (path: PageRoute, handler: PageHandler) => Effect.Effect<void>
  /** a POST whose form may carry files ("Attach files", decisions §14) */
  readonly postWithFiles: (path: PageRoute, handler: PageUploadHandler) => Effect.Effect<void>
}
