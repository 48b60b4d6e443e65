// Embedding the convene core in your own Node application: run with `node examples/embed/index.mjs`.
import { makeConvene } from "@convene/core"

const convene = makeConvene({ filename: ":memory:" })

const { user: ada, apiKey } = await convene.users.create({ email: "ada@example.org", name: "Ada" })
const { user: bob } = await convene.users.create({ email: "bob@example.org", name: "Bob" })
const { group } = await convene.groups.create({ name: "Board", owner: ada })
await convene.members.add({ group, user: bob })

// Act as a user: the same permission rules as the HTTP API apply.
const asAda = convene.as(ada)
console.log(await asAda.syncMemberships(group.id, ["ada@example.org", "bob@example.org", "cy@example.org"]))
const members = await asAda.memberships(group.id)
console.log(`${group.name} has ${members.total} members; Ada's API key starts ${apiKey.slice(0, 6)}…`)

// Domain errors reject with the error value itself.
await convene.as(bob).syncMemberships(group.id, []).catch((e) => console.log(`Bob may not: ${e._tag} ${e.message}`))

// Polls, votes and outcomes, with the rules of the HTTP API.
const closingAt = new Date(Date.now() + 7 * 86_400_000).toISOString()
const poll = await asAda.startPoll({ group_id: group.id, title: "Adopt the budget?", poll_type: "proposal", closing_at: closingAt })
const asBob = convene.as(bob)
await asBob.vote({ poll_id: poll.poll.id, option_scores: { agree: 1 }, reason: "Looks right" })
await asBob.closePoll(poll.poll.key).catch((e) => console.log(`Bob may not close it: ${e._tag}`))

const closed = await asAda.closePoll(poll.poll.key)
console.log(`${closed.poll.title} closed: ${closed.cast_count} of ${closed.voters_count} voted`)
await asBob.vote({ poll_id: poll.poll.id, option_scores: { disagree: 1 } }).catch((e) => console.log(`Late vote refused: ${e._tag} ${JSON.stringify(e.errors)}`))
const outcome = await asAda.publishOutcome({ poll_id: poll.poll.id, statement: "Adopted." })
console.log(`Outcome: ${outcome.outcome.statement}`)
await asAda.startPoll({ group_id: group.id, title: "Bad", poll_type: "lottery" }).catch((e) => console.log(`Bad input: ${e._tag} ${JSON.stringify(e.errors)}`))

await convene.close()
