/**
 * Migrations are frozen SQL text (each held by its checksum here), a served database opens in Debian's
 * sqlite3 shell and Python's sqlite3, and search splits and folds words as FTS5 does, on a new database
 * and on one upgraded from before the vocabulary came from FTS5.
 */
import { makeConvene, migrate, migrations, pgMigrations } from "@convene/core"
import Database from "better-sqlite3"
import { execFileSync } from "node:child_process"
import { createHash } from "node:crypto"
import { rmSync } from "node:fs"
import t from "tap"
import { startTestServer, tempDbFile } from "./helpers.js"

/** sha256 of each released migration's SQL. A changed line here means a released migration was edited: add a new one instead. */
const CHECKSUMS = [
  "0bd46e0cfa724f4fb02fc667c31942ef456242632a864f78f3c9c8502e843133",
  "1ee47f9aa6747e66ad2ce3e553804a333f54bd893fa0d98a78394da858152da1",
  "c56fee5e5d4a1b17721aa4bf27fed1ecf94e788a823c37c3e88600ac86380059",
  "e1725fcda31eb70ba775ab754412e71ee3a3d3de2b82a8aafa1eaacd9c683312",
  "76c7502c2fe79ddd32a86e455ad0bc4b33de4038d9f2c30e8a4d29dbdeefa668",
  "4e1003ea2ce5257f9f3a7d540b709b6a84873396f0755768df8ce91890e5a835",
  "fc97413b31735934cd21dc16d92bfa2e8f18d4946b78a35cb6c206e05c6981e5",
  "81384a0b1f7f959b18c1438fe8f18f80053115d475cd255a36301c0c519a9aff",
  "3ed498ef6d6957318e0f39bd3e73b31952cfcf8e28f9024b6b942ad4be57b426",
  "1b54c4d08426ad25338c6973c22879ee9035f5c2ecb047b01eae13ec33275385",
  "a1f023d3b6361582a814da7f7f61d0ecbfc917026b3341e6f43e4bc58e898479",
  "b5362880f4282e8629aa6c93e04102312a6bd837658be45f50541267ab092deb",
  "dc2772c8561cb786d3e9a015624d69171d187a30965a9afb54c8b3471f7c5ff2",
  "8933d63c6c68163c6726d3c4f3a1cbdd96692c17fa9a7040cf7de746a792d4a6",
  "48e8434b9abc75b1ecb6aa6f0aeb87003a62ac0d1013b1f83a20c69e5d0b2160",
  "58aaa2aa88a08de37b0022f4724e3e1fb50222d82766b90520d9a943b6bdd4bd",
  "8be05bc6864c96d4d663db5bf337c8361cae4d4304256aa7a2a1bf3a67f6f924",
  "d2b87075c3e66c605279302ab13a60a88dbe8cb51ba217c73e6868c2b39b5501",
  "818e7a9253de15dfa3a5a78e4c1e64e9ef3f7a46fdc8c2eaa9ea07c7c5a1f36d",
  "f1fe60b608ded07c3cd0f3a6ad1292c9e19a744436f2358ba7de945d112c0266",
  "7158c0097b1aff88807c0affb0e189cabd78fce45586c38de214cf8331e2adc3",
  "926cbbb55419d08ce0eee5dc5ee85a1e83de3dd83158f08ae74b2c71fdb238e9",
  "d08a38311f687d95a30ed6e70075f8a12355e4b31df745c28fb8b7621d36f293",
  "9446ff4bbf57e99e6fa94b7ea0450104319769dfefdecd173dc66bcb0c15b010",
  "a4aff34bf9f869565eebe6b37feeb7e08367aa42452e7624ebbb85138416798a",
  "9faf6d7fd6b85c51c6d418f89060202435b41628616de0800198bfe2760f149b",
  "18605a961c780304c57b5b3ba38e518b7cc99e6f82f4d03bc130bd59af6a665e",
  "4e105c9cb3a7bc147233c18a252386a1456016017c83ce3908a699289038c5a5",
  "4901631ec198c3203ec5b454cd9696dd54041e7772f4614ce7f84e529451014d",
  "347e6a554f56ea88de71526f1fe3bafa33ac3abc9425e408c4ec20cc15512413",
  "49af91dc8677c25e1b6c724266df30eaccbf1c03c68786c2513ff865ba28c7de",
  "85c0508af4403f8f9a7dd7720d7e425b0e38d79bbef2a771c8f05fc405bc1032",
  "6614c012f631cfd9791528b30e6228ef90156a50d1e4bad7f28ac6011b9078f7",
  "a5dce7751942ecec990278ce943e37cdcb9c24ce3ed564bee124aeb1ff648db5"
]

