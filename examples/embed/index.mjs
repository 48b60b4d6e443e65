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

await convene.close()
