/**
 * One request pipeline (serve.ts, routes.ts): the API's endpoints, the pages, /metrics and /inbound/mail in one
 * route table, found by one matcher, whose templates label the request log and the metrics. A HEAD request is
 * answered by its GET route without a body; an unknown path is a JSON 404 under /api and a page elsewhere; and
 * nothing in the server reaches the platform's router or its private functions.
 */
import { makeMetrics, silentLog, startServer } from "@convene/http"
import { openConvene } from "@convene/core"
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import t from "tap"
import { seedUser, tempDbFile } from "./helpers.js"

const { filename } = tempDbFile()
const convene = await openConvene({ database: filename })
const server = await startServer({
  store: convene.store, port: 0, host: "127.0.0.1",
  telemetry: { log: silentLog(), metrics: makeMetrics(convene.store) },
  settings: { b3ApiKey: undefined, baseUrl: "http://convene.test", maxBodyBytes: 64 * 1024, version: "test", inbound: { replyHost: "reply.convene.test", secret: "inbound-secret-0123456789" } }
})
t.teardown(async () => {
  await server.close()
  await convene.close()
})
const ada = await seedUser(convene, { name: "Ada", email: "ada@example.org" })
const { group } = await convene.groups.create({ name: "Garden", owner: ada.user })
const send = (path: string, init: RequestInit = {}) => fetch(`${server.url}${path}`, { redirect: "manual", ...init })

t.test("HEAD is answered by the GET route, without a body; a page's path may end in a slash", async (t) => {
  for (const path of ["/sign-in", "/healthz", `/api/b2/groups/${group.id}`]) {
    const get = await send(path, { headers: { authorization: `Bearer ${ada.apiKey}` } })
    const head = await send(path, { method: "HEAD", headers: { authorization: `Bearer ${ada.apiKey}` } })
    t.equal(head.status, get.status, `HEAD ${path}: as GET`)
    t.equal(head.headers.get("content-type"), get.headers.get("content-type"))
    t.equal(await head.text(), "", "no body")
  }
  t.equal((await send("/sign-in/")).status, 200)
})

t.test("an unknown path or method: JSON under /api, a page elsewhere", async (t) => {
  const api = await send("/api/b2/nothing")
  t.equal(api.status, 404)
  t.same(await api.json(), { error: "Not found" })
  const wrongMethod = await send("/api/b2/groups", { method: "DELETE", headers: { authorization: `Bearer ${ada.apiKey}` } })
  t.equal(wrongMethod.status, 404)
  t.same(await wrongMethod.json(), { error: "Not found" })
  const page = await send("/no/such/page")
  t.equal(page.status, 404)
  t.match(page.headers.get("content-type"), /^text\/html/)
  t.match(await page.text(), /<html lang="en"/)
  const pageMethod = await send("/sign-in", { method: "DELETE" })
  t.equal(pageMethod.status, 404)
  t.match(pageMethod.headers.get("content-type"), /^text\/html/)
})

t.test("the metrics label every request by the template its route was found by", async (t) => {
  await send(`/g/${group.key}`)
  await send(`/api/b2/discussions/nothing`, { headers: { authorization: `Bearer ${ada.apiKey}` } })
  await send("/inbound/mail", { method: "POST", headers: { authorization: "Bearer wrong" }, body: "x" })
  await send("/profile", { method: "HEAD" })
  await send("/nowhere/at/all", { method: "PUT" })
  const text = await (await send("/metrics")).text()
  // a secret group, signed out: the page's template, whatever it answered
  t.match(text, /convene_http_requests_total\{method="GET",route="\/g\/:key",status="403"\} 1\n/)
  t.match(text, /convene_http_requests_total\{method="GET",route="\/api\/b2\/discussions\/:id",status="404"\} 1\n/)
  t.match(text, /convene_http_requests_total\{method="POST",route="\/inbound\/mail",status="401"\} 1\n/)
  t.match(text, /convene_http_requests_total\{method="HEAD",route="\/profile",status="303"\} 1\n/, "a HEAD by its GET route's template")
  t.match(text, /convene_http_requests_total\{method="PUT",route="unmatched",status="404"\} 1\n/)
})

t.test("the server reaches neither the platform's router and HttpApiBuilder nor a private function of the platform", async (t) => {
  const sources = (dir: string): Array<string> =>
    readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? sources(join(dir, name)) : name.endsWith(".ts") ? [join(dir, name)] : []))
  const offenders = sources(join(process.cwd(), "packages/http/src")).flatMap((file) => {
    const text = readFileSync(file, "utf8")
    const found = [...text.matchAll(/from "@effect\/platform\/(HttpApiBuilder|HttpRouter|HttpApp|HttpMiddleware|HttpServer|HttpPlatform)"/g)].map((m) => m[1])
    if (/as unknown as \{[^}]*\}\)\.\w+/.test(text.replace(/\s+/g, " ")) && /@effect\/platform\/\w+"/.test(text)) found.push("a cast to reach an unexported member")
    return found.map((what) => `${file.slice(process.cwd().length + 1)}: ${what}`)
  })
  t.same(offenders, [])
})
