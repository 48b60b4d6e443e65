/**
 * A poll's results taken away (decisions §15): `/p/{key}/export.csv` and `/p/{key}/print`, for those who may see the
 * results now. The CSV's vote rows equal the ballots (a recount), an anonymous poll's name no one and carry no ids, a
 * text a spreadsheet would run as a formula stays text; hidden results are refused; the printed page passes axe.
 */
import t from "tap"
import { axe, codeSignIn, startBrowsing } from "./browsing.js"
import { future, seedUser } from "./helpers.js"
import { matchExact } from "./match.js"

t.setTimeout(120_000)

const { s, smtp, browser } = await startBrowsing()
const signIn = codeSignIn(s, smtp)
const ada = await seedUser(s.convene, { name: "Ada", email: "ada@example.org" })
const bo = await seedUser(s.convene, { name: "Bo", email: "bo@example.org" })
const cy = await seedUser(s.convene, { name: "Cy", email: "cy@example.org" })
const { group } = await s.convene.groups.create({ name: "Board", owner: ada.user })
for (const u of [bo, cy]) await s.convene.members.add({ group, user: u.user })
const [A, B, C] = [ada, bo, cy].map((u) => s.as(u.apiKey))
const ok = async (p: Promise<any>) => {
  const r = await p
  if (r.statusCode !== 200) throw new Error(`${r.statusCode} ${JSON.stringify(r.body)}`)
  return r.body as any
}
const newPoll = async (extra: object) =>
  (await ok(A.post("api/b2/polls", { json: { group_id: group.id, title: "Which colour?", poll_type: "poll", options: ["Red", "Green"], closing_at: future(48), ...extra } }))).polls[0]

/** RFC 4180, enough for the test: quoted fields with doubled quotes, commas and line breaks inside. */
const parseCsv = (text: string): Array<Array<string>> => {
  const rows: Array<Array<string>> = [[]]
  let field = ""
  let quoted = false
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') field += text[++i]
      else if (c === '"') quoted = false
      else field += c
    } else if (c === '"') quoted = true
    else if (c === ",") rows.at(-1)!.push(field), field = ""
    else if (c === "\r" && text[i + 1] === "\n") { rows.at(-1)!.push(field); field = ""; rows.push([]); i++ }
    else field += c
  }
  return rows.filter((r) => r.length > 0 && !(r.length === 1 && r[0] === ""))
}
// each person signed in once (sign-in codes are rate limited per address): the pages read the session
const sessions = {
  ada: await signIn(await browser.newContext(), "ada@example.org"),
  bo: await signIn(await browser.newContext(), "bo@example.org"),
  cy: await signIn(await browser.newContext(), "cy@example.org")
}
type Who = keyof typeof sessions
const get = (who: Who, path: string) => sessions[who].request.get(`${s.url}/${path}`, { maxRedirects: 0 })
const csv = async (who: Who, key: string) => {
  const res = await get(who, `p/${key}/export.csv`)
  const headers = res.headers()
  return { status: res.status(), type: headers["content-type"], disposition: headers["content-disposition"], rows: res.status() === 200 ? parseCsv((await res.text()).replace(/^\ufeff/, "")) : [] }
}
/** The vote rows: those after the header that begins the votes. */
const voteRows = (rows: Array<Array<string>>, header: string) => rows.slice(rows.findIndex((r) => r.includes(header)) + 1)

t.test("the CSV: the poll, its results, and one row per ballot equal to the ballots", async (t) => {
  const poll = await newPoll({})
  await ok(B.post("api/b2/stances", { json: { poll_id: poll.id, option_scores: { Red: 1 }, reason: 'Warm, "bold", and bright' } }))
  await ok(C.post("api/b2/stances", { json: { poll_id: poll.id, option_scores: { Green: 1 }, reason: "=HYPERLINK(\"http://evil.example\")" } }))
  await ok(A.post("api/b2/stances", { json: { poll_id: poll.id, option_scores: { Green: 1 } } }))
  const got = await csv("bo", poll.key)
  t.equal(got.status, 200)
  t.equal(got.type, "text/csv; charset=utf-8")
  t.equal(got.disposition, `attachment; filename="poll-${poll.key}.csv"`)
  matchExact(t, got.rows.slice(0, 6), [["Poll", "Which colour?"], ["Poll type", "Poll"], ["State", /^Open/], ["Voters", "3"], ["Votes cast", "3"], ["Votes cast by delegates", "0"]])
  matchExact(t, got.rows.slice(6, 9), [["Option", "Votes", "Share"], ["Green", "2", "66.67%"], ["Red", "1", "33.33%"]], "the results per option, as ranked")
  const header = got.rows.find((r) => r[0] === "Voter id")!
  matchExact(t, header, ["Voter id", "Voter", "Cast at (UTC)", "Red", "Green", "Reason", "Cast by delegate"])
  const rows = voteRows(got.rows, "Voter id")
  const ballots = await s.sql<any>(`SELECT s.participant_id, s.cast_at, s.reason, o.name FROM stances s JOIN stance_choices c ON c.stance_id = s.id
    JOIN poll_options o ON o.id = c.poll_option_id WHERE s.poll_id = ? AND s.latest = TRUE AND s.cast_at IS NOT NULL ORDER BY s.cast_at, s.id`, poll.id)
  const names = new Map([[ada.user.id, "Ada"], [bo.user.id, "Bo"], [cy.user.id, "Cy"]])
  matchExact(t, rows, ballots.map((b) => [String(b.participant_id), names.get(Number(b.participant_id))!, b.cast_at, b.name === "Red" ? "1" : "0", b.name === "Green" ? "1" : "0",
    b.reason === null ? "" : b.reason.startsWith("=") ? `'${b.reason}` : b.reason, ""]), "one row per ballot, equal to the ballots")
  t.equal(rows[1]![5], "'=HYPERLINK(\"http://evil.example\")", "a formula stays text")
})

