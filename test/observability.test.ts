/**
 * Logs and metrics (decisions §6) through the real binary: one JSON line per request with method, route,
 * status, duration and request id; X-Request-Id echoed or generated; no key, token, code or cookie in the
 * log; LOG_LEVEL obeyed; /metrics on loopback (or with METRICS_TOKEN) with requests, latency, outbox
 * depth and age, deliveries by result and scheduler runs.
 */
import { metricsAllowed } from "@convene/http"
import { rmSync } from "node:fs"
import t from "tap"
import { startReceiver } from "./receiver.js"
import { runHere, spawnServe, tempDbFile, until } from "./helpers.js"

const dbFile = (t: { teardown: (fn: () => void) => void }) => {
  const { dir, filename } = tempDbFile()
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return filename
}

t.test("one JSON line per request, with its request id, and no secret in the log", async (t) => {
  const filename = dbFile(t)
  const s = await spawnServe(filename, { CONVENE_SCHEDULER_INTERVAL_MS: "60000" })
  t.teardown(() => s.stop("SIGKILL"))
  const key = s.adminKey!
  const bearer = { authorization: `Bearer ${key}` }

  const echoed = await fetch(`${s.url}/api/b2/groups`, { headers: { ...bearer, "x-request-id": "trace-42.a" } })
  t.equal(echoed.status, 200)
  t.equal(echoed.headers.get("x-request-id"), "trace-42.a", "a safe X-Request-Id is echoed")
  const generated = await fetch(`${s.url}/healthz`)
  t.match(generated.headers.get("x-request-id"), /^[0-9a-f-]{36}$/, "one is generated when none is sent")
  const unsafe = await fetch(`${s.url}/healthz`, { headers: { "x-request-id": "x".repeat(129) } })
  t.match(unsafe.headers.get("x-request-id"), /^[0-9a-f-]{36}$/, "an over-long one is replaced")
  const notFound = await fetch(`${s.url}/no/such/page`)
  t.equal(notFound.status, 404)
  t.ok(notFound.headers.get("x-request-id"), "every response carries one, errors too")

  // secrets in every place a request carries them
  const queryKey = "querykey-0123456789abcdefghij"
  await fetch(`${s.url}/api/b2/discussions/123?api_key=${queryKey}`)
  await fetch(`${s.url}/api/b1/discussions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ api_key: "bodykey-9876543210zyxwvut", title: "x" }) })
  await fetch(`${s.url}/invitations/invitationtoken-abcdefghijklmnop`)
  await fetch(`${s.url}/profile/api_access`, { redirect: "manual", headers: { cookie: "convene_session=sessioncookie-abcdefghijkl; convene_csrf=csrfcookie-abcdefghijklmnopq" } })
  await fetch(`${s.url}/sign-in/code`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "email=ada%40example.org&code=864209" })
  await fetch(`${s.url}/sign-in/link/signinlinktoken-abcdefghijk`)
  await new Promise((r) => setTimeout(r, 200))

  const stdout = s.stdout()
  const log = stdout.split("\n").slice(1).join("\n")
  for (const secret of [key, queryKey, "bodykey-9876543210zyxwvut", "invitationtoken-abcdefghijklmnop", "sessioncookie-abcdefghijkl", "csrfcookie-abcdefghijklmnopq", "864209", "signinlinktoken-abcdefghijk"]) {
    t.notOk(log.includes(secret), `the log holds no ${secret.slice(0, 12)}…`)
  }
  const lines = s.logLines()
  const requests = lines.filter((l) => l.msg === "request")
  t.equal(requests.length, 10, "one line per request")
  t.match(requests[0], { level: "info", method: "GET", route: "/api/b2/groups", status: 200, req_id: "trace-42.a", ms: Number, time: String })
  t.same(requests.map((r) => r.route), [
    "/api/b2/groups", "/healthz", "/healthz", "unmatched", "/api/b2/discussions/:id", "/api/b1/discussions", "/invitations/:token",
    "/profile/api_access", "/sign-in/code", "/sign-in/link/:token"
  ], "routes are templates, never URLs")
  t.same(requests.map((r) => r.status), [200, 200, 200, 404, 403, 403, 404, 303, 403, 200])
  t.equal(await s.stop(), 0)
})

t.test("LOG_LEVEL=warn writes no request lines; an unknown level is refused", async (t) => {
  const filename = dbFile(t)
  const s = await spawnServe(filename, { LOG_LEVEL: "warn" })
  t.teardown(() => s.stop("SIGKILL"))
  t.equal((await fetch(`${s.url}/healthz`)).status, 200)
  await new Promise((r) => setTimeout(r, 100))
  t.same(s.logLines(), [])
  t.equal(await s.stop(), 0)
})

t.test("/metrics: requests, latency, outboxes, deliveries and scheduler runs", async (t) => {
  const filename = dbFile(t)
  const receiver = await startReceiver()
  t.teardown(receiver.close)
  const s = await spawnServe(filename, { CONVENE_ALLOW_PRIVATE_WEBHOOKS: "1", CONVENE_SCHEDULER_INTERVAL_MS: "50" })
  t.teardown(() => s.stop("SIGKILL"))
  const headers = { authorization: `Bearer ${s.adminKey}`, "content-type": "application/json" }
  const post = (path: string, body: unknown) => fetch(`${s.url}${path}`, { method: "POST", headers, body: JSON.stringify(body) })
  const { code: made, stdout: out } = await runHere(["groups", "create", "--name", "Ops", "--owner", "1", "--json", "--db", filename])
  t.equal(made, 0)
  const groupId = (JSON.parse(out) as { id: number }).id
  t.equal((await post("/api/b2/chatbots", { group_id: groupId, name: "r", server: receiver.url, event_kinds: ["new_discussion"] })).status, 200)
  t.equal((await post("/api/b2/discussions", { group_id: groupId, title: "Hello" })).status, 200)
  await receiver.waitFor(1)
  // an invitation by e-mail waits in the mail outbox: no transport is configured
  t.equal((await post("/api/b2/memberships", { group_id: groupId, emails: ["bea@example.org"] })).status, 200)
  // the worker counts a delivery once the receiver has answered, and the scheduler runs every 50 ms: scraped until
  // both are there (a busy machine's few hundred ms), not after a fixed wait
  const settled = (text: string) => /outbox="webhook",result="done"\} 1\n/.test(text) && Number(/convene_scheduler_runs_total (\d+)/.exec(text)?.[1]) >= 2
  let scrape: Response | undefined
  let text = ""
  await until(async () => {
    scrape = await fetch(`${s.url}/metrics`)
    text = await scrape.text()
    return settled(text)
  }, "the delivery and scheduler runs counted")
  t.equal(scrape!.status, 200)
  t.match(scrape!.headers.get("content-type"), /^text\/plain/)
  t.match(text, /convene_http_requests_total\{method="POST",route="\/api\/b2\/discussions",status="200"\} 1\n/)
  t.match(text, /convene_http_request_duration_seconds_bucket\{le="\+Inf",method="POST",route="\/api\/b2\/discussions"\} 1\n/)
  t.match(text, /convene_outbox_deliveries_total\{outbox="webhook",result="done"\} 1\n/)
  t.match(text, /convene_outbox_waiting\{outbox="mail"\} 1\n/)
  t.match(text, /convene_outbox_waiting\{outbox="webhook"\} 0\n/)
  t.match(text, /convene_outbox_oldest_waiting_seconds\{outbox="mail"\} [0-9.e-]+\n/)
  t.notMatch(text, /convene_outbox_oldest_waiting_seconds\{outbox="mail"\} 0\n/, "the waiting invitation has an age")
  const runs = Number(/convene_scheduler_runs_total (\d+)/.exec(text)?.[1])
  t.ok(runs >= 2, `the scheduler runs are counted (${runs})`)
  t.match(text, /convene_process_resident_memory_bytes \d+/, "and the process's own")
  const delivery = s.logLines().find((l) => l.msg === "webhook delivery")
  t.notOk(JSON.stringify(s.logLines()).includes(receiver.url), "a webhook's address is never logged (it may hold a token)")
  t.equal(delivery, undefined, "a successful delivery is logged at debug, below the default info")
  t.equal(await s.stop(), 0)
})

t.test("/metrics with METRICS_TOKEN wants the token", async (t) => {
  const filename = dbFile(t)
  const token = "metrics-token-0123456789"
  const s = await spawnServe(filename, { METRICS_TOKEN: token, LOG_LEVEL: "debug" })
  t.teardown(() => s.stop("SIGKILL"))
  t.equal((await fetch(`${s.url}/metrics`)).status, 403, "loopback is not enough once a token is set")
  t.equal((await fetch(`${s.url}/metrics`, { headers: { authorization: "Bearer wrong-token-0123456789x" } })).status, 403)
  const ok = await fetch(`${s.url}/metrics`, { headers: { authorization: `Bearer ${token}` } })
  t.equal(ok.status, 200)
  t.match(await ok.text(), /convene_http_requests_total\{method="GET",route="\/metrics",status="403"\} 2/)
  await new Promise((r) => setTimeout(r, 100))
  t.notOk(s.stdout().includes(token), "the token is not logged, even at debug")
  t.equal(await s.stop(), 0)
})

t.test("who may read /metrics", async (t) => {
  t.ok(metricsAllowed("127.0.0.1", undefined, undefined))
  t.ok(metricsAllowed("::1", undefined, undefined))
  t.ok(metricsAllowed("::ffff:127.0.0.1", undefined, undefined))
  t.notOk(metricsAllowed("10.0.0.5", undefined, undefined), "no token: loopback only")
  t.notOk(metricsAllowed("192.168.1.9", "Bearer anything", undefined))
  t.ok(metricsAllowed("10.0.0.5", "Bearer s3cret-token-xyz", "s3cret-token-xyz"), "with the token: from anywhere")
  t.notOk(metricsAllowed("127.0.0.1", undefined, "s3cret-token-xyz"))
  t.notOk(metricsAllowed("10.0.0.5", "Bearer s3cret-token-xy", "s3cret-token-xyz"))
})