/** The same for PostgreSQL's migrations. */
const PG_CHECKSUMS = [
  "58f886e4db13c6c8865fc1467034862329679e046c91074fe5bee6edbf732b4b",
  "f1fe60b608ded07c3cd0f3a6ad1292c9e19a744436f2358ba7de945d112c0266",
  "7158c0097b1aff88807c0affb0e189cabd78fce45586c38de214cf8331e2adc3",
  "605c339bd3ae5ceced245837c844baca5dcf9540c856b7563aacd13c0b2672b0",
  "8344654a728b628b402f7c808ba50f42230eee3add27fc743b4dc526d99b481b",
  "cab7176a073d4717fbf84b702e2256fb1605e5a1cd74ffdb4d2cb0d63ddb8615",
  "30957a1119ea44d38c0d60272b97f09247110abea43b2f288f381d1d3e6a182f",
  "9446ff4bbf57e99e6fa94b7ea0450104319769dfefdecd173dc66bcb0c15b010",
  "cef4a69169b4b4ecbcc56e17d484e24711875345a04e7c5387ba7fb70731c94d",
  "859efde8eb51fd7b880cc70ca7cd8dd4b95d47c377377107a0beebfce76c8020",
  "6a17582c4a8a8789f698611c0636779f928bc4337115931e98d814a070a6e631",
  "8dedd1b2bd49f64c1f3fca7f289a058cb0364ff92c0ae5d33d09c06ac4b7f816",
  "a17fa172079d03e25d9a3dff2f77267ddfba071ebefca8114e69e8c0c39d47b4",
  "c513b01f18b0637151aa16f76c097a72d3834b1795f0be928c0113d0902e084b",
  "768011fc54568026bbb5c433e51e2b3713bc40d4ea6a7732135844d4341401ba",
  "390ff28908c10b118861a53148e0bddba250da59051ce179327d760ebe1f657f",
  "5f75a16070206203da506ad8fc40596db03df08d0eeb24c45f7432d100588495",
  "b487b03ef0b837c4c38c665711caaee17509cacd7863e4e9d2850fb63a1270c4"
]

t.test("released migrations never change", async (t) => {
  t.equal(migrations.length, CHECKSUMS.length, "every migration has a recorded checksum")
  migrations.forEach((sql, i) => t.equal(createHash("sha256").update(sql).digest("hex"), CHECKSUMS[i], `migration ${i + 1}`))
  t.equal(pgMigrations.length, PG_CHECKSUMS.length, "every PostgreSQL migration has a recorded checksum")
  pgMigrations.forEach((sql, i) => t.equal(createHash("sha256").update(sql).digest("hex"), PG_CHECKSUMS[i], `PostgreSQL migration ${i + 1}`))
})

const hasTool = (cmd: string, args: ReadonlyArray<string>) => {
  try {
    execFileSync(cmd, args, { stdio: "ignore" })
    return true
  } catch {
    return false
  }
}

