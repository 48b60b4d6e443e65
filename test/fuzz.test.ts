/**
 * Fuzzing every endpoint of the served documents (fast-check): wrong types, huge numbers, floats and
 * negatives as ids, long strings, invalid UTF-8, prototype keys, duplicate keys and odd content types in
 * paths, query strings and bodies. No answer is a 5xx, and a refused request (4xx) changes nothing. b3's
 * operations are sent with the b3 key, so its handlers are fuzzed too (not only its key check).
 */
import fc from "fast-check"
import t from "tap"
import { seedUser, startTestServer, STORE } from "./helpers.js"

/** FUZZ_RUNS and FUZZ_SEED widen or vary a run by hand; the suite runs a fixed seed. */
const RUNS = Number(process.env.FUZZ_RUNS ?? 500)
const s = await startTestServer({ allowPrivateWebhooks: false })
t.teardown(s.close)
// people b3 may deactivate, redact or delete (the small ids the fuzzer tries); the owner comes after them
for (let i = 0; i < 3; i++) await seedUser(s.convene, { name: `Target ${i}` })
const owner = await seedUser(s.convene, { name: "Owner" })
const { group } = await s.convene.groups.create({ name: "Fuzz", owner: owner.user })
const O = s.as(owner.apiKey)
const d = ((await O.post("api/b2/discussions", { json: { group_id: group.id, title: "Fuzzed" } })).body as any).discussions[0]
await O.post("api/b2/comments", { json: { discussion_id: d.id, body: "c" } })
await O.post("api/b2/polls", { json: { group_id: group.id, title: "P", poll_type: "proposal", closing_at: new Date(Date.now() + 86_400_000).toISOString() } })

const docs = [(await s.api.get("api/b2/openapi.json")).body as any, (await s.api.get("api/b3/openapi.json")).body as any]
const operations = docs.flatMap((doc) =>
  Object.entries<any>(doc.paths).flatMap(([path, methods]) =>
    Object.entries<any>(methods).map(([method, op]) => ({
      path,
      method: method.toUpperCase(),
      client: path.startsWith("/api/b3/") ? s.b3 : O,
      params: (op.parameters ?? []).filter((p: any) => p.in === "query").map((p: any) => p.name as string)
    }))))

const TABLES = ["users", "groups", "memberships", "topics", "discussions", "comments", "polls", "stances", "outcomes", "reactions", "chatbots", "mail_outbox", "webhook_events", "webhook_deliveries", "topic_items", "topic_readers"]
// one statement for every table's row count and latest change (the columns read once from each store's catalogue)
let snapshotSql: string | undefined
const columnsOf = async (table: string) =>
  STORE === "sqlite"
    ? ((await s.sql(`PRAGMA table_info(${table})`)) as Array<{ name: string }>).map((c) => c.name)
    : ((await s.sql(`SELECT column_name AS name FROM information_schema.columns WHERE table_name = ?`, table)) as Array<{ name: string }>).map((c) => c.name)
const snapshot = async () => {
  if (snapshotSql === undefined) {
    const parts: Array<string> = []
    for (const table of TABLES) {
      const stamp = (await columnsOf(table)).includes("updated_at") ? "max(updated_at)" : "NULL"
      parts.push(`SELECT '${table}' AS t, count(*) AS n, ${stamp} AS u FROM ${table}`)
    }
    snapshotSql = parts.join(" UNION ALL ")
  }
  return JSON.stringify(await s.sql(snapshotSql))
}

