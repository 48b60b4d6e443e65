import { Effect } from "effect"
import t from "tap"
import { type Convene, EVENT_KINDS, Events, type EventKind, Store } from "@convene/core"
import { startReceiver } from "./receiver.js"
import { deliveriesSettled, seedUser, startTestServer, tempDbFile } from "./helpers.js"
import { matchExact } from "./match.js"

/** Publishes an event as a write would: inside a transaction. */
const publish = (s: { convene: Convene }, groupId: number, kind: EventKind, title = "Budget") =>
  s.convene.run(Effect.flatMap(Store, (store) => store.transaction(Events.publishEvent({
    kind,
    group_id: groupId,
    actor_id: null,
    eventable_type: "Discussion",
    eventable_id: 1,
    message: { headline: `Ada did ${kind}`, title, path: "/d/abc", body: "Some **body**", recipient_message: null }
  }))))

t.test("chatbots API: administrators only, validated, never moved", async (t) => {
  const s = await startTestServer({ allowPrivateWebhooks: false })
  t.teardown(s.close)
  const admin = await seedUser(s.convene)
  const member = await seedUser(s.convene)
  const outsider = await seedUser(s.convene)
  const group = (await s.convene.groups.create({ name: "G", owner: admin.user })).group
  const other = (await s.convene.groups.create({ name: "O", owner: admin.user })).group
  await s.convene.members.add({ group, user: member.user })
  const body = { group_id: group.id, name: "Team chat", server: "https://93.184.216.34/hook", event_kinds: ["new_discussion", "new_comment"] }

  const created = await s.as(admin.apiKey).post("api/b2/chatbots", { json: body })
  t.equal(created.statusCode, 200)
  const bot = (created.body as any).chatbots[0]
  matchExact(t, bot, { group_id: group.id, name: "Team chat", kind: "webhook", webhook_kind: "markdown", server: body.server,
    event_kinds: ["new_discussion", "new_comment"], notification_only: false, author_id: admin.user.id })
  t.same((created.body as any).meta, { root: "chatbots" })

  const list = await s.as(admin.apiKey).get(`api/b2/chatbots?group_id=${group.id}`)
  t.same((list.body as any).chatbots.map((c: any) => [c.id, c.server]), [[bot.id, body.server]])
  t.notOk("total" in (list.body as any).meta)

  for (const key of [member.apiKey, outsider.apiKey]) {
    const res = await s.as(key).get(`api/b2/chatbots?group_id=${group.id}`)
    t.equal(res.statusCode, 403)
    t.notMatch(JSON.stringify(res.body), /93\.184/, "no destination URL for non-administrators")
    t.equal((await s.as(key).patch(`api/b2/chatbots/${bot.id}`, { json: { name: "x" } })).statusCode, 403)
    t.equal((await s.as(key).delete(`api/b2/chatbots/${bot.id}`)).statusCode, 403)
    t.equal((await s.as(key).post("api/b2/chatbots", { json: body })).statusCode, 403)
  }

  const patched = await s.as(admin.apiKey).patch(`api/b2/chatbots/${bot.id}`, { json: { chatbot: { group_id: other.id, name: "Renamed", webhook_kind: "slack" } } })
  t.match((patched.body as any).chatbots[0], { group_id: group.id, name: "Renamed", webhook_kind: "slack" }, "group_id ignored")
  const put = await s.as(admin.apiKey).put(`api/b2/chatbots/${bot.id}`, { json: { notification_only: true } })
  t.equal((put.body as any).chatbots[0].notification_only, true)
  t.equal((await s.as(admin.apiKey).patch("api/b2/chatbots/9999", { json: { name: "x" } })).statusCode, 404)
  t.same((await s.sql("SELECT group_id, name FROM chatbots")), [{ group_id: group.id, name: "Renamed" }])

  t.test("bad input: 4xx naming the field, nothing saved", async (t) => {
    const cases: Array<[any, number, RegExp]> = [
      [{ ...body, server: "not a url" }, 422, /server/],
      [{ ...body, server: "ftp://93.184.216.34/x" }, 422, /server/],
      [{ ...body, server: "http://localhost:9/x" }, 422, /server/],
      [{ ...body, server: "http://127.0.0.1/x" }, 422, /server/],
      [{ ...body, server: "http://[::1]/x" }, 422, /server/],
      [{ ...body, server: "http://10.0.0.1/x" }, 422, /server/],
      [{ ...body, server: "http://169.254.169.254/latest" }, 422, /server/],
      [{ ...body, event_kinds: ["new_discussion", "bogus"] }, 422, /event_kinds/],
      [{ ...body, webhook_kind: "telegram" }, 422, /webhook_kind/],
      [{ ...body, kind: "irc" }, 422, /kind/],
      [{ ...body, kind: "matrix", webhook_kind: "slack" }, 422, /webhook_kind/],
      [{ ...body, name: " " }, 422, /name/],
      [{ group_id: group.id, name: "x" }, 422, /server/],
      [{ name: "x", server: body.server }, 400, /group_id/],
      [{ ...body, event_kinds: "new_comment" }, 400, /event_kinds/],
      [{ ...body, secret: "x" }, 400, /secret/]
    ]
    for (const [json, status, field] of cases) {
      const res = await s.as(admin.apiKey).post("api/b2/chatbots", { json })
      t.equal(res.statusCode, status, JSON.stringify(json))
      t.match(JSON.stringify(res.body), field)
      if (status === 422) t.ok((res.body as any).errors, "422 carries errors")
    }
    const patchBad = await s.as(admin.apiKey).patch(`api/b2/chatbots/${bot.id}`, { json: { server: "http://127.0.0.1:1/" } })
    t.equal(patchBad.statusCode, 422)
    t.equal((await s.sql("SELECT count(*) AS n FROM chatbots"))[0]!.n, 1)
    t.equal((await s.sql<any>("SELECT server FROM chatbots"))[0].server, body.server)
  })

  t.test("delete stops future deliveries", async (t) => {
    await publish(s, group.id, "new_discussion")
    t.equal((await s.sql("SELECT * FROM webhook_deliveries")).length, 1)
    const res = await s.as(admin.apiKey).delete(`api/b2/chatbots/${bot.id}`)
    t.same(res.body, { success: true })
    t.same((await s.sql("SELECT * FROM chatbots")), [])
    t.same((await s.sql("SELECT * FROM webhook_deliveries")), [], "pending deliveries are gone")
  })
})

