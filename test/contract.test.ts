/**
 * Loomio's contract, operation by operation (test/loomio-contract.ts lists its 48 operations): each answers
 * a valid request with 200 and a body that validates (Ajv 2020) against the schema our served document
 * declares for it, and answers schema-invalid requests with a 4xx whose body validates against the
 * declared error schema: never a 5xx. Requests are written from the contract's parameters and schemas.
 */
import { Ajv2020 } from "ajv/dist/2020.js"
import addFormats from "ajv-formats"
import t from "tap"
import { B3_KEY, seedUser, startTestServer, future } from "./helpers.js"
import { LOOMIO_OPERATIONS } from "./loomio-contract.js"
import { startReceiver } from "./receiver.js"

const s = await startTestServer({ allowPrivateWebhooks: true })
t.teardown(s.close)
const receiver = await startReceiver()
t.teardown(receiver.close)

const docs = {
  b2: (await s.api.get("api/b2/openapi.json")).body as any,
  b3: (await s.api.get("api/b3/openapi.json")).body as any
}
const ajv = new Ajv2020({ strict: false, allErrors: true })
;(addFormats as unknown as (a: Ajv2020) => void)(ajv)

/** Validates a body against the schema the served document declares for this operation and status. */
const conforms = (method: string, path: string, status: number, body: unknown): string | null => {
  const doc = path.startsWith("/api/b3") ? docs.b3 : docs.b2
  const response = doc.paths[path]?.[method]?.responses?.[String(status)]
  if (response === undefined) return `status ${status} is not documented for ${method} ${path}`
  const schema = response.content?.["application/json"]?.schema
  if (schema === undefined) return null
  const validate = ajv.compile({ ...schema, components: doc.components })
  return validate(body) ? null : ajv.errorsText(validate.errors)
}

const admin = await seedUser(s.convene, { name: "Admin" })
const member = await seedUser(s.convene, { name: "Member" })
const { group } = await s.convene.groups.create({ name: "Contract", owner: admin.user, handle: "contract" })
await s.convene.members.add({ group, user: member.user })
const A = s.as(admin.apiKey)
const identity = { identity_type: "oauth", uid: "contract-1" }
const ident = await s.convene.users.create({ email: "ident@example.org", name: "Ident", identity })

const create = async (path: string, json: unknown) => {
  const res = await A.post(path.slice(1), { json })
  if (res.statusCode !== 200) throw new Error(`${path}: ${res.statusCode} ${JSON.stringify(res.body)}`)
  return res.body as any
}

interface Call {
  readonly path: string
  readonly url: string
  readonly json?: unknown
  readonly b3?: boolean
  /** schema-invalid variants of the request, each answered 4xx */
  readonly invalid: ReadonlyArray<{ readonly url?: string; readonly json?: unknown }>
}

/** A fresh record per operation that changes or deletes one, so the operations do not depend on each other. */
const discussion = async () => (await create("/api/b2/discussions", { group_id: group.id, title: "Thread", description: "Text" })).discussions[0]
const comment = async () => (await create("/api/b2/comments", { discussion_id: (await discussion()).id, body: "Hello" })).comments[0]
const poll = async () =>
  (await create("/api/b2/polls", { group_id: group.id, title: "Lunch", poll_type: "proposal", closing_at: future(7 * 24) })).polls[0]
const webhook = async () =>
  (await create("/api/b2/chatbots", { group_id: group.id, name: "Hook", server: receiver.url, event_kinds: ["new_discussion"] })).chatbots[0]
const serverUser = async () => (await s.convene.users.create({ email: `u${Date.now()}${Math.random()}@example.org`, name: "U" })).user

