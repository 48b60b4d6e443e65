import { startServer } from "@convene/http"
import t from "tap"
import { seedUser, startTestServer } from "./helpers.js"

t.test("system endpoints, OpenAPI and edge handling", async (t) => {
  const s = await startTestServer({ maxBodyBytes: 2048 })
  t.teardown(s.close)
  const ada = await seedUser(s.convene)
  const group = (await s.convene.groups.create({ name: "G", owner: ada.user })).group

  t.test("healthz and the boot version probe need no key", async (t) => {
    t.same((await s.api.get("healthz")).body, { ok: true })
    t.same((await s.api.get("api/v1/boot/version")).body, { version: "test", api: "loomio-b2-compatible" })
  })

  t.test("OpenAPI documents are generated from the declarations", async (t) => {
    const b2 = (await s.api.get("api/b2/openapi.json")).body as any
    t.equal(b2.openapi, "3.1.0")
    t.ok(b2.paths["/api/b2/groups"].get)
    t.ok(b2.paths["/api/b2/groups/{id}"].get)
    t.ok(b2.paths["/api/b2/memberships"].post.requestBody, "request bodies are documented")
    t.notOk(Object.keys(b2.paths).some((p) => p.startsWith("/api/b3")), "b2 document holds only the user API")
    const b3 = (await s.api.get("api/b3/openapi.json")).body as any
    const routes = Object.entries(b3.paths).flatMap(([p, ops]: [string, any]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`)).sort()
    t.same(routes, [
      "DELETE /api/b3/users/identity/{identity_type}/{uid}",
      "DELETE /api/b3/users/{id}",
      "GET /api/b3/users",
      "GET /api/b3/users/identity/{identity_type}/{uid}",
      "GET /api/b3/users/{id}",
      "PATCH /api/b3/users/identity/{identity_type}/{uid}",
      "PATCH /api/b3/users/{id}",
      "POST /api/b3/users/deactivate",
      "POST /api/b3/users/identity/{identity_type}/{uid}/deactivate",
      "POST /api/b3/users/identity/{identity_type}/{uid}/reactivate",
      "POST /api/b3/users/identity/{identity_type}/{uid}/redact",
      "POST /api/b3/users/reactivate",
      "POST /api/b3/users/{id}/deactivate",
      "POST /api/b3/users/{id}/reactivate",
      "POST /api/b3/users/{id}/redact",
      "PUT /api/b3/users/{id}"
    ])
    const ids = Object.values(b3.paths).flatMap((ops: any) => Object.values(ops).map((o: any) => o.operationId))
    t.equal(new Set(ids).size, ids.length, "operationIds are unique")
    t.ok(b3.paths["/api/b3/users"].get.security, "bearer security declared")
  })

  t.test("bodies: size limit, media type, malformed JSON — all JSON 4xx, nothing written", async (t) => {
    const before = (await s.sql("SELECT count(*) AS n FROM memberships"))
    const big = await s.as(ada.apiKey).post("api/b2/memberships", { json: { group_id: group.id, emails: ["x".repeat(3000) + "@x.org"] } })
    t.equal(big.statusCode, 413)
    t.match(big.body, { error: /larger/ })
    const xml = await s.as(ada.apiKey).post("api/b2/memberships", { body: "<a/>", headers: { "content-type": "application/xml" } })
    t.equal(xml.statusCode, 415)
    const arr = await s.as(ada.apiKey).post("api/b2/memberships", { body: "[1]", headers: { "content-type": "application/json" } })
    t.equal(arr.statusCode, 400)
    const bad = await s.as(ada.apiKey).post("api/b2/memberships", { body: '{"group_id": 1,', headers: { "content-type": "application/json" } })
    t.same(bad.body, { error: "Malformed JSON body" })
    t.same((await s.sql("SELECT count(*) AS n FROM memberships")), before)
  })

  t.test("a busy port is reported in the system's words", async (t) => {
    const port = Number(new URL(s.url).port)
    await t.rejects(
      startServer({ store: s.convene.store, port, host: "127.0.0.1", settings: { b3ApiKey: undefined, baseUrl: "http://x", maxBodyBytes: 1024, version: "t" } }),
      { message: /EADDRINUSE/ }
    )
  })

  t.test("unknown API routes and methods are JSON 404s; any other unknown path an HTML page", async (t) => {
    t.same((await s.api.get("api/b2/nowhere")).body, { error: "Not found" })
    const page = await s.api.get("nowhere", { responseType: "text", headers: { "accept-language": "fr" } })
    t.equal(page.statusCode, 404)
    t.match(page.headers["content-type"], /^text\/html/)
    t.match(page.body, /<html lang="fr">[\s\S]*<h1>Introuvable<\/h1>/, "in the layout, in the browser's language")
    const res = await s.as(ada.apiKey).delete("api/b2/groups")
    t.equal(res.statusCode, 404)
    t.same(res.body, { error: "Not found" })
  })
})
