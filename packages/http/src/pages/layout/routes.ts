/** Every page's route (for the request log and metrics, observe/routes.ts), and the router the page modules add to. */
import type * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"

export const PAGE_ROUTES = [
  "/",
  "/assets/convene.css",
  "/invitations/:token",
  "/sign-in",
  "/sign-in/code",
  "/sign-in/link/:token",
  "/sign-out",
  "/auth/oidc",
  "/auth/oidc/callback",
  "/profile",
  "/profile/api_access",
  "/unsubscribe/:token",
  "/g/:key",
  "/g/:key/members",
  "/g/:key/members/:id/admin",
  "/g/:key/members/:id/remove",
  "/g/:key/invite",
  "/g/:key/volume",
  "/g/:key/discussions/new",
  "/g/:key/polls/new",
  "/d/:key",
  "/d/:key/comments",
  "/d/:key/comments/:id/edit",
  "/d/:key/comments/:id/delete",
  "/d/:key/close",
  "/d/:key/reopen",
  "/d/:key/volume",
  "/d/:key/polls/new",
  "/p/:key",
  "/p/:key/vote",
  "/p/:key/close",
  "/p/:key/outcome",
  "/p/:key/reopen"
] as const

export type PageRoute = (typeof PAGE_ROUTES)[number]

type Router = Parameters<Parameters<typeof HttpApiBuilder.Router.use>[0]>[0]

/** The pages' router, taking only the routes listed above (a route not listed does not compile). */
export interface PageRouter {
  readonly get: (path: PageRoute, handler: Parameters<Router["get"]>[1]) => ReturnType<Router["get"]>
  readonly post: (path: PageRoute, handler: Parameters<Router["post"]>[1]) => ReturnType<Router["post"]>
}