t.test("delivery to a real receiver in every format", async (t) => {
  const receiver = await startReceiver()
  const s = await startTestServer({ allowPrivateWebhooks: true }, { worker: {} })
  t.teardown(async () => { await s.close(); await receiver.close() })
  const admin = await seedUser(s.convene)
  const group = (await s.convene.groups.create({ name: "G", owner: admin.user })).group
  const other = (await s.convene.groups.create({ name: "O", owner: admin.user })).group
  const required: Record<string, Array<string>> = {
    markdown: ["text", "icon_url", "username"], slack: ["text"], discord: ["content"],
    microsoft: ["@type", "@context", "themeColor", "text", "sections"], webex: ["markdown"]
  }
  for (const kind of Object.keys(required)) {
    const res = await s.as(admin.apiKey).post("api/b2/chatbots", {
      json: { group_id: group.id, name: kind, webhook_kind: kind, server: `${receiver.url}/${kind}`, event_kinds: [...EVENT_KINDS] }
    })
    t.equal(res.statusCode, 200, kind)
  }
  await s.as(admin.apiKey).post("api/b2/chatbots", {
    json: { group_id: group.id, name: "matrix", kind: "matrix", server: `${receiver.url}/_matrix/send?access_token=tok`, event_kinds: ["new_comment"] }
  })
  await s.as(admin.apiKey).post("api/b2/chatbots", {
    json: { group_id: other.id, name: "other group", server: `${receiver.url}/other`, event_kinds: [...EVENT_KINDS] }
  })

  for (const kind of EVENT_KINDS) await publish(s, group.id, kind, `Title ${kind}`)
  s.worker!.kick()
  const got = await receiver.waitFor(EVENT_KINDS.length * 5 + 1)
  t.equal(got.length, EVENT_KINDS.length * 5 + 1)
  for (const [format, fields] of Object.entries(required)) {
    const mine = got.filter((r) => r.url === `/${format}`)
    t.equal(mine.length, EVENT_KINDS.length, `${format}: every event kind`)
    for (const r of mine) {
      t.equal(r.method, "POST")
      t.equal(r.headers["content-type"], "application/json; charset=utf-8")
      for (const f of fields) t.ok(f in r.body, `${format} has ${f}`)
    }
    for (const kind of EVENT_KINDS) t.ok(mine.some((r) => JSON.stringify(r.body).includes(`Title ${kind}`)), `${format} ${kind}`)
  }
  const matrix = got.filter((r) => r.url.startsWith("/_matrix/send/"))
  t.equal(matrix.length, 1, "matrix got only its subscribed kind")
  t.equal(matrix[0]!.method, "PUT")
  t.match(matrix[0]!.url, /^\/_matrix\/send\/[0-9a-f-]{36}\?access_token=tok$/)
  t.match(matrix[0]!.body, { msgtype: "m.text", format: "org.matrix.custom.html" })
  t.notOk(got.some((r) => r.url === "/other"), "another group's webhook receives nothing")
  await deliveriesSettled(s.sql)
  t.same((await s.sql("SELECT DISTINCT status FROM webhook_deliveries")), [{ status: "done" }])
  t.same((await s.sql("SELECT DISTINCT attempts FROM webhook_deliveries")), [{ attempts: 1 }], "each delivered once")

  t.test("chatbots/check sends a test message and reports the answer", async (t) => {
    const ok = await s.as(admin.apiKey).post("api/b2/chatbots/check", { json: { group_id: group.id, server: `${receiver.url}/check` } })
    t.same(ok.body, { success: true, status: 200 })
    t.match(receiver.received.at(-1), { url: "/check", body: { text: /connection test/ } })
    receiver.setReply(() => ({ status: 500 }))
    const failed = await s.as(admin.apiKey).post("api/b2/chatbots/check", { json: { group_id: group.id, server: `${receiver.url}/check` } })
    t.equal(failed.statusCode, 422)
    matchExact(t, failed.body, { errors: { server: [/500/] } })
    receiver.setReply(() => ({ status: 200 }))
    t.equal((await s.as(admin.apiKey).post("api/b2/chatbots/check", { json: { group_id: group.id } })).statusCode, 400)
  })
})

