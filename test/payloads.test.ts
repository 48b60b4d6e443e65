/**
 * Every payload is decoded from its endpoint's declaration before the handler runs, through the real server:
 * for each endpoint that declares a body, a body wrapped under the resource name with a field the declaration
 * does not have is 400 naming that field (so it was unwrapped and decoded by the declared Schema), even where
 * the path names no record (decoded before the handler looked for it); flat, it is refused the same way; and
 * without a key it is 403 before the body is read. Nothing is written.
 */
import { ConveneApi } from "@convene/http"
import t from "tap"
import { seedUser, startTestServer } from "./helpers.js"

const s = await startTestServer()
t.teardown(s.close)
const owner = await seedUser(s.convene, { name: "Owner" })
const O = s.as(owner.apiKey)
const count = async (table: string) => ((await s.sql(`SELECT count(*) AS n FROM ${table}`))[0] as { n: number }).n
const snapshot = () => Promise.all(["users", "groups", "discussions", "comments", "polls", "stances", "outcomes", "chatbots", "reactions", "mail_outbox"].map(count))

interface Declared {
  readonly name: string
  readonly path: string
  readonly method: string
  readonly payloadSchema: { readonly _tag: "Some" | "None" }
  readonly annotations: { readonly unsafeMap: ReadonlyMap<string, unknown> }
}
const groups = Object.values((ConveneApi as unknown as { groups: Record<string, { identifier: string; endpoints: Record<string, Declared> }> }).groups)
const withBodies = groups.flatMap((g) => Object.values(g.endpoints).map((e) => ({ group: g.identifier, ...e }))).filter((e) => e.payloadSchema._tag === "Some")
const rootOf = (e: Declared) => e.annotations.unsafeMap.get("@convene/http/BodyRoot") as string | undefined

t.ok(withBodies.length >= 25, `the endpoints with a body are found (${withBodies.length})`)

t.test("a wrapped or flat body with an undeclared field is 400 naming it, before the handler; 403 first without a key", async (t) => {
  const before = await snapshot()
  for (const e of withBodies) {
    const server = e.group.startsWith("b3.")
    const client = server ? s.b3 : O
    const url = e.path.replace(/^\//, "").replace(/:\w+/g, "999999")
    const root = rootOf(e)
    t.equal(root === undefined, server, `${e.name}: a Loomio resource name unless it is the Server API's {user}`)
    const send = (c: typeof O, json: object) => c(url, { method: e.method as "POST", json })
    const wrapped = await send(client, root === undefined ? { user: { undeclared_field: 1 } } : { [root]: { undeclared_field: 1 } })
    t.equal(wrapped.statusCode, 400, `${e.method} ${e.path} wrapped`)
    t.match(wrapped.body, { error: /undeclared_field/ }, `${e.name}: names the field`)
    if (root !== undefined) {
      const flat = await send(client, { undeclared_field: 1 })
      t.equal(flat.statusCode, 400, `${e.method} ${e.path} flat`)
      t.match(flat.body, { error: /undeclared_field/ }, `${e.name}: names the field`)
    }
    const anonymous = await send(s.api, root === undefined ? { user: { undeclared_field: 1 } } : { [root]: { undeclared_field: 1 } })
    t.equal(anonymous.statusCode, 403, `${e.name}: no key is refused before the body is read`)
  }
  t.same(await snapshot(), before, "nothing written")
})
