/**
 * `recipient_audience: "group"` reaches the group's accepted human members, for discussions and polls
 * alike (one rule, rules/recipients.ts): not pending invitations, not bots, not the actor.
 */
import t from "tap"
import { startTestServer } from "./helpers.js"

const s = await startTestServer()
t.teardown(s.close)
const make = (name: string, extra: { bot?: boolean } = {}) => s.convene.users.create({ email: `${name}@example.org`, name, ...extra })
const owner = await make("owner")
const accepted = await make("accepted")
const pending = await make("pending")
const bot = await make("bot", { bot: true })
const { group } = await s.convene.groups.create({ name: "Audience", owner: owner.user })
await s.convene.members.add({ group, user: accepted.user })
await s.convene.members.add({ group, user: pending.user, pending: true })
await s.convene.members.add({ group, user: bot.user })
const O = s.as(owner.apiKey)
const mailTo = async (kind: string) =>
  ((await s.sql("SELECT recipient_email FROM mail_outbox WHERE kind = ? ORDER BY recipient_email", kind)) as Array<{ recipient_email: string }>).map((r) => r.recipient_email)

t.test("a discussion announced to the group", async (t) => {
  t.equal((await O.post("api/b2/discussions", { json: { group_id: group.id, title: "Hello all", recipient_audience: "group" } })).statusCode, 200)
  t.same((await mailTo("new_discussion")), ["accepted@example.org"])
})

t.test("a poll announced to the group", async (t) => {
  const res = await O.post("api/b2/polls", {
    json: { group_id: group.id, title: "Vote", poll_type: "proposal", closing_at: new Date(Date.now() + 86_400_000).toISOString(), recipient_audience: "group", notify_recipients: true }
  })
  t.equal(res.statusCode, 200)
  t.same((await mailTo("poll_invitation")), ["accepted@example.org"], "the same people as for a discussion")
})
