/**
 * The `convene` command line: commands run in-process through commander (`runCli` with buffers for
 * stdout and stderr) on a temp database and assert the exit code, the output and the effect in the
 * database file (decisions.md §4). A few smoke checks spawn the real binary, and `serve` runs as a
 * child process (it listens and stops on signals).
 */
import { openConvene } from "@convene/core"
import { runCli } from "@convene/cli"
import { spawn } from "node:child_process"
import { rmSync } from "node:fs"
import t from "tap"
import { startReceiver } from "./receiver.js"
import { BIN, childEnv, NO_DATABASE, openSql, runBin, tempDbFile, until, untouched } from "./helpers.js"
import { matchExact } from "./match.js"


interface Result {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}


/** One command line, in-process, with its own output buffers and environment. */
const run = async (args: ReadonlyArray<string>, env: Record<string, string> = {}): Promise<Result> => {
  let stdout = ""
  let stderr = ""
  const io = {
    stdout: (s: string) => void (stdout += s),
    stderr: (s: string) => void (stderr += s),
    env: { CONVENE_DB: "", ...env },
    exitCode: 0
  }
  const code = await runCli(args, io)
  return { code, stdout, stderr }
}

/** The real binary, for the smoke checks. */
const spawnRun = runBin

const json = (r: Result) => JSON.parse(r.stdout)

/** A temp database with helpers: run the CLI on it, read rows, check an API key through the core. */
const fixture = (t: { teardown: (fn: () => void) => void }) => {
  const { dir, filename } = tempDbFile()
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return {
    filename,
    cli: (...args: Array<string>) => run([...args, "--db", filename]),
    sql: async <T = any>(query: string, ...params: Array<unknown>): Promise<Array<T>> => {
      const db = await openSql(filename)
      try {
        return await db.sql<T>(query, ...params)
      } finally {
        await db.close()
      }
    },
    authenticates: async (key: string) => {
      const convene = await openConvene({ database: filename })
      try {
        return await convene.authenticate(key).then(() => true, () => false)
      } finally {
        await convene.close()
      }
    }
  }
}

const USER_KEYS = ["id", "name", "username", "email", "is_admin", "active", "deactivated_at", "identities"]

t.test("the real binary: exit codes and output streams", async (t) => {
  const { filename } = tempDbFile()
  const [help, unknownCmd, missing, init] = await Promise.all([
    spawnRun(["--help"]),
    spawnRun(["frobnicate"]),
    spawnRun(["users", "list", "--db", `${filename}.missing`]),
    spawnRun(["init", "--admin-email", "root@example.org", "--json"], { CONVENE_DB: filename })
  ])
  t.equal(help.code, 0)
  t.match(help.stdout, /Usage: convene/)
  t.equal(unknownCmd.code, 2)
  t.match(unknownCmd.stderr, /unknown command 'frobnicate'/)
  t.equal(unknownCmd.stdout, "")
  t.equal(missing.code, 1)
  t.match(missing.stderr, NO_DATABASE)
  t.equal(init.code, 0, init.stderr)
  t.match(JSON.parse(init.stdout), { id: 1, email: "root@example.org", api_key: String })
  t.notOk(await untouched(filename), "CONVENE_DB is read from the environment")
})

t.test("usage errors exit 2, --help exits 0", async (t) => {
  const { filename } = fixture(t)
  const [help, subHelp, bare, unknownCmd, unknownOpt, noEmail, badBool, badId] = await Promise.all([
    run(["--help"]),
    run(["users", "create", "--help"]),
    run([]),
    run(["frobnicate"]),
    run(["users", "list", "--frob"]),
    run(["users", "create", "--name", "X", "--db", filename]),
    run(["users", "list", "--admin", "maybe", "--db", filename]),
    run(["users", "show", "abc", "--db", filename])
  ])
  t.equal(help.code, 0)
  t.match(help.stdout, /Usage: convene/)
  for (const cmd of ["serve", "init", "users", "groups", "members", "mail"]) t.match(help.stdout, new RegExp(`^  ${cmd}\\b`, "m"), cmd)
  t.equal(subHelp.code, 0)
  t.match(subHelp.stdout, /--db <path|url>/)
  t.match(subHelp.stdout, /--json/)
  t.equal(bare.code, 2, "no command")
  t.equal(unknownCmd.code, 2)
  t.match(unknownCmd.stderr, /unknown command 'frobnicate'/)
  t.equal(unknownOpt.code, 2)
  t.match(unknownOpt.stderr, /unknown option '--frob'/)
  t.equal(noEmail.code, 2, "missing required option")
  t.match(noEmail.stderr, /--email/)
  t.equal(badBool.code, 2)
  t.match(badBool.stderr, /'maybe' is invalid/)
  t.equal(badId.code, 2, "an id that is neither a number nor identity:TYPE:UID")
  for (const r of [bare, unknownCmd, unknownOpt, noEmail, badBool, badId]) t.equal(r.stdout, "", "nothing on stdout")
  t.ok(await untouched(filename), "no usage error opened (or created) the database")
})