t.test("a served database opens in the stock sqlite3 shell and in Python", async (t) => {
  const file = tempDbFile()
  t.teardown(() => rmSync(file.dir, { recursive: true, force: true }))
  const s = await startTestServer({}, { filename: file.filename })
  const user = await s.convene.users.create({ email: "shell@example.org", name: "Shell" })
  const { group } = await s.convene.groups.create({ name: "Shells", owner: user.user })
  await s.as(user.apiKey).post("api/b2/discussions", { json: { group_id: group.id, title: "Readable everywhere", description: "Ärger über Budget→Plan" } })
  await s.close()
  t.ok(hasTool("sqlite3", ["-version"]), "Debian's sqlite3 is installed (npm test's pretest installs it)")
  const shell = execFileSync("sqlite3", [s.filename, "PRAGMA integrity_check; SELECT count(*) FROM sqlite_master; SELECT title FROM discussions;"], { encoding: "utf8" })
  t.match(shell, /^ok\n\d+\nReadable everywhere\n$/)
  const py = execFileSync("python3", ["-c", `import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); print(c.execute("select count(*) from sqlite_master").fetchone()[0] > 0, c.execute("pragma integrity_check").fetchone()[0])`, s.filename], { encoding: "utf8" })
  t.equal(py.trim(), "True ok")
})

const searchWords = async (filename: string) => {
  const db = new Database(filename, { readonly: true })
  try {
    return new Set((db.prepare("SELECT word FROM search_words").pluck().all() as Array<string>))
  } finally {
    db.close()
  }
}

t.test("search finds words as FTS5 tokenizes them, typos included", async (t) => {
  const s = await startTestServer()
  t.teardown(s.close)
  const user = await s.convene.users.create({ email: "words@example.org", name: "Words" })
  const { group } = await s.convene.groups.create({ name: "Words", owner: user.user })
  const A = s.as(user.apiKey)
  const d = ((await A.post("api/b2/discussions", { json: { group_id: group.id, title: "Ärger im Garten", description: "日本語です and the Budget→Plan" } })).body as any).discussions[0]
  const words = await searchWords(s.filename)
  for (const w of ["arger", "garten", "日本語です", "budget", "plan"]) t.ok(words.has(w), `${w} is in the vocabulary as FTS5 folds it`)
  t.notOk(words.has("budget→plan"), "→ separates words, as in FTS5")
  const find = async (q: string) => ((await A.get(`api/b2/search?query=${encodeURIComponent(q)}`)).body as any).search_results.map((r: any) => r.searchable_id)
  t.same(await find("Ärger"), [d.id])
  t.same(await find("ärger"), [d.id])
  t.same(await find("Ärgar"), [d.id], "one typo away, diacritics folded")
  t.same(await find("日本語"), [d.id], "a prefix of a CJK run")
  t.same(await find("日本語です"), [d.id])
  t.same(await find("Budget→Plan"), [d.id])
  t.same(await find("Plan"), [d.id])
  t.same(await find("Budgte"), [d.id], "a transposition in a word that came after an arrow")
})

t.test("an older database is upgraded: its vocabulary is rebuilt from FTS5's tokens", async (t) => {
  const { dir, filename } = tempDbFile()
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const db = new Database(filename)
  for (let i = 0; i < 10; i++) db.exec(migrations[i]!)
  db.pragma("user_version = 10")
  const at = "2026-01-01T00:00:00.000Z"
  db.exec(`
    INSERT INTO users (id, name, email, api_key_hash, created_at, updated_at) VALUES (1, 'Old', 'old@example.org', 'x', '${at}', '${at}');
    INSERT INTO groups (id, key, name, created_at, updated_at) VALUES (1, 'oldgroup', 'Old', '${at}', '${at}');
    INSERT INTO topics (id, group_id, topicable_type, last_activity_at, created_at, updated_at) VALUES (1, 1, 'Discussion', '${at}', '${at}', '${at}');
    INSERT INTO discussions (id, key, topic_id, author_id, title, description, created_at, updated_at)
      VALUES (1, 'olddisc', 1, 1, 'Ärger mit Budget→Plan', '', '${at}', '${at}');`)
  const before = await (async () => { db.close(); return searchWords(filename) })()
  t.ok(before.has("budget→plan"), "the old vocabulary kept the arrow inside a word")
  t.notOk(before.has("arger"), "and did not fold diacritics")
  const convene = makeConvene({ filename })
  await convene.close()
  const after = await searchWords(filename)
  for (const w of ["arger", "budget", "plan"]) t.ok(after.has(w), `${w} after the upgrade`)
  t.notOk(after.has("budget→plan"))
  const raw = new Database(filename)
  t.equal(raw.pragma("user_version", { simple: true }), migrations.length, "migrated to the newest")
  t.equal(migrate(raw), migrations.length, "migrating again does nothing")
  t.equal((raw.prepare("SELECT count(*) AS n FROM search_tokenizer").get() as { n: number }).n, 0, "the scratch tokenizer is left empty")
  raw.close()
})

