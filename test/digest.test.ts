/**
 * The catch-up e-mail (decisions §11) with the clock controlled: made at 06:00 in the person's time zone (here
 * New York), every day, every other day or once a week, with what happened since the last; nothing new,
 * nothing sent; a muted group left out; `convene mail digest --now --user`.
 */
import { Comments, Digest, Discussions, loadAccess, Messages, Rules, Store } from "@convene/core"
import { Effect, TestClock, TestContext } from "effect"
import t from "tap"
import { runHere, startTestServer } from "./helpers.js"

const s = await startTestServer()
t.teardown(() => s.close())
const c = s.convene
const at = (iso: string) => <A, E>(e: Effect.Effect<A, E, Store>) =>
  c.run(Effect.zipRight(TestClock.setTime(Date.parse(iso)), e).pipe(Effect.provide(TestContext.TestContext)))

const ada = await c.users.create({ email: "ada@example.org", name: "Ada" })
const nia = await c.users.create({ email: "nia@example.org", name: "Nia" })
const { group } = await c.groups.create({ name: "Garden", owner: ada.user })
const { group: quiet } = await c.groups.create({ name: "Quiet", owner: ada.user })
await c.members.add({ group, user: nia.user })
await c.members.add({ group: quiet, user: nia.user })
// Nia lives in New York: 06:00 there is 11:00 UTC in November
await s.sql("UPDATE users SET time_zone = 'America/New_York', catch_up = 'daily', catch_up_sent_at = '2019-11-04T11:00:00.000Z' WHERE id = ?", nia.user.id)
await s.sql("INSERT INTO group_volumes (user_id, group_id, volume, updated_at) VALUES (?, ?, 'mute', '2019-11-01T00:00:00Z')", nia.user.id, quiet.id)

const digests = async () => s.sql<{ subject: string; body: string; created_at: string }>("SELECT subject, body, created_at FROM mail_outbox WHERE kind = 'catch_up' ORDER BY id")

t.test("daily at 06:00 in New York, with what happened since the last; nothing new, nothing sent", async (t) => {
  const adaAccess = await c.run(loadAccess(ada.user))
  const made = await at("2019-11-04T15:00:00Z")(Discussions.createDiscussion(adaAccess, { group_id: group.id, title: "Compost" }))
  await at("2019-11-04T16:00:00Z")(Comments.createComment(adaAccess, made.discussion.id, { body: "One" }))
  await at("2019-11-04T17:00:00Z")(Comments.createComment(adaAccess, made.discussion.id, { body: "Two" }))
  await at("2019-11-04T18:00:00Z")(Discussions.createDiscussion(adaAccess, { group_id: quiet.id, title: "Hush" }))

  t.equal(await at("2019-11-05T10:59:00Z")(Digest.sendDigests()), 0, "05:59 in New York: not yet")
  t.equal(await at("2019-11-05T11:01:00Z")(Digest.sendDigests()), 1, "06:01 in New York")
  t.equal(await at("2019-11-05T11:30:00Z")(Digest.sendDigests()), 0, "once a morning")
  const [mail] = await digests()
  t.equal(mail!.subject, "What happened in your groups")
  t.match(mail!.body, /\*\*Garden\*\*/)
  t.match(mail!.body, /New discussion: Compost/)
  t.match(mail!.body, /Compost: 2 new comments/)
  t.notMatch(mail!.body, /Quiet|Hush/, "a muted group is left out")
  const [row] = await s.sql<Record<string, unknown>>("SELECT * FROM mail_outbox WHERE kind = 'catch_up'")
  const sent = Rules.renderMail(row as never, { baseUrl: "http://convene.test", from: "n@convene.test", name: "convene" }, null, Messages.mailTranslator(nia.user))
  t.match(sent.html, /<html lang="en">.*<strong>Garden<\/strong>.*<ul>\s*<li>New discussion: Compost<\/li>/s, "HTML: the group a heading in bold, its news a list")
  t.match(sent.text, /\*\*Garden\*\*\n\n- New discussion: Compost/, "and the same as text")

  t.equal(await at("2019-11-06T11:01:00Z")(Digest.sendDigests()), 0, "the next morning: nothing new, nothing sent")
  t.equal((await digests()).length, 1)
})

t.test("every other day and weekly wait their turn; convene mail digest --now --user", async (t) => {
  await s.sql("UPDATE users SET catch_up = 'every_other_day', catch_up_sent_at = '2019-11-06T11:01:00.000Z' WHERE id = ?", nia.user.id)
  const adaAccess = await c.run(loadAccess(ada.user))
  await at("2019-11-06T20:00:00Z")(Discussions.createDiscussion(adaAccess, { group_id: group.id, title: "Seeds" }))
  t.equal(await at("2019-11-07T11:05:00Z")(Digest.sendDigests()), 0, "one day later: not yet")
  t.equal(await at("2019-11-08T11:05:00Z")(Digest.sendDigests()), 1, "two days later")
  await s.sql("UPDATE users SET catch_up = 'weekly' WHERE id = ?", nia.user.id)
  await at("2019-11-09T20:00:00Z")(Discussions.createDiscussion(adaAccess, { group_id: group.id, title: "Tools" }))
  t.equal(await at("2019-11-12T11:05:00Z")(Digest.sendDigests()), 0, "four days later: not yet")
  t.equal(await at("2019-11-15T11:05:00Z")(Digest.sendDigests()), 1, "a week later")
  t.match((await digests()).at(-1)!.body, /New discussion: Tools/)

  // by hand, on the real clock: the catch-up covers since the last one
  await s.sql("UPDATE users SET catch_up_sent_at = ? WHERE id = ?", new Date(Date.now() - 3_600_000).toISOString(), nia.user.id)
  await c.run(Discussions.createDiscussion(adaAccess, { group_id: group.id, title: "Water" }))
  const { code, stdout } = await runHere(["mail", "digest", "--now", "--user", String(nia.user.id), "--json", "--db", s.filename])
  t.equal(code, 0)
  t.same(JSON.parse(stdout), { made: 1 }, "--now makes it whatever the schedule says")
  t.match((await digests()).at(-1)!.body, /New discussion: Water/)
})