const weird = fc.oneof(
  fc.integer({ min: -1e15, max: 1e15 }).map(String),
  fc.double({ noNaN: false }).map(String),
  fc.constantFrom("__proto__", "constructor", "prototype", "0x10", "1e400", "-0", "", " ", "%00", "%FF%FE", "..%2F..", "null", "true", "[]", "{}"),
  fc.string({ maxLength: 40 }).map(encodeURIComponent),
  fc.string({ minLength: 2000, maxLength: 3000 }).map(encodeURIComponent)
)
const jsonValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.string({ maxLength: 30 }),
    fc.constant(Number.MAX_SAFE_INTEGER * 1000), fc.constant(-1), fc.constant(1.5),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(fc.oneof(fc.string({ maxLength: 10 }), fc.constantFrom("__proto__", "constructor", "group_id", "title", "user", "poll_id")), tie("value"), { maxKeys: 4 })
  )
})).value
const fieldNames = fc.constantFrom("group_id", "discussion_id", "poll_id", "title", "body", "options", "poll_type", "emails", "user", "server",
  "option_scores", "closing_at", "recipient_user_ids", "recipient_emails", "reactable_type", "reactable_id", "reaction", "__proto__", "api_key")
const body = fc.oneof(
  fc.dictionary(fieldNames, jsonValue, { maxKeys: 6 }).map((o) => ({ type: "application/json", text: JSON.stringify(o) })),
  fc.record({ a: fieldNames, v: jsonValue }).map(({ a, v }) => ({ type: "application/json", text: `{"${a}":1,"${a}":${JSON.stringify(v)}}` })),
  fc.string({ maxLength: 60 }).map((text) => ({ type: "application/json", text })),
  fc.uint8Array({ maxLength: 60 }).map((bytes) => ({ type: "application/json", bytes: Buffer.from([0x7b, 0x22, 0xff, 0xfe, ...bytes]) })),
  fc.dictionary(fieldNames, fc.string({ maxLength: 20 }), { maxKeys: 4 }).map((o) => ({ type: "application/x-www-form-urlencoded", text: new URLSearchParams(o).toString() })),
  fc.constantFrom("text/plain", "multipart/form-data; boundary=x", "application/xml", "").map((type) => ({ type, text: "<x/>" }))
)
const request = fc.record({
  op: fc.constantFrom(...operations),
  ids: fc.array(fc.oneof(weird, fc.constantFrom(String(d.id), String(group.id), group.key, "1")), { minLength: 3, maxLength: 3 }),
  query: fc.array(fc.tuple(fc.oneof(fc.constant("limit"), fc.constant("group_id"), fc.string({ maxLength: 8 })), weird), { maxLength: 4 }),
  body
})

t.test("no 5xx, and nothing changes on refusal", async (t) => {
  let requests = 0
  let refused = 0
  let b3Handled = 0
  await fc.assert(
    fc.asyncProperty(request, async ({ op, ids, query, body }) => {
      let i = 0
      const path = op.path.replace(/\{[^}]+\}/g, () => ids[i++]!)
      const q = [...query, ...op.params.slice(0, 2).map((p: string, k: number) => [p, ids[k]!] as const)]
        .map(([k, v]) => `${encodeURIComponent(k)}=${v}`).join("&")
      const before = await snapshot()
      const res = await op.client(`${path.slice(1)}${q === "" ? "" : `?${q}`}`, {
        method: op.method as "GET",
        responseType: "text",
        ...(op.method === "GET" || op.method === "DELETE" ? {} : {
          body: "bytes" in body ? body.bytes : body.text,
          headers: { "content-type": body.type }
        })
      })
      requests++
      if (op.client === s.b3 && res.statusCode !== 403) b3Handled++
      if (res.statusCode >= 500) throw new Error(`${op.method} ${path}?${q} → ${res.statusCode} ${res.body}`)
      if (res.statusCode >= 400) {
        refused++
        if ((await snapshot()) !== before) throw new Error(`${op.method} ${path}?${q} was refused (${res.statusCode}) but changed the database`)
        JSON.parse(res.body)
      }
    }),
    { numRuns: RUNS, seed: Number(process.env.FUZZ_SEED ?? 20261123) }
  )
  t.equal(requests, RUNS)
  t.ok(refused > RUNS / 2, `most fuzzed requests are refused (${refused})`)
  t.ok(b3Handled > 20, `b3's handlers answered past its key check (${b3Handled} times)`)
})
