/**
 * Decisions §10 "ID token signature": the ID token that comes straight from the token endpoint is verified against
 * the provider's JWKS. A provider here (discovery, authorization, token endpoint, JWKS; no userinfo, so the ID
 * token alone names the person) answers with a token signed by its own key (signs in), by another key under the
 * same key id, or with `alg: none` (both sign nobody in, with a page saying so).
 */
import { ssoFromEnv } from "@convene/http"
import { createServer, type Server } from "node:http"
import { generateKeyPairSync, type KeyObject, sign } from "node:crypto"
import { once } from "node:events"
import got from "got"
import t from "tap"
import { browserSession, startTestServer } from "./helpers.js"

const CLIENT_ID = "convene"
const own = generateKeyPairSync("rsa", { modulusLength: 2048 })
const other = generateKeyPairSync("rsa", { modulusLength: 2048 })
const b64 = (v: unknown) => Buffer.from(typeof v === "string" ? v : JSON.stringify(v)).toString("base64url")

type Signing = "own key" | "another key" | "alg none"
let signing: Signing = "own key"
let issuer = ""
const nonces = new Map<string, string>()

const idToken = (nonce: string, sub: string) => {
  const now = Math.floor(Date.now() / 1000)
  const claims = { iss: issuer, aud: CLIENT_ID, sub, email: `${sub}@example.org`, email_verified: true, name: sub, nonce, iat: now, exp: now + 300 }
  if (signing === "alg none") return `${b64({ alg: "none", typ: "JWT" })}.${b64(claims)}.`
  const input = `${b64({ alg: "RS256", kid: "k1", typ: "JWT" })}.${b64(claims)}`
  const key: KeyObject = signing === "own key" ? own.privateKey : other.privateKey
  return `${input}.${sign("sha256", Buffer.from(input), key).toString("base64url")}`
}

let sub = ""
const provider: Server = createServer((req, res) => {
  const url = new URL(req.url!, issuer)
  const json = (body: unknown) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body))
  if (url.pathname === "/.well-known/openid-configuration") {
    return json({
      issuer, authorization_endpoint: `${issuer}/authorize`, token_endpoint: `${issuer}/token`, jwks_uri: `${issuer}/jwks`,
      response_types_supported: ["code"], subject_types_supported: ["public"], id_token_signing_alg_values_supported: ["RS256"],
      code_challenge_methods_supported: ["S256"], token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"]
    })
  }
  if (url.pathname === "/jwks") return json({ keys: [{ ...own.publicKey.export({ format: "jwk" }), kid: "k1", alg: "RS256", use: "sig" }] })
  if (url.pathname === "/authorize") {
    const code = `code-${nonces.size}`
    nonces.set(code, url.searchParams.get("nonce")!)
    const back = new URL(url.searchParams.get("redirect_uri")!)
    back.searchParams.set("code", code)
    back.searchParams.set("state", url.searchParams.get("state")!)
    return res.writeHead(302, { location: back.href }).end()
  }
  if (url.pathname === "/token" && req.method === "POST") {
    let body = ""
    req.on("data", (c) => (body += c))
    req.on("end", () => {
      const code = new URLSearchParams(body).get("code")!
      json({ access_token: "at", token_type: "Bearer", expires_in: 300, id_token: idToken(nonces.get(code)!, sub) })
    })
    return
  }
  res.writeHead(404).end()
})
provider.listen(0, "127.0.0.1")
await once(provider, "listening")
issuer = `http://127.0.0.1:${(provider.address() as { port: number }).port}`
t.teardown(() => provider.close())

const s = await startTestServer({
  sso: ssoFromEnv({ OIDC_ISSUER: issuer, OIDC_CLIENT_ID: CLIENT_ID, OIDC_CLIENT_SECRET: "s3cret", OIDC_PROVIDER_NAME: "Acme ID" })
})
t.teardown(s.close)

/** A browser through the provider's sign-in and back: the callback's answer. */
const throughProvider = async (as: string) => {
  sub = as
  const b = browserSession(s.url)
  await b.get("/sign-in")
  const started = await b.post("/auth/oidc", {})
  t.equal(started.status, 303, "off to the provider")
  const authorized = await got(started.headers.get("location")!, { followRedirect: false, throwHttpErrors: false })
  const callback = new URL(authorized.headers.location!)
  return b.get(`${callback.pathname}${callback.search}`)
}
const sessionCookie = (res: { headers: Headers }) => res.headers.getSetCookie().some((c) => c.startsWith("convene_session=") && !/max-age=0/i.test(c))
const accounts = async (uid: string) => (await s.sql(`SELECT user_id FROM identities WHERE uid = ?`, uid)).length

t.test("a token signed by the provider's own key signs the person in", async (t) => {
  signing = "own key"
  const res = await throughProvider("ivy")
  t.equal(res.status, 303)
  t.ok(sessionCookie(res), "a session")
  t.equal(await accounts("ivy"), 1)
})

for (const bad of ["another key", "alg none"] as const) {
  t.test(`a token signed with ${bad} signs nobody in`, async (t) => {
    signing = bad
    const uid = `mallory-${bad.replace(" ", "-")}`
    const res = await throughProvider(uid)
    t.equal(res.status, 400, "a page saying the sign-in failed")
    t.match(res.html, /Sign-in failed|could not be completed|did not/i)
    t.notOk(sessionCookie(res), "no session")
    t.equal(await accounts(uid), 0, "no account or identity made")
  })
}