t.test("serve refuses an unknown LOG_LEVEL or INVITATION_TTL_DAYS before opening anything", async (t) => {
  const { filename } = fixture(t)
  const r = await run(["serve", "--port", "0", "--db", filename], { LOG_LEVEL: "loud" })
  t.equal(r.code, 1)
  t.match(r.stderr, /LOG_LEVEL=loud is not one of fatal, error, warn, info, debug, trace, silent/)
  const ttl = await run(["serve", "--port", "0", "--db", filename], { INVITATION_TTL_DAYS: "0" })
  t.equal(ttl.code, 1)
  t.match(ttl.stderr, /INVITATION_TTL_DAYS=0 is not a whole number of days from 1 to 3650/)
  t.ok(await untouched(filename), "no database was created")
})

t.test("admin commands against one database", async (t) => {
  const f = fixture(t)
  const count = async (query: string, ...params: Array<unknown>): Promise<number> => (await f.sql<any>(`SELECT count(*) AS n FROM ${query}`, ...params))[0].n

  // init (and, meanwhile, a command on a database that does not exist)
  const [missing, init] = await Promise.all([
    run(["users", "list", "--db", `${f.filename}.missing`]),
    f.cli("init", "--admin-email", "Root@Example.org", "--admin-name", "Root", "--json")
  ])
  t.equal(missing.code, 1, "commands other than init and serve need an existing database")
  t.match(missing.stderr, NO_DATABASE)
  t.ok(await untouched(`${f.filename}.missing`), "and do not create one")
  t.equal(init.code, 0, init.stderr)
  const root = json(init)
  t.same(Object.keys(root), [...USER_KEYS, "api_key"])
  t.match(root, { id: 1, name: "Root", email: "root@example.org", is_admin: true, active: true })
  t.ok(await f.authenticates(root.api_key), "the printed key authenticates")

  // users create (the failing commands insert nothing, so ids stay predictable)
  const [again, created] = await Promise.all([
    f.cli("init", "--admin-email", "other@example.org"),
    f.cli("users", "create", "--email", "ada@example.org", "--name", "Ada", "--username", "ada", "--country", "NZ",
      "--identity", "oauth:ada-1", "--json")
  ])
  t.equal(again.code, 1, "init on a database with users")
  t.equal(again.stdout, "")
  const ada = json(created)
  matchExact(t, ada, { id: 2, name: "Ada", username: "ada", is_admin: false, identities: [{ identity_type: "oauth", uid: "ada-1" }] })
  t.type(ada.api_key, "string")
  t.match((await f.sql("SELECT country, bot FROM users WHERE id = 2"))[0], { country: "NZ", bot: 0 })
  const [dup, bob] = await Promise.all([
    f.cli("users", "create", "--email", "ADA@example.org"),
    f.cli("users", "create", "--email", "bob@example.org", "--name", "Bob", "--bot")
  ])
  t.equal(dup.code, 1, "duplicate e-mail is a domain error")
  t.match(dup.stderr, /email has already been taken/)
  t.equal(bob.code, 0)
  t.match(bob.stdout, /^user 3 bob@example\.org \(Bob\) bot\napi key: \S{20,}\n$/, "human output: the user, then its key")
  t.equal((await count("users")), 3)

  // list, show
  const [admins, others, listed, byId, byIdentity, unknown] = await Promise.all([
    f.cli("users", "list", "--admin", "true", "--json"),
    f.cli("users", "list", "--admin", "false", "--json"),
    run(["users", "list"], { CONVENE_DB: f.filename }),
    f.cli("users", "show", "2", "--json"),
    f.cli("users", "show", "identity:oauth:ada-1", "--json"),
    f.cli("users", "show", "99")
  ])
  t.same(json(admins).map((u: any) => u.id), [1])
  t.same(json(others).map((u: any) => u.id), [2, 3])
  t.equal(listed.code, 0, "CONVENE_DB is the default --db")
  t.equal(listed.stdout.trim().split("\n").length, 3)
  t.notMatch(listed.stdout, /api key/i, "a key is never listed")
  t.same(Object.keys(json(byId)), USER_KEYS, "b3 shape, no key")
  t.same(json(byIdentity), json(byId))
  t.equal(unknown.code, 1)
  t.match(unknown.stderr, /User 99 not found/)

  // update
  const [upd, taken] = await Promise.all([
    f.cli("users", "update", "3", "--name", "Robert", "--admin", "true", "--json"),
    f.cli("users", "update", "3", "--email", "ada@example.org")
  ])
  t.match(json(upd), { id: 3, name: "Robert", is_admin: true })
  t.match((await f.sql("SELECT name, is_admin, email FROM users WHERE id = 3"))[0], { name: "Robert", is_admin: 1, email: "bob@example.org" })
  t.equal(taken.code, 1, "an e-mail already taken")

  // groups
  const board = json(await f.cli("groups", "create", "--name", "Board", "--owner", "ada@example.org", "--handle", "board",
    "--setting", "members_can_add_members=true", "--json"))
  t.match(board, { id: 1, name: "Board", handle: "board", members_can_add_members: true, admin_memberships_count: 1 })
  matchExact(t, (await f.sql("SELECT user_id, admin FROM memberships WHERE group_id = 1")), [{ user_id: 2, admin: 1 }], "the owner is admin")
  const [subRes, badSetting, noOwner, invite] = await Promise.all([
    f.cli("groups", "create", "--name", "Sub", "--owner", "1", "--parent", "board", "--public", "--json"),
    f.cli("groups", "create", "--name", "Bad", "--owner", "1", "--setting", "bogus=1"),
    f.cli("groups", "create", "--name", "X", "--owner", "nobody@example.org"),
    f.cli("members", "add", "--group", "board", "--user", "bob@example.org", "--pending", "--json")
  ])
  const sub = json(subRes)
  // its id is the next free one on SQLite; PostgreSQL's sequences may skip ids a retried transaction took
  t.match(sub, { id: Number, parent_id: 1, full_name: "Board - Sub", is_visible_to_public: true })
  t.equal(badSetting.code, 1)
  t.match(badSetting.stderr, /bogus is not a group setting/)
  t.equal(noOwner.code, 1, "unknown owner")
  t.equal((await count("groups")), 2)
  t.match(json(invite), { group_id: 1, user_id: 3, accepted_at: null, admin: false })

  const [upGroup, badValue, noGroup, member, mailJson, mailText, delegate] = await Promise.all([
    f.cli("groups", "update", board.key, "--setting", "members_can_vote=false", "--json"),
    f.cli("groups", "update", "board", "--setting", "members_can_vote=maybe"),
    f.cli("groups", "update", "nope", "--setting", "enabled=false"),
    f.cli("members", "add", "--group", "board", "--user", "3"),
    f.cli("mail", "list", "--json"),
    f.cli("mail", "list"),
    f.cli("members", "add", "--group", String(sub.id), "--user", "identity:oauth:ada-1", "--delegate", "--json")
  ])
  t.equal(json(upGroup).members_can_vote, false)
  t.equal((await f.sql("SELECT members_can_vote FROM groups WHERE id = 1"))[0].members_can_vote, 0)
  t.equal(badValue.code, 1)
  t.match(badValue.stderr, /members_can_vote must be true or false/)
  t.equal(noGroup.code, 1, "unknown group")
  t.equal(member.code, 1, "already a member")
  matchExact(t, json(mailJson), [{ kind: "group_invitation", recipient_email: "bob@example.org", group_id: 1 }])
  t.match(mailText.stdout, /^mail 1 .* group_invitation to=bob@example\.org pending attempts=0: .*Board\n$/)
  t.match(json(delegate), { group_id: sub.id, user_id: 2, delegate: true, accepted_at: String })

  const [groups, removed] = await Promise.all([
    f.cli("groups", "list", "--json"),
    f.cli("members", "remove", "--group", "board", "--user", "3", "--json")
  ])
  t.same(json(groups).map((g: any) => g.full_name), ["Board", "Board - Sub"])
  t.match(json(removed), { user_id: 3, revoked_at: String })
  t.equal((await count("memberships WHERE user_id = 3 AND revoked_at IS NULL")), 0)

  // deactivate, reactivate
  const [removedAgain, deact] = await Promise.all([
    f.cli("members", "remove", "--group", "board", "--user", "3"),
    f.cli("users", "deactivate", "2", "--json")
  ])
  t.equal(removedAgain.code, 1, "not a member any more")
  t.match(json(deact), { active: false, deactivated_at: String })
  t.equal((await count("memberships WHERE user_id = 2 AND revoked_at IS NULL")), 0, "memberships revoked")
  t.notOk(await f.authenticates(ada.api_key), "a deactivated user's key is refused")
  const twice = await f.cli("users", "deactivate", "2")
  t.equal(twice.code, 1)
  t.match(twice.stderr, /not active/)
  t.match(json(await f.cli("users", "reactivate", "identity:oauth:ada-1", "--json")), { id: 2, active: true, deactivated_at: null })
  t.equal((await count("memberships WHERE user_id = 2 AND revoked_at IS NULL")), 2, "memberships restored")
  t.ok(await f.authenticates(ada.api_key))

  // api-key
  const rotated = json(await f.cli("users", "api-key", "2", "--rotate", "--json"))
  t.match(rotated, { id: 2, email: "ada@example.org" })
  t.not(rotated.api_key, ada.api_key)
  t.notOk(await f.authenticates(ada.api_key), "the old key stops working")
  t.ok(await f.authenticates(rotated.api_key), "the new key works")

  // redact
  const [redacted, refused] = await Promise.all([
    f.cli("users", "redact", "identity:oauth:ada-1", "--json"),
    f.cli("users", "delete", "3")
  ])
  t.equal(redacted.code, 0, redacted.stderr)
  matchExact(t, json(redacted), { id: 2, name: null, username: null, email: null, is_admin: false, active: false, identities: [] })
  const row = (await f.sql("SELECT name, username, email, email_sha256, country, redacted_at FROM users WHERE id = 2"))[0]
  t.match(row, { name: null, username: null, email: null, country: null, email_sha256: String, redacted_at: String })
  t.equal((await count("identities WHERE user_id = 2")), 0)
  t.equal((await count("memberships WHERE user_id = 2 AND revoked_at IS NULL")), 0, "memberships revoked")
  t.notOk(await f.authenticates(rotated.api_key), "redaction rotates the key")

  // delete
  t.equal(refused.code, 2, "delete needs --yes")
  t.match(refused.stderr, /--yes/)
  t.equal((await count("users WHERE id = 3")), 1, "nothing deleted without --yes")
  const deleted = await f.cli("users", "delete", "3", "--yes", "--json")
  t.equal(deleted.code, 0, deleted.stderr)
  t.match(json(deleted), { success: true, user: { id: 3 } })
  t.equal((await count("users WHERE id = 3")), 0)
  t.equal((await count("memberships WHERE user_id = 3")), 0, "their rows go with them")
})

