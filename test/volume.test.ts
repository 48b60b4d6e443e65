/**
 * Volume and mentions (decisions §11), as a table of who receives what: Mute gets nothing, Normal gets new
 * threads, mentions and replies, Loud also every comment and vote; a thread's volume wins over its group's;
 * set over the API's set_volume extension (b2) by each person for themselves.
 */
import t from "tap"
import { startTestServer } from "./helpers.js"

const s = await startTestServer()
t.teardown(() => s.close())

const person = (name: string) => s.convene.users.create({ email: `${name}@example.org`, name, username: name })
const [ada, bea, cal, dan, eve, fay, gus] = await Promise.all(["ada", "bea", "cal", "dan", "eve", "fay", "gus"].map(person))
const names = new Map([ada, bea, cal, dan, eve, fay, gus].map((p) => [p!.user.id, p!.user.name!]))
const { group } = await s.convene.groups.create({ name: "Garden", owner: ada!.user })
for (const p of [bea, cal, dan, eve, fay, gus]) await s.convene.members.add({ group, user: p!.user })
const as = (p: typeof ada) => s.as(p!.apiKey)

let seen = 0
/** The notifications queued since the last call, as "name: kind", sorted. */
const received = async () => {
  const rows = await s.sql<{ id: number; recipient_user_id: number; kind: string }>("SELECT id, recipient_user_id, kind FROM mail_outbox WHERE id > ? ORDER BY id", seen)
  seen = rows.at(-1)?.id ?? seen
  return rows.map((r) => `${names.get(r.recipient_user_id)}: ${r.kind}`).sort()
}

t.test("set_volume: a member's group volume, anyone's thread volume; bad input refused", async (t) => {
  for (const [p, v] of [[bea, "loud"], [cal, "mute"], [fay, "mute"], [gus, "loud"]] as const) {
    const r = await as(p).patch(`api/b2/groups/${group.id}/set_volume`, { json: { volume: v } })
    t.equal(r.statusCode, 200)
    t.same(r.body, { volume: { group_id: group.id, volume: v, effective: v } })
  }
  t.equal((await as(bea).patch(`api/b2/groups/${group.id}/set_volume`, { json: { volume: "deafening" } })).statusCode, 400)
  const outsider = await s.convene.users.create({ email: "out@example.org", name: "Out" })
  t.equal((await as(outsider).patch(`api/b2/groups/${group.id}/set_volume`, { json: { volume: "loud" } })).statusCode, 403, "not a member")
  await received()
})

t.test("who receives what", async (t) => {
  const made = await as(ada).post("api/b2/discussions", { json: { group_id: group.id, title: "Compost", recipient_audience: "group" } })
  const d = (made.body as unknown as { discussions: Array<{ id: number }> }).discussions[0]!
  t.same(await received(), ["bea: new_discussion", "dan: new_discussion", "eve: new_discussion", "gus: new_discussion"],
    "a new thread: Normal and Loud, not Mute (Cal, Fay)")

  for (const [p, v] of [[eve, "loud"], [fay, "loud"], [gus, "mute"]] as const) {
    const r = await as(p).patch(`api/b2/discussions/${d.id}/set_volume`, { json: { volume: v } })
    t.equal(r.statusCode, 200)
    t.match(r.body, { volume: { discussion_id: d.id, volume: v, effective: v } })
  }

  const c1 = await as(ada).post("api/b2/comments", { json: { discussion_id: d.id, body: "Let's begin." } })
  t.same(await received(), ["bea: new_comment", "eve: new_comment", "fay: new_comment"],
    "a comment: Loud only — Bea by her group, Eve and Fay by the thread (Fay's thread wins over her muted group); not Gus (his thread is muted)")

  await as(ada).post("api/b2/comments", { json: { discussion_id: d.id, body: "What do @dan and @cal think? (not ada@example.org)" } })
  t.same(await received(), ["bea: new_comment", "dan: user_mentioned", "eve: new_comment", "fay: new_comment"],
    "a mention notifies Dan (Normal); Cal's group is muted; Loud listeners hear the comment once")

  const first = (c1.body as unknown as { comments: Array<{ id: number }> }).comments[0]!.id
  await as(bea).post("api/b2/comments", { json: { discussion_id: d.id, body: "Yes!", parent_id: first } })
  t.same(await received(), ["ada: comment_replied_to", "eve: new_comment", "fay: new_comment"], "a reply tells its parent's author; the actor hears nothing")

  const poll = await as(ada).post("api/b2/polls", { json: { discussion_id: d.id, title: "Saturday?", poll_type: "proposal", closing_at: new Date(Date.now() + 3 * 86_400_000).toISOString() } })
  t.equal(poll.statusCode, 200)
  await received()
  const pollId = (poll.body as unknown as { polls: Array<{ id: number }> }).polls[0]!.id
  t.equal((await as(dan).post("api/b2/stances", { json: { poll_id: pollId, option_scores: { agree: 1 } } })).statusCode, 200)
  t.same(await received(), ["bea: stance_created", "eve: stance_created", "fay: stance_created"], "a vote: Loud only")
  t.equal((await as(dan).post("api/b2/stances", { json: { poll_id: pollId, option_scores: { disagree: 1 } } })).statusCode, 200)
  t.same(await received(), [], "a changed vote is not news")

  t.equal((await as(cal).patch(`api/b2/discussions/${d.id}/set_volume`, { json: { volume: "normal" } })).statusCode, 200)
  await as(ada).post("api/b2/comments", { json: { discussion_id: d.id, body: "@cal, over to you." } })
  t.same(await received(), ["bea: new_comment", "cal: user_mentioned", "eve: new_comment", "fay: new_comment"], "Cal's thread volume (Normal) wins over his muted group")
})