t.test("an older database is upgraded: only accounts an invitation made and nobody used are placeholders (migration 025)", async (t) => {
  const { dir, filename } = tempDbFile()
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const db = new Database(filename)
  for (let i = 0; i < 24; i++) db.exec(migrations[i]!)
  const at = "2019-01-01T00:00:00.000Z"
  const user = (id: number, name: string | null) =>
    db.prepare(`INSERT INTO users (id, name, email, api_key_hash, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)`).run(id, name, `u${id}@example.org`, `k${id}`, at, at)
  const invited = (id: number) =>
    db.prepare(`INSERT INTO invitation_tokens (token_hash, kind, user_id, created_at, expires_at) VALUES (?, 'group', ?, ?, ?)`).run(`t${id}`, id, at, at)
  user(1, null), invited(1) // invited, never used: a placeholder
  user(2, null) // an operator's account without a name, never invited
  user(3, null), invited(3)
  db.prepare(`INSERT INTO sessions (token_hash, user_id, created_at, last_seen_at, expires_at) VALUES ('s3', 3, ?, ?, ?)`).run(at, at, at)
  user(4, "Named"), invited(4)
  db.exec(migrations[24]!)
  t.same(db.prepare(`SELECT id, placeholder FROM users ORDER BY id`).all(), [
    { id: 1, placeholder: 1 }, { id: 2, placeholder: 0 }, { id: 3, placeholder: 0 }, { id: 4, placeholder: 0 }
  ], "only the invited account nobody signed in to")
  db.close()
})

