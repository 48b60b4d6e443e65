/**
 * What an answer carries and who the client is (decisions §6, amended): every API answer is `nosniff`,
 * `no-store` and `default-src 'none'`; a page form over the body limit is a 413 page, not a reset connection;
 * behind a trusted proxy each client is counted by the address X-Forwarded-For gives (an IPv6 client by its
 * /64), and from any other peer that header is ignored; a CONVENE_TRUSTED_PROXIES that is not addresses stops
 * `serve` with a message naming the entry.
 */
import { Rules } from "@convene/core"
import { request as httpRequest } from "node:http"
import t from "tap"
import { browserSession, runBin, seedUser, startTestServer, tempDbFile } from "./helpers.js"

t.test("API answers: nosniff, no-store and a CSP that allows nothing, on success and on every refusal", async (t) => {
  const s = await startTestServer()
  t.teardown(s.close)
  const ada = await seedUser(s.convene, { name: "Ada" })
  const A = s.as(ada.apiKey)
  // a name beyond ASCII: an answer's length is its bytes, not its characters
  await s.convene.groups.create({ name: "Gärtnerei 🌱", owner: ada.user })
  const answers = {
    "200": await A.get("api/b2/groups"),
    "403 (no key)": await s.api.get("api/b2/groups"),
    "404 (unknown API path)": await A.get("api/b2/nothing-here"),
    "400 (bad JSON)": await A.post("api/b2/discussions", { body: "{not json", headers: { "content-type": "application/json" } }),
    "422 (a blank title)": await A.post("api/b2/discussions", { json: { group_id: (await s.convene.groups.create({ name: "G", owner: ada.user })).group.id, title: " " } }),
    "/healthz": await s.api.get("healthz"),
    "the OpenAPI document": await s.api.get("api/b2/openapi.json")
  }
  for (const [what, res] of Object.entries(answers)) {
    t.equal(res.headers["x-content-type-options"], "nosniff", `${what}: nosniff`)
    t.equal(res.headers["cache-control"], "no-store", `${what}: no-store`)
    t.equal(res.headers["content-security-policy"], "default-src 'none'; frame-ancestors 'none'", `${what}: CSP`)
    t.match(res.headers["content-type"], /^application\/json/, `${what}: JSON`)
    t.equal(Number(res.headers["content-length"]), res.rawBody.length, `${what}: its length in bytes`)
  }
  t.match(answers["200"].rawBody.toString("utf8"), /"Gärtnerei 🌱"/)
  t.same(Object.keys(answers).map((k) => answers[k as keyof typeof answers].statusCode), [200, 403, 404, 400, 422, 200, 200])
})

/** A POST of `size` bytes of form body, sent with Content-Length or chunked; the status, or the socket's error. */
const post = (url: string, path: string, size: number, chunked: boolean) =>
  new Promise<{ status?: number; body?: string; error?: string }>((resolve) => {
    const u = new URL(url)
    const body = Buffer.alloc(size, "a")
    const req = httpRequest({
      host: u.hostname, port: u.port, path, method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", ...(chunked ? { "transfer-encoding": "chunked" } : { "content-length": String(size) }) }
    }, (res) => {
      let text = ""
      res.on("data", (d) => (text += d))
      res.on("end", () => resolve({ status: res.statusCode, body: text }))
    })
    req.on("error", (e) => resolve({ error: (e as NodeJS.ErrnoException).code ?? e.message }))
    req.end(body)
  })

t.test("a 2 MB form on a page route, with its Content-Length or chunked, answers a 413 page and writes nothing; a small chunked form is read whole", async (t) => {
  const s = await startTestServer({ maxBodyBytes: 1024 * 1024 })
  t.teardown(s.close)
  const r = await post(s.url, "/sign-in", 2 * 1024 * 1024, false)
  t.equal(r.error, undefined, "an answer, not a reset")
  t.equal(r.status, 413, "413")
  t.match(r.body, /<html[^>]*>[\s\S]*larger than this server accepts/, "a page in the layout saying so")
  t.same(await s.sql("SELECT count(*) AS n FROM rate_events"), [{ n: 0 }], "nothing written")
  const chunked = await post(s.url, "/sign-in", 2 * 1024 * 1024, true)
  t.equal(chunked.error, undefined, "chunked (no Content-Length): an answer, not a reset")
  t.equal(chunked.status, 413, "chunked: 413")
  t.match(chunked.body, /larger than this server accepts/)
  t.same(await s.sql("SELECT count(*) AS n FROM rate_events"), [{ n: 0 }], "nothing written")
  // a small chunked form still reaches its page whole (its body read here, then replayed)
  const b = browserSession(s.url)
  await b.get("/sign-in")
  const form = new URLSearchParams({ csrf: b.cookies.get("convene_csrf")!, email: "someone@example.org" }).toString()
  const small = await fetch(`${s.url}/sign-in`, {
    method: "POST", duplex: "half", redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: [...b.cookies].map(([k, v]) => `${k}=${v}`).join("; ") },
    body: new ReadableStream({ start: (c) => { c.enqueue(new TextEncoder().encode(form)); c.close() } })
  } as RequestInit)
  t.equal(small.status, 200, "a small chunked form is read")
  t.match(await small.text(), /a 6-digit code is on its way/, "whole: the code page for the address it named")
  const api = await post(s.url, "/api/b2/discussions", 2 * 1024 * 1024, true)
  t.equal(api.status, 413, "the API answers 413 too, even to a chunked body")
  t.match(api.body, /^\{"error":/, "as JSON")
})

/** `n` sign-in requests from one browser, at once: their statuses. */
const ask = (b: ReturnType<typeof browserSession>, n: number, tag: string) =>
  Promise.all(Array.from({ length: n }, async (_, i) => (await b.post("/sign-in", { email: `${tag}-${i}@example.org` })).status))

