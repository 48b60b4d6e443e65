// A script over convene's user API (/api/b2), as any Loomio integration uses it: run with
// `CONVENE_URL=http://localhost:3000 CONVENE_API_KEY=… node examples/api-client/index.mjs`
// (the key is on the API access page, or from `convene users api-key ID`). It starts a discussion in the
// caller's first group, comments on it, proposes something there, votes and prints the result.
const base = (process.env.CONVENE_URL ?? "http://localhost:3000").replace(/\/$/, "")
const key = process.env.CONVENE_API_KEY
if (!key) {
  console.error("set CONVENE_API_KEY to your API key")
  process.exit(2)
}

/** One call: the JSON answer, or an error naming the status and what the server said. */
const call = async (method, path, body) => {
  const res = await fetch(`${base}/api/b2/${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body)
  })
  const answer = await res.json()
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(answer)}`)
  return answer
}

const main = async () => {
  const { groups } = await call("GET", "groups")
  if (groups.length === 0) throw new Error("you belong to no group yet")
  const group = groups[0]
  console.log(`group: ${group.name} (${group.accepted_memberships_count} members)`)

  const { discussions: [discussion] } = await call("POST", "discussions", { group_id: group.id, title: "Where shall we meet?", description: "Two places are free in March." })
  console.log(`discussion: ${discussion.title} ${base}/d/${discussion.key}`)
  await call("POST", "comments", { discussion_id: discussion.id, body: "The library has a room with a projector." })

  const closing = new Date(Date.now() + 3 * 86_400_000).toISOString()
  const { polls: [poll] } = await call("POST", "polls", { discussion_id: discussion.id, title: "Meet at the library?", poll_type: "proposal", closing_at: closing })
  await call("POST", "stances", { poll_id: poll.id, option_scores: { agree: 1 }, reason: "Close to the station." })

  const answer = await call("GET", `polls/${poll.id}`)
  console.log(`poll: ${answer.polls[0].title}, ${answer.polls[0].voters_count} voted`)
  // an option's counts are left out while the poll hides its results
  for (const option of answer.poll_options) console.log(`  ${option.name}: ${option.voter_count ?? "hidden"}`)
}

main().catch((e) => {
  console.error(`error: ${e.message}`)
  process.exitCode = 1
})
