/**
 * The examples in examples/ run as a reader would run them, against a real server: the API client script
 * (what it writes is in the database) and the webhook receiver (it prints what convene delivers to it).
 * examples/embed is example-embed.test.ts's.
 */
import { spawn } from "node:child_process"
import { once } from "node:events"
import t from "tap"
import { seedUser, startTestServer } from "./helpers.js"

t.test("examples/api-client: a discussion, a comment, a proposal and a vote, over /api/b2", async (t) => {
  const s = await startTestServer()
  t.teardown(() => s.close())
  const ada = await seedUser(s.convene, { name: "Ada", email: "ada@example.org" })
  const { group } = await s.convene.groups.create({ name: "Board", owner: ada.user })
  const child = spawn(process.execPath, ["examples/api-client/index.mjs"], { env: { ...process.env, CONVENE_URL: s.url, CONVENE_API_KEY: ada.apiKey } })
  let out = ""
  let err = ""
  child.stdout.on("data", (d) => (out += d))
  child.stderr.on("data", (d) => (err += d))
  const [code] = await once(child, "exit")
  t.equal(code, 0, err)
  t.match(out, /^group: Board \(1 members\)\ndiscussion: Where shall we meet\? http:\/\/.*\/d\/\w+\npoll: Meet at the library\?, 1 voted\n  agree: 1\n  abstain: 0\n  disagree: 0\n/)
  t.same(await s.sql("SELECT d.title, t.group_id, (SELECT count(*) FROM comments c WHERE c.discussion_id = d.id) AS comments FROM discussions d JOIN topics t ON t.id = d.topic_id"),
    [{ title: "Where shall we meet?", group_id: group.id, comments: 1 }])
  t.same(await s.sql("SELECT s.reason FROM stances s JOIN polls p ON p.id = s.poll_id WHERE p.title = 'Meet at the library?'"), [{ reason: "Close to the station." }])

  const refused = spawn(process.execPath, ["examples/api-client/index.mjs"], { env: { ...process.env, CONVENE_URL: s.url, CONVENE_API_KEY: "wrong" } })
  let said = ""
  refused.stderr.on("data", (d) => (said += d))
  t.not((await once(refused, "exit"))[0], 0, "a wrong key: the script fails")
  t.equal(said, "error: GET groups: 403 {\"error\":\"Invalid API key\"}\n", "what the server said, without a stack")
})

t.test("examples/webhook-receiver prints what a group's chatbot delivers", async (t) => {
  const receiver = spawn(process.execPath, ["examples/webhook-receiver/index.mjs"], { env: { ...process.env, PORT: "0" } })
  t.teardown(() => void receiver.kill())
  let out = ""
  const printed = (pattern: RegExp) => new Promise<RegExpMatchArray>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`waited 20 s for ${pattern}; printed: ${out}`)), 20_000)
    const look = () => {
      const m = out.match(pattern)
      if (m !== null) clearTimeout(timer), receiver.stdout.off("data", look), resolve(m)
    }
    receiver.stdout.on("data", (d) => (out += d, look()))
    look()
  })
  const url = (await printed(/^listening on (\S+)$/m))[1]!
  const s = await startTestServer({ allowPrivateWebhooks: true }, { worker: { pollMs: 20 } })
  t.teardown(() => s.close())
  const ada = await seedUser(s.convene, { name: "Ada", email: "ada@example.org" })
  const { group } = await s.convene.groups.create({ name: "Board", owner: ada.user })
  t.equal((await s.as(ada.apiKey).post("api/b2/chatbots", { json: { group_id: group.id, name: "Log", server: url, event_kinds: ["new_discussion"] } })).statusCode, 200)
  t.equal((await s.as(ada.apiKey).post("api/b2/discussions", { json: { group_id: group.id, title: "Spring plans" } })).statusCode, 200)
  t.match((await printed(/^event: .*$/m))[0], /^event: Ada started a discussion: \[Spring plans\]\(http.*\/d\/\w+\)$/)
})