const calls = async (method: string, path: string): Promise<Call> => {
  const bad = { json: { group_id: "not a number" } }
  switch (`${method} ${path}`) {
    case "get /api/b2/groups":
      return { path, url: "api/b2/groups", invalid: [{ url: "api/b2/groups?compact=2" }] }
    case "get /api/b2/groups/{id}":
      return { path, url: `api/b2/groups/${group.key}`, invalid: [{ url: "api/b2/groups/no-such-group" }, { url: `api/b2/groups/${group.id}?compact=yes` }] }
    case "get /api/b2/discussions":
      return {
        path, url: `api/b2/discussions?group_id=${group.id}&limit=500&offset=0&status=all`,
        invalid: [{ url: "api/b2/discussions" }, { url: `api/b2/discussions?group_id=${group.id}&limit=0` }, { url: `api/b2/discussions?group_id=x` }]
      }
    case "post /api/b2/discussions":
      return {
        path, url: "api/b2/discussions", json: { group_id: group.id, title: "New", description_format: "md", recipient_audience: null },
        invalid: [bad, { json: { group_id: group.id, title: 5 } }, { json: { group_id: group.id, title: "x", colour: "red" } }]
      }
    case "get /api/b2/discussions/{id}":
      return { path, url: `api/b2/discussions/${(await discussion()).key}`, invalid: [{ url: "api/b2/discussions/999999" }] }
    case "patch /api/b2/discussions/{id}":
    case "put /api/b2/discussions/{id}":
      return {
        path, url: `api/b2/discussions/${(await discussion()).id}`, json: { title: "Renamed" },
        invalid: [{ json: {} }, { json: { title: ["x"] } }, { json: { description_format: "rtf" } }]
      }
    case "delete /api/b2/discussions/{id}":
      return { path, url: `api/b2/discussions/${(await discussion()).id}`, invalid: [{ url: "api/b2/discussions/abc" }] }
    case "get /api/b2/threads":
      return { path, url: "api/b2/threads?limit=500", invalid: [{ url: "api/b2/threads?offset=-1" }, { url: "api/b2/threads?limit=1.5" }] }
    case "get /api/b2/threads/{id}":
    case "get /api/b2/threads/{id}/items":
    case "get /api/b2/threads/{id}/markdown": {
      const topic = (await discussion()).topic_id
      return { path, url: `api/b2/${path.slice(8).replace("{id}", String(topic))}`, invalid: [{ url: `api/b2/${path.slice(8).replace("{id}", "x")}` }] }
    }
    case "post /api/b2/comments":
      return {
        path, url: "api/b2/comments", json: { discussion_id: (await discussion()).id, body: "A comment", body_format: "md" },
        invalid: [{ json: { body: "no discussion" } }, { json: { discussion_id: "one", body: "x" } }, { json: { discussion_id: 1, body: "x", mood: 1 } }]
      }
    case "patch /api/b2/comments/{id}":
    case "put /api/b2/comments/{id}":
      return { path, url: `api/b2/comments/${(await comment()).id}`, json: { body: "Edited" }, invalid: [{ json: {} }, { json: { body_format: "doc" } }] }
    case "delete /api/b2/comments/{id}":
      return { path, url: `api/b2/comments/${(await comment()).id}`, invalid: [{ url: "api/b2/comments/-1" }] }
    case "get /api/b2/polls":
      return {
        path, url: `api/b2/polls?group_id=${group.id}&limit=500&status=all`,
        invalid: [{ url: "api/b2/polls" }, { url: `api/b2/polls?group_id=${group.id}&status=maybe` }]
      }
    case "post /api/b2/polls":
      return {
        path, url: "api/b2/polls",
        json: {
          group_id: group.id, title: "Where?", poll_type: "poll", details: "d", details_format: "md", options: ["here", "there"],
          closing_at: future(7 * 24), specified_voters_only: false, hide_results: "off", shuffle_options: false, anonymous: false,
          recipient_audience: null, notify_on_closing_soon: "nobody", recipient_user_ids: [], recipient_emails: [], recipient_message: "m",
          notify_recipients: false
        },
        invalid: [bad, { json: { group_id: group.id, title: "x", poll_type: "poll", options: "a" } }, { json: { group_id: group.id, title: "x", poll_type: "poll", notify_recipients: "maybe" } }]
      }
    case "get /api/b2/polls/{id}":
      return { path, url: `api/b2/polls/${(await poll()).key}`, invalid: [{ url: "api/b2/polls/nope" }] }
    case "patch /api/b2/polls/{id}":
    case "put /api/b2/polls/{id}": {
      const p = await poll()
      return {
        path, url: `api/b2/polls/${p.id}`,
        // every field of the contract's PollInput is accepted on update (decisions §1 "Poll update fields")
        json: {
          group_id: group.id, discussion_id: null, poll_type: "proposal", title: "Lunch today", specified_voters_only: false,
          hide_results: "until_vote", shuffle_options: true, anonymous: true, notify_on_closing_soon: "voters"
        },
        invalid: [{ json: {} }, { json: { poll_type: "score" } }, { json: { hide_results: 3 } }, { json: { group_id: group.id + 1000 } }]
      }
    }
    case "delete /api/b2/polls/{id}":
      return { path, url: `api/b2/polls/${(await poll()).id}`, invalid: [{ url: "api/b2/polls/99999999" }] }
    case "get /api/b2/memberships":
      return { path, url: `api/b2/memberships?group_id=${group.id}&limit=500`, invalid: [{ url: "api/b2/memberships" }] }
    case "post /api/b2/memberships":
      return {
        path, url: "api/b2/memberships", json: { group_id: group.id, emails: [admin.user.email, member.user.email, "new@example.org"], remove_absent: 0 },
        invalid: [{ json: { group_id: group.id } }, { json: { group_id: group.id, emails: ["not an address"] } }, { json: { group_id: group.id, emails: [], remove_absent: 2 } }]
      }
    case "get /api/b2/reports":
      return {
        path, url: "api/b2/reports?section=users&group_scope=all&start_month=2026-01&end_month=2026-12&interval=month",
        invalid: [{ url: "api/b2/reports?section=nope" }, { url: "api/b2/reports?start_month=2026-13" }, { url: "api/b2/reports?interval=day&start_month=1000-01&end_month=1999-12" }]
      }
    case "get /api/b2/search":
      return {
        path, url: `api/b2/search?query=thread&group_id=${group.id}&type=Discussion&order=authored_at_desc`,
        invalid: [{ url: "api/b2/search?type=Group" }, { url: "api/b2/search?group_id=x" }]
      }
    case "get /api/b2/chatbots":
      return { path, url: `api/b2/chatbots?group_id=${group.id}`, invalid: [{ url: "api/b2/chatbots" }] }
    case "post /api/b2/chatbots":
      return {
        path, url: "api/b2/chatbots",
        json: { group_id: group.id, name: "Hook", kind: "webhook", webhook_kind: "slack", server: receiver.url, event_kinds: ["new_comment"], notification_only: false },
        invalid: [{ json: { name: "x" } }, { json: { group_id: group.id, name: "x", server: receiver.url, notification_only: "perhaps" } }]
      }
    case "post /api/b2/chatbots/check":
      return { path, url: "api/b2/chatbots/check", json: { group_id: group.id, server: receiver.url }, invalid: [{ json: { group_id: group.id } }] }
    case "patch /api/b2/chatbots/{id}":
    case "put /api/b2/chatbots/{id}":
      return { path, url: `api/b2/chatbots/${(await webhook()).id}`, json: { name: "Renamed" }, invalid: [{ json: {} }, { json: { event_kinds: "all" } }] }
    case "delete /api/b2/chatbots/{id}":
      return { path, url: `api/b2/chatbots/${(await webhook()).id}`, invalid: [{ url: "api/b2/chatbots/0" }] }
    case "get /api/b3/users":
      return { path, b3: true, url: "api/b3/users?is_admin=false", invalid: [{ url: "api/b3/users?is_admin=maybe" }] }
    case "get /api/b3/users/{id}":
      return { path, b3: true, url: `api/b3/users/${admin.user.id}`, invalid: [{ url: "api/b3/users/abc" }] }
    case "patch /api/b3/users/{id}":
    case "put /api/b3/users/{id}":
      return { path, b3: true, url: `api/b3/users/${(await serverUser()).id}`, json: { user: { name: "Renamed" } }, invalid: [{ json: {} }, { json: { user: { is_owner: true } } }] }
    case "delete /api/b3/users/{id}":
    case "post /api/b3/users/{id}/deactivate":
    case "post /api/b3/users/{id}/redact":
      return { path, b3: true, url: `api/b3/users/${(await serverUser()).id}${path.slice("/api/b3/users/{id}".length)}`, invalid: [{ url: `api/b3/users/x${path.slice("/api/b3/users/{id}".length)}` }] }
    case "post /api/b3/users/{id}/reactivate": {
      const u = await serverUser()
      await s.b3.post(`api/b3/users/${u.id}/deactivate`)
      return { path, b3: true, url: `api/b3/users/${u.id}/reactivate`, invalid: [{ url: "api/b3/users/999999/reactivate" }] }
    }
    case "get /api/b3/users/identity/{identity_type}/{uid}":
    case "patch /api/b3/users/identity/{identity_type}/{uid}":
      return {
        path, b3: true, url: `api/b3/users/identity/oauth/contract-1`, json: method === "patch" ? { user: { username: "ident" } } : undefined,
        invalid: [{ url: "api/b3/users/identity/oauth/nobody" }]
      }
    case "post /api/b3/users/identity/{identity_type}/{uid}/deactivate":
    case "post /api/b3/users/identity/{identity_type}/{uid}/reactivate":
    case "post /api/b3/users/identity/{identity_type}/{uid}/redact":
    case "delete /api/b3/users/identity/{identity_type}/{uid}": {
      const uid = `u-${Math.random()}`
      const u = await s.convene.users.create({ email: `${uid}@example.org`, name: "I", identity: { identity_type: "oauth", uid } })
      if (path.endsWith("reactivate")) await s.b3.post(`api/b3/users/${u.user.id}/deactivate`)
      const tail = path.slice("/api/b3/users/identity/{identity_type}/{uid}".length)
      return { path, b3: true, url: `api/b3/users/identity/oauth/${uid}${tail}`, invalid: [{ url: `api/b3/users/identity/oauth/missing${tail}` }] }
    }
    case "post /api/b3/users/deactivate":
    case "post /api/b3/users/reactivate": {
      const u = await serverUser()
      if (path.endsWith("reactivate")) await s.b3.post(`api/b3/users/${u.id}/deactivate`)
      return { path, b3: true, url: `${path.slice(1)}?id=${u.id}`, invalid: [{ url: path.slice(1) }, { url: `${path.slice(1)}?id=abc` }] }
    }
  }
  throw new Error(`no request written for ${method} ${path}`)
}