t.test("behind a trusted proxy each client is counted apart (an IPv6 client by its /64); from any other peer the header is ignored", async (t) => {
  const s = await startTestServer({ trustedProxies: Rules.trustedProxiesFrom("127.0.0.1/32, ::1/128") })
  t.teardown(s.close)
  /** A browser whose requests reach the server through the proxy on 127.0.0.1, for the client `client`. */
  const through = async (client: string, from = "127.0.0.1") => {
    const b = browserSession(s.url, { from, headers: { "x-forwarded-for": `198.51.100.7, ${client}` } })
    await b.get("/sign-in")
    return b
  }
  const first = await through("203.0.113.1")
  t.same(await ask(first, 30, "first"), Array(30).fill(200), "one client: its 30")
  t.equal((await first.post("/sign-in", { email: "first-more@example.org" })).status, 429, "then refused")
  const second = await through("203.0.113.2")
  t.equal((await second.post("/sign-in", { email: "second@example.org" })).status, 200, "another client behind the same proxy is not")
  // the right-most untrusted address is the client: what the client itself wrote further left proves nothing
  const spoofing = browserSession(s.url, { from: "127.0.0.1", headers: { "x-forwarded-for": "203.0.113.99, 203.0.113.1" } })
  await spoofing.get("/sign-in")
  t.equal((await spoofing.post("/sign-in", { email: "spoof@example.org" })).status, 429, "a forged left-hand address does not escape the limit")

  const v6a = await through("2001:db8:1:2::5")
  t.same(await ask(v6a, 30, "v6a"), Array(30).fill(200))
  const v6b = await through("2001:db8:1:2:ffff::9")
  t.equal((await v6b.post("/sign-in", { email: "v6b@example.org" })).status, 429, "another address of the same /64 is the same client")
  const v6c = await through("2001:db8:1:3::1")
  t.equal((await v6c.post("/sign-in", { email: "v6c@example.org" })).status, 200, "another /64 is not")

  // a peer that is not a trusted proxy: its X-Forwarded-For is ignored, whatever it says
  const direct = browserSession(s.url, { from: "127.0.0.9", headers: { "x-forwarded-for": "203.0.113.50" } })
  await direct.get("/sign-in")
  t.same(await ask(direct, 30, "direct"), Array(30).fill(200))
  const changed = browserSession(s.url, { from: "127.0.0.9", headers: { "x-forwarded-for": "203.0.113.51" } })
  await changed.get("/sign-in")
  t.equal((await changed.post("/sign-in", { email: "direct-more@example.org" })).status, 429, "a new X-Forwarded-For from an untrusted peer is still that peer")
})

t.test("behind a trusted proxy that sends only RFC 7239 Forwarded, each client is counted apart", async (t) => {
  const s = await startTestServer({ trustedProxies: Rules.trustedProxiesFrom("127.0.0.1/32, ::1/128") })
  t.teardown(s.close)
  const through = async (forwarded: string) => {
    const b = browserSession(s.url, { from: "127.0.0.1", headers: { forwarded } })
    await b.get("/sign-in")
    return b
  }
  const first = await through("for=198.51.100.7")
  t.same(await ask(first, 30, "fwd-first"), Array(30).fill(200), "one client: its 30")
  t.equal((await first.post("/sign-in", { email: "fwd-first-more@example.org" })).status, 429, "then refused")
  const second = await through("for=198.51.100.8;proto=https;by=127.0.0.1")
  t.equal((await second.post("/sign-in", { email: "fwd-second@example.org" })).status, 200, "another client behind the same proxy is not")
  // the same client with a port, or as the right-most of several elements (what a client wrote on the left proves nothing)
  const withPort = await through(`for="198.51.100.7:4711"`)
  t.equal((await withPort.post("/sign-in", { email: "fwd-port@example.org" })).status, 429, "a port does not make another client")
  const chained = await through(`for=203.0.113.99, for=198.51.100.7;proto=https`)
  t.equal((await chained.post("/sign-in", { email: "fwd-chain@example.org" })).status, 429, "the right-most untrusted element is the client")
  const v6 = await through(`for="[2001:db8:cafe::17]:4711"`)
  t.same(await ask(v6, 30, "fwd-v6"), Array(30).fill(200), "an IPv6 client, quoted in brackets with a port")
  const v6same = await through(`For="[2001:db8:cafe::99]"`)
  t.equal((await v6same.post("/sign-in", { email: "fwd-v6-more@example.org" })).status, 429, "the same /64, without a port")
  // X-Forwarded-For, when the proxy sends it, is read first; from an untrusted peer neither header counts
  const direct = browserSession(s.url, { from: "127.0.0.9", headers: { forwarded: "for=198.51.100.77" } })
  await direct.get("/sign-in")
  t.same(await ask(direct, 30, "fwd-direct"), Array(30).fill(200))
  const changed = browserSession(s.url, { from: "127.0.0.9", headers: { forwarded: "for=198.51.100.78" } })
  await changed.get("/sign-in")
  t.equal((await changed.post("/sign-in", { email: "fwd-direct-more@example.org" })).status, 429, "an untrusted peer's Forwarded is ignored")
})

t.test("CONVENE_TRUSTED_PROXIES that is not addresses or CIDRs stops serve, naming the entry", async (t) => {
  const { filename } = tempDbFile()
  const r = await runBin(["serve", "--port", "0", "--db", filename], { CONVENE_TRUSTED_PROXIES: "127.0.0.1/32,proxy.example" })
  t.not(r.code, 0, "serve does not start")
  t.match(r.stderr, /CONVENE_TRUSTED_PROXIES: proxy\.example is not an address or a CIDR/)
})