t.test("retries, slow receivers, garbage answers", async (t) => {
  const flaky = await startReceiver(() => ({ status: 500 }))
  const slow = await startReceiver(() => ({ hangMs: 10_000 }))
  const fast = await startReceiver(() => ({ status: 204 }))
  const rude = await startReceiver(() => ({ destroy: true }))
  const s = await startTestServer({ allowPrivateWebhooks: true }, { worker: { retryDelaysMs: [100, 100] } })
  t.teardown(async () => { await s.close(); await Promise.all([flaky, slow, fast, rude].map((r) => r.close())) })
  const admin = await seedUser(s.convene)
  const group = (await s.convene.groups.create({ name: "G", owner: admin.user })).group
  const add = (name: string, server: string, kinds: Array<string>) =>
    s.as(admin.apiKey).post("api/b2/chatbots", { json: { group_id: group.id, name, server, event_kinds: kinds } })
  await add("flaky", flaky.url, ["new_comment"])
  await add("rude", rude.url, ["new_comment"])
  await add("slow", slow.url, ["new_discussion"])
  await add("fast", fast.url, ["new_discussion"])

  await publish(s, group.id, "new_discussion")
  s.worker!.kick()
  const started = Date.now()
  await fast.waitFor(1, 3000)
  t.ok(Date.now() - started < 3000, "a hanging receiver does not delay another webhook")

  flaky.setReply((r) => (flaky.received.indexOf(r) === 0 ? { status: 500 } : { status: 200 }))
  await publish(s, group.id, "new_comment")
  s.worker!.kick()
  await flaky.waitFor(2, 5000)
  await rude.waitFor(3, 5000)
  await deliveriesSettled(s.sql, ["flaky", "rude"])
  const rows = (await s.sql<any>(`SELECT c.name, d.status, d.attempts, d.last_status, d.last_error FROM webhook_deliveries d
                           JOIN chatbots c ON c.id = d.chatbot_id ORDER BY c.name`))
  t.match(rows.find((r) => r.name === "flaky"), { status: "done", attempts: 2, last_status: 200 }, "retried after a 500")
  t.match(rows.find((r) => r.name === "rude"), { status: "dead", attempts: 3, last_status: null, last_error: /ECONNRESET|socket|hang up/i },
    "a closed socket is a recorded failure, then dead")
  t.match(rows.find((r) => r.name === "fast"), { status: "done", last_status: 204 }, "204 is success")
})

t.test("a restart delivers what was pending; the destination is checked again at send time", async (t) => {
  const receiver = await startReceiver()
  t.teardown(receiver.close)
  const { filename } = tempDbFile()
  const first = await startTestServer({ allowPrivateWebhooks: true }, { filename })
  const admin = await seedUser(first.convene)
  const group = (await first.convene.groups.create({ name: "G", owner: admin.user })).group
  await first.as(admin.apiKey).post("api/b2/chatbots", { json: { group_id: group.id, name: "r", server: receiver.url, event_kinds: ["new_comment"] } })
  await publish(first, group.id, "new_comment")
  await first.close()
  t.equal(receiver.received.length, 0, "nothing sent while no worker ran")

  const second = await startTestServer({ allowPrivateWebhooks: true }, { filename, worker: {} })
  await receiver.waitFor(1)
  await deliveriesSettled(second.sql)
  t.same((await second.sql("SELECT status FROM webhook_deliveries")), [{ status: "done" }])
  await second.close()
  // published where no worker runs, so only the refusing server below can try it
  const between = await startTestServer({ allowPrivateWebhooks: true }, { filename })
  await publish(between, group.id, "new_comment")
  await between.close()
  t.equal(receiver.received.length, 1, "the second event waits for a worker")

  // the same saved chatbot, now on a server that refuses private destinations
  const third = await startTestServer({ allowPrivateWebhooks: false }, { filename, worker: { retryDelaysMs: [] } })
  t.teardown(third.close)
  await new Promise((r) => setTimeout(r, 500))
  t.equal(receiver.received.length, 1, "a private destination is refused at send time")
  matchExact(t, (await third.sql("SELECT status, last_error FROM webhook_deliveries ORDER BY id DESC LIMIT 1")), [{ status: "dead", last_error: /refused/ }])
})