t.test("an anonymous poll's rows name no one and carry no ids", async (t) => {
  const poll = await newPoll({ anonymous: true, title: "Secret colour" })
  await ok(B.post("api/b2/stances", { json: { poll_id: poll.id, option_scores: { Red: 1 }, reason: "Because" } }))
  await ok(C.post("api/b2/stances", { json: { poll_id: poll.id, option_scores: { Green: 1 } } }))
  const got = await csv("ada", poll.key)
  t.equal(got.status, 200)
  const header = got.rows.find((r) => r[0] === "Cast at (UTC)")!
  matchExact(t, header, ["Cast at (UTC)", "Red", "Green", "Reason"], "no voter columns")
  const rows = voteRows(got.rows, "Cast at (UTC)")
  t.equal(rows.length, 2, "a row per ballot")
  const text = got.rows.flat().join("\n")
  for (const u of [bo, cy]) {
    t.notOk(text.includes(String(u.user.name)), "no name")
    t.notOk(got.rows.slice(9).flat().includes(String(u.user.id)), "no id")
  }
  const page = sessions.ada
  await page.goto(`${s.url}/p/${poll.key}/print`)
  t.match(await page.locator("main").textContent(), /A voter[\s\S]*Because/)
  t.notMatch(await page.locator("main").textContent() ?? "", /\bBo\b|\bCy\b/)
  await axe(t, page, "printed anonymous poll")
})

t.test("hidden results are not taken away; once visible, they are", async (t) => {
  const poll = await newPoll({ hide_results: "until_vote", title: "Hidden colour" })
  await ok(B.post("api/b2/stances", { json: { poll_id: poll.id, option_scores: { Red: 1 } } }))
  t.equal((await csv("cy", poll.key)).status, 404, "Cy has not voted: refused")
  t.equal((await get("cy", `p/${poll.key}/print`)).status(), 404)
  t.equal((await csv("bo", poll.key)).status, 200, "Bo has voted: his")
  await ok(C.post("api/b2/stances", { json: { poll_id: poll.id, option_scores: { Green: 1 } } }))
  t.equal((await csv("cy", poll.key)).status, 200, "now Cy's too")
  const visitor = await (await browser.newContext()).request.get(`${s.url}/p/${poll.key}/export.csv`, { maxRedirects: 0 })
  t.not(visitor.status(), 200, "not to a signed-out visitor")
  t.equal((await B.get(`p/${poll.key}/export.csv`)).statusCode === 200, false, "nor to an API key (the pages read a session)")
  t.equal((await csv("ada", "no-such-poll")).status, 404)
})

t.test("the printed page, from the poll page's link", async (t) => {
  const poll = await newPoll({ title: "Printed colour" })
  await ok(B.post("api/b2/stances", { json: { poll_id: poll.id, option_scores: { Red: 1 }, reason: "It is warm" } }))
  const page = sessions.bo
  await page.goto(`${s.url}/p/${poll.key}`)
  t.equal(await page.getByRole("link", { name: "Download the results (CSV)" }).getAttribute("href"), `/p/${poll.key}/export.csv`)
  await page.getByRole("link", { name: "Print the results" }).click()
  await page.waitForURL(`${s.url}/p/${poll.key}/print`)
  t.equal(await page.locator("h1").textContent(), "Printed colour")
  t.match(await page.locator("main").textContent(), /Bo ·[^\n]*\s*Red\s*It is warm/)
  await axe(t, page, "printed poll")
})