t.test("the document's schemas are strict enough to catch a wrong body", async (t) => {
  t.not(conforms("get", "/api/b2/groups", 200, { groups: [{ id: "1" }], meta: { root: "groups" } }), null, "a record missing fields")
  t.not(conforms("get", "/api/b2/discussions", 200, { discussions: [], meta: {} }), null, "meta without its root")
  t.not(conforms("get", "/api/b2/polls", 400, { message: "x" }), null, "an error body without error")
  t.not(conforms("get", "/api/b2/polls", 500, { error: "x" }), null, "an undocumented status")
})

t.test("every operation of Loomio's contract answers as it declares", async (t) => {
  t.ok(ident.user.id > 0)
  for (const [method, path] of LOOMIO_OPERATIONS) {
    const call = await calls(method, path)
    const client = call.b3 === true ? s.b3 : A
    const send = (url: string, json: unknown) =>
      client(url, { method: method.toUpperCase() as "GET", ...(json === undefined ? {} : { json }) })
    const res = await send(call.url, call.json)
    t.equal(res.statusCode, 200, `${method} ${path}: ${JSON.stringify(res.body).slice(0, 300)}`)
    t.equal(conforms(method, path, 200, res.body), null, `${method} ${path}: the body conforms to the document`)
    for (const variant of call.invalid) {
      const bad = await send(variant.url ?? call.url, variant.json ?? (variant.url === undefined ? undefined : call.json))
      const what = `${method} ${path} ${variant.url ?? JSON.stringify(variant.json)}`
      t.ok(bad.statusCode >= 400 && bad.statusCode < 500, `${what}: 4xx (got ${bad.statusCode})`)
      t.equal(conforms(method, path, bad.statusCode, bad.body), null, `${what}: the error body conforms`)
    }
  }
})

t.test("b3 refuses without the server secret, with the documented body", async (t) => {
  const res = await s.api.get("api/b3/users", { headers: { authorization: `Bearer ${B3_KEY}x` } })
  t.equal(res.statusCode, 403)
  t.equal(conforms("get", "/api/b3/users", 403, res.body), null)
})
