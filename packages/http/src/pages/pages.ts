/**
 * The server-rendered pages (decisions §5 and §9), beside the API: each feature in its folder with its routes
 * and templates (groups, threads, polls, people), around one layout (layout/: the layout template, kit.ts what
 * every page shares, the router, i18n). Pages read and write only through
 * the core's services, which ask the rules; a page shows a control only when the core says its rule allows it.
 */
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { People, Store } from "@convene/core"
import { Effect } from "effect"
import { Settings } from "../settings.js"
import { RouteParams } from "../routes.js"
import { groupRoutes } from "./groups/routes.js"
import { makeKit, plainPage } from "./layout/kit.js"
import { pollRoutes } from "./polls/routes.js"
import type { PageRouter } from "./layout/routes.js"
import { sessionRoutes } from "./people/routes.js"
import { ssoRoutes } from "./people/sso.js"
import { makeIdentityProvider } from "../sso/oidc.js"
import { STYLESHEET } from "./layout/templates.js"
import { threadRoutes } from "./threads/routes.js"
import { searchRoutes } from "./search/routes.js"
import { notificationRoutes } from "./notifications/routes.js"
import { readRoutes } from "./threads/lists.js"
import { LIVE_SCRIPT } from "./layout/liveScript.js"


/** A page asked for while another process holds the database's write lock (an import, a restore): try again. */
export const busyPage = (acceptLanguage?: string) => plainPage(503, acceptLanguage, "error.busyTitle", "error.busy", { "retry-after": "5" })

/** A form whose body is over the server's limit (a page route): a page that says so, never a reset connection. */
export const tooLargePage = (acceptLanguage?: string) => plainPage(413, acceptLanguage, "error.tooLargeTitle", "error.tooLarge", { connection: "close" })

/** A form the server could not read (a multipart body cut short or malformed): nothing was changed. */
export const formInvalidPage = (acceptLanguage?: string) => plainPage(400, acceptLanguage, "error.formInvalidTitle", "error.formInvalid")

/** An unknown path outside /api: a browser never gets JSON from a page route. */
export const notFoundPage = (acceptLanguage?: string) => plainPage(404, acceptLanguage, "error.notFoundTitle", "error.notFound")

/** Every page's route, put in the server's route table (serve.ts). */
export const pageRoutes = (pages: PageRouter) =>
  Effect.gen(function*() {
    const store = yield* Store
    const settings = yield* Settings
    const secret = (name: string) => Effect.provideService(People.serverSecret(name), Store, store)
    // an embedder's own adapter, else the one the environment configures (OIDC_* or OAUTH_*)
    const provider = settings.identityProvider ?? (settings.sso === undefined ? undefined : makeIdentityProvider(settings.sso))
    const kit = makeKit(store, settings, yield* secret("csrf"), provider)

    yield* pages.get("/assets/convene.css", Effect.succeed(HttpServerResponse.text(STYLESHEET, {
      contentType: "text/css; charset=utf-8",
      headers: { "cache-control": "public, max-age=3600", "x-content-type-options": "nosniff" }
    })))
    yield* pages.get("/assets/live.js", Effect.succeed(HttpServerResponse.text(LIVE_SCRIPT, {
      contentType: "text/javascript; charset=utf-8",
      headers: { "cache-control": "public, max-age=3600", "x-content-type-options": "nosniff" }
    })))
    // a tag's colour as a small square (the pages' CSP allows no inline style)
    yield* pages.get("/assets/swatch/:hex", Effect.map(RouteParams, (params) => {
      const hex = /^([0-9a-f]{6})\.svg$/.exec(String(params.hex ?? ""))?.[1]
      return hex === undefined
        ? notFoundPage()
        : HttpServerResponse.text(`<svg xmlns="http://www.w3.org/2000/svg" width="12" height="12"><rect width="12" height="12" rx="2" fill="#${hex}"/></svg>`, {
          contentType: "image/svg+xml",
          headers: { "cache-control": "public, max-age=86400", "x-content-type-options": "nosniff" }
        })
    }))
    yield* sessionRoutes(pages, kit, settings)
    if (provider !== undefined) yield* ssoRoutes(pages, kit, settings, provider, yield* secret("sso"))
    yield* groupRoutes(pages, kit, settings)
    yield* threadRoutes(pages, kit)
    yield* pollRoutes(pages, kit)
    yield* searchRoutes(pages, kit)
    yield* notificationRoutes(pages, kit)
    yield* readRoutes(pages, kit)
  })