t.test("serve on an empty database", async (t) => {
  const f = fixture(t)
  const b3Key = "b3-secret-key-that-is-long-enough"
  const child = spawn(process.execPath, [BIN, "serve", "--port", "0", "--db", f.filename, "--json"], {
    env: childEnv({ PORT: "1", B3_API_KEY: b3Key, CONVENE_ALLOW_PRIVATE_WEBHOOKS: "1", CONVENE_SCHEDULER_INTERVAL_MS: "100" })
  })
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
  t.teardown(() => {
    if (child.exitCode === null) child.kill("SIGKILL")
  })
  let stdout = ""
  let stderr = ""
  child.stdout.on("data", (d) => (stdout += d))
  child.stderr.on("data", (d) => (stderr += d))
  const started = await new Promise<any>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start; stdout: ${stdout}; stderr: ${stderr}`)), 30_000)
    child.stdout.on("data", () => {
      // the start-up record is the first line; the log's JSON lines follow it
      if (!stdout.includes("\n")) return
      resolve(JSON.parse(stdout.slice(0, stdout.indexOf("\n"))))
      clearTimeout(timer)
    })
    child.once("exit", (code) => reject(new Error(`serve exited with ${code}: ${stderr}`)))
  })
  t.not(started.port, 0, "--port 0 reports the port actually bound (and overrides PORT)")
  t.equal(started.url, `http://127.0.0.1:${started.port}`)
  t.match(started.admin, { id: 1, is_admin: true, name: "Admin" })
  const key = started.admin.api_key as string

  t.same(await (await fetch(`${started.url}/healthz`)).json(), { ok: true })
  const groups = await fetch(`${started.url}/api/b2/groups`, { headers: { authorization: `Bearer ${key}` } })
  t.equal(groups.status, 200, "the printed admin key authenticates")
  t.equal((await fetch(`${started.url}/api/b2/groups`, { headers: { authorization: "Bearer wrong" } })).status, 403)

  // the CLI's user JSON is the b3 API's user JSON
  const b3 = await (await fetch(`${started.url}/api/b3/users/1`, { headers: { authorization: `Bearer ${b3Key}` } })).json() as { user: unknown }
  t.same(json(await f.cli("users", "show", "1", "--json")), b3.user)

  // serve runs the webhook delivery worker and the scheduler
  const receiver = await startReceiver()
  t.teardown(receiver.close)
  t.equal((await f.cli("groups", "create", "--name", "Team", "--owner", "1")).code, 0)
  const api = (path: string, body: unknown) =>
    fetch(`${started.url}${path}`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify(body) })
  t.equal((await api("/api/b2/chatbots", { group_id: 1, name: "r", server: receiver.url, event_kinds: ["new_discussion", "poll_expired"] })).status, 200)
  t.equal((await api("/api/b2/discussions", { group_id: 1, title: "Hello" })).status, 200)
  await receiver.waitFor(1)
  t.match(receiver.received[0]!.body, { text: /started a discussion: \[Hello\]/ })
  const poll = await api("/api/b2/polls", { group_id: 1, title: "Soon", poll_type: "proposal", closing_at: new Date(Date.now() + 1500).toISOString() })
  t.equal(poll.status, 200)
  await receiver.waitFor(2)
  t.match(receiver.received[1]!.body, { text: /closed: \[Soon\]/ }, "the scheduler closed the poll at its closing time")
  // the worker records the delivery once the receiver has answered
  await until(async () => json(await f.cli("webhooks", "deliveries", "--status", "done", "--json")).length === 2, "both deliveries recorded")
  const deliveries = json(await f.cli("webhooks", "deliveries", "--status", "done", "--json"))
  t.same(deliveries.map((d: any) => d.event_kind).sort(), ["new_discussion", "poll_expired"])
  t.equal((await f.cli("webhooks", "deliveries", "--status", "nope")).code, 2)
  t.match((await f.cli("webhooks", "deliveries", "--group", "1")).stdout, /^delivery \d+ done poll_expired group=1 chatbot=1 attempts=1 last_status=200/)

  child.kill("SIGTERM")
  t.equal(await exited, 0, "SIGTERM stops it cleanly")
  t.equal(stdout.trim().split("\n").filter((l) => l.includes("api_key")).length, 1, "the key is printed once")
  t.equal(stderr.split("\n").filter((l) => /no mail transport/.test(l)).length, 1, "serve says once that mail stays in the outbox")

  // a second start on the same database creates no second admin and prints no key
  const again = spawn(process.execPath, [BIN, "serve", "--port", "0", "--db", f.filename], { env: childEnv() })
  let out2 = ""
  let err2 = ""
  again.stdout.on("data", (d) => (out2 += d))
  again.stderr.on("data", (d) => (err2 += d))
  const ended = new Promise<{ code: number | null; signal: string | null }>((resolve) => again.once("exit", (code, signal) => resolve({ code, signal })))
  await Promise.race([new Promise<void>((resolve) => again.stdout.on("data", () => out2.includes("listening") && resolve())), ended])
  again.kill("SIGINT")
  const end = await ended
  t.same(end, { code: 0, signal: null }, `SIGINT stops it cleanly (stderr: ${err2})`)
  t.match(out2, /^convene listening on http:\/\/127\.0\.0\.1:\d+\n$/)
  t.equal((await f.sql("SELECT count(*) AS n FROM users"))[0].n, 1)
})