t.test("an older database is upgraded: only the ballots that count name their voters (migration 019)", async (t) => {
  const { dir, filename } = tempDbFile()
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  let s = await startTestServer({}, { filename })
  const ada = await s.convene.users.create({ email: "ada@example.org", name: "Ada" })
  const bo = await s.convene.users.create({ email: "bo@example.org", name: "Bo" })
  const { group } = await s.convene.groups.create({ name: "Upgraded", owner: ada.user })
  await s.convene.members.add({ group, user: bo.user })
  const { poll } = await s.convene.as(ada.user).startPoll({
    group_id: group.id, poll_type: "proposal", title: "Before the upgrade", closing_at: new Date(Date.now() + 86_400_000).toISOString()
  })
  const vote = (key: string, option: string) =>
    s.as(key).post("api/b2/stances", { json: { poll_id: poll.id, option_scores: { [option]: 1 } } })
  t.equal((await vote(ada.apiKey, "agree")).statusCode, 200)
  t.equal((await vote(bo.apiKey, "agree")).statusCode, 200)
  t.equal((await vote(ada.apiKey, "disagree")).statusCode, 200, "Ada changes her vote: her first ballot is replaced")
  await s.close()

  // the schema as it was before migration 019 (and so before 020 to 023)
  const db = new Database(filename)
  db.exec(`ALTER TABLE users DROP COLUMN time_zone; ALTER TABLE users DROP COLUMN locale; DROP TABLE server_secrets; DROP TABLE granted_memberships;
    DROP TABLE reply_tokens; DROP TABLE inbound_messages; DROP TABLE thread_volumes; DROP TABLE group_volumes;
    ALTER TABLE mail_outbox DROP COLUMN topic_id; ALTER TABLE mail_outbox DROP COLUMN comment_id;
    ALTER TABLE users DROP COLUMN catch_up; ALTER TABLE users DROP COLUMN catch_up_sent_at; ALTER TABLE users DROP COLUMN placeholder; ALTER TABLE groups DROP COLUMN members_can_create_subgroups; DROP TABLE email_changes; ALTER TABLE topics DROP COLUMN pinned_at;
    DROP INDEX groups_archived; ALTER TABLE groups DROP COLUMN membership_granted_upon; ALTER TABLE groups DROP COLUMN members_can_add_guests;
    ALTER TABLE groups DROP COLUMN members_can_announce; ALTER TABLE groups DROP COLUMN members_can_delete_comments; ALTER TABLE groups DROP COLUMN join_link_epoch;
    ALTER TABLE groups DROP COLUMN archived_at; DROP TABLE membership_requests; DROP TABLE tags; DROP TABLE versions;
    DROP INDEX invitation_tokens_topic; DROP INDEX invitation_tokens_group;
    DROP INDEX webhook_events_group; DROP INDEX unsubscribe_tokens_group; DROP INDEX topic_items_position; DROP TABLE notifications;
    DROP TRIGGER topics_seen_insert; DROP TRIGGER topics_seen_update; DROP TRIGGER topics_seen_delete; ALTER TABLE topics DROP COLUMN seen_by_count;
    ALTER TABLE topic_readers DROP COLUMN last_read_at; ALTER TABLE topic_readers DROP COLUMN read_ranges; ALTER TABLE topic_readers DROP COLUMN dismissed_at; DROP TABLE live_events; DROP INDEX stances_cast; DROP TABLE attachments; DROP TABLE blobs;
    DROP TABLE poll_templates; ALTER TABLE groups DROP COLUMN hidden_poll_templates; ALTER TABLE groups DROP COLUMN poll_template_positions;
    DROP TABLE delegations; DROP INDEX stances_delegated; ALTER TABLE stances DROP COLUMN delegated_by; ALTER TABLE polls DROP COLUMN allow_delegated_votes; ALTER TABLE polls DROP COLUMN stance_reason_required; ALTER TABLE polls DROP COLUMN reminded_at; ALTER TABLE polls DROP COLUMN poll_template_key; ALTER TABLE polls DROP COLUMN poll_template_id;
    ALTER TABLE outcomes DROP COLUMN event_summary; ALTER TABLE outcomes DROP COLUMN event_location; ALTER TABLE mail_outbox DROP COLUMN calendar;
    ALTER TABLE groups DROP COLUMN delegation_limit; ALTER TABLE groups DROP COLUMN members_can_delegate;
    CREATE TABLE group_mutes (user_id INTEGER NOT NULL, group_id INTEGER NOT NULL, created_at TEXT NOT NULL, PRIMARY KEY (user_id, group_id));
    DROP TRIGGER stance_choices_counted_insert; DROP TRIGGER stances_counted_update; DROP INDEX stance_choices_counted;
    ALTER TABLE stance_choices DROP COLUMN counted;
    CREATE INDEX stance_choices_option_order ON stance_choices(poll_option_id, stance_id, score);`)
  db.pragma("user_version = 18")
  db.close()

  s = await startTestServer({}, { filename })
  t.teardown(() => s.close())
  const res = await s.as(bo.apiKey).get(`api/b2/polls/${poll.id}`)
  const voters = Object.fromEntries((res.body as unknown as { polls: Array<{ results: Array<{ name: string; voter_ids: Array<number> }> }> })
    .polls[0]!.results.map((r) => [r.name, r.voter_ids]))
  t.same(voters.agree, [bo.user.id], "agree names Bo, not Ada's replaced ballot")
  t.same(voters.disagree, [ada.user.id], "disagree names Ada")
  t.same((await s.sql("SELECT counted, count(*) AS n FROM stance_choices GROUP BY counted ORDER BY counted")), [{ counted: 0, n: 1 }, { counted: 1, n: 2 }])
})
