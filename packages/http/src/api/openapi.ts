/**
 * The served OpenAPI 3.1 documents, generated from the endpoint declarations (api.ts) once at start-up.
 * Two things the generator cannot know are settled here: the server's own address (`servers`, from
 * BASE_URL), and that an undecodable parameter is answered with the API's own 400 body (server.ts maps
 * the platform's decode error to it), so the platform's error schema is left out of the documents.
 */
import * as HttpApi from "@effect/platform/HttpApi"
import * as OpenApi from "@effect/platform/OpenApi"
import { ServerApiDoc, UserApiDoc } from "./api.js"

type Json = Record<string, any>

const PLATFORM_SCHEMAS = ["HttpApiDecodeError", "Issue", "PropertyKey"]
const isPlatformRef = (s: Json) => typeof s.$ref === "string" && PLATFORM_SCHEMAS.some((n) => s.$ref === `#/components/schemas/${n}`)

const withoutPlatformErrors = (spec: Json): Json => {
  for (const methods of Object.values<Json>(spec.paths)) {
    for (const op of Object.values<Json>(methods)) {
      for (const response of Object.values<Json>(op.responses ?? {})) {
        const media = response.content?.["application/json"]
        const anyOf: Array<Json> | undefined = media?.schema?.anyOf
        if (anyOf === undefined) continue
        const rest = anyOf.filter((s) => !isPlatformRef(s))
        media.schema = rest.length === 1 ? rest[0] : { anyOf: rest }
      }
    }
  }
  for (const name of PLATFORM_SCHEMAS) delete spec.components.schemas[name]
  // groups that share a tag (threads, reactions, search) list it once, with the first description
  spec.tags = [...new Map((spec.tags as Array<Json>).reverse().map((t) => [t.name, t])).values()].reverse()
  return spec
}

const build = (api: HttpApi.HttpApi.Any, baseUrl: string): Json =>
  withoutPlatformErrors({
    ...structuredClone(OpenApi.fromApi(api as Parameters<typeof OpenApi.fromApi>[0])),
    openapi: "3.1.0",
    servers: [{ url: baseUrl, description: "This installation" }]
  })

export const userApiDocument = (baseUrl: string) => build(UserApiDoc, baseUrl)
export const serverApiDocument = (baseUrl: string) => build(ServerApiDoc, baseUrl)
