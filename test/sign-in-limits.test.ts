/**
 * The sign-in limits of decisions §5, each pinned to its value with the exact sequence of answers: a fresh
 * server, and a client address (127.0.0.x) and e-mail address that nothing else used. 30 code requests an
 * hour per client address, 5 an hour per e-mail address, 10 wrong codes and the code dies; each window ends
 * after its hour (the recorded events moved back in the database, the server's clock left alone).
 */
import t from "tap"
import { browserSession, seedUser } from "./helpers.js"
import { signInMail, startMailedServer } from "./mailed.js"

const server = await startMailedServer()
const { s } = server
t.teardown(server.close)

let lastHost = 10
/** A browser on a client address of its own. */
const freshClient = async () => {
  const b = browserSession(s.url, { from: `127.0.0.${++lastHost}` })
  await b.get("/sign-in")
  return b
}
/** Moves every recorded sign-in event back past its hour. */
const anHourLater = () => s.sql("UPDATE rate_events SET at = ? WHERE key LIKE 'sign-in:%'", new Date(Date.now() - 3_601_000).toISOString())

t.test("30 code requests an hour per client address: the 31st is 429, another address is not held up, and the hour ends", async (t) => {
  const b = await freshClient()
  const statuses: Array<number> = []
  for (let i = 0; i < 31; i++) statuses.push((await b.post("/sign-in", { email: `ip-limit-${i}@example.org` })).status)
  t.same(statuses, [...Array(30).fill(200), 429], "exactly 30 answered, then refused")
  const refused = await b.post("/sign-in", { email: "ip-limit-extra@example.org" })
  t.equal(refused.status, 429)
  const retry = Number(refused.headers.get("retry-after"))
  t.ok(retry > 3500 && retry <= 3600, `Retry-After is the rest of the hour (${retry} s)`)
  t.equal((await (await freshClient()).post("/sign-in", { email: "ip-limit-other@example.org" })).status, 200, "another client address is not limited")
  await anHourLater()
  t.equal((await b.post("/sign-in", { email: "ip-limit-later@example.org" })).status, 200, "an hour later the address may ask again")
})

t.test("5 codes an hour per e-mail address, from any client address, with or without an account; the hour ends", async (t) => {
  await seedUser(s.convene, { name: "Kim", email: "kim@example.org" })
  for (const email of ["kim@example.org", "no-account@example.org"]) {
    const statuses: Array<number> = []
    // each request from a client address of its own: the per-address limit is what answers
    for (let i = 0; i < 6; i++) statuses.push((await (await freshClient()).post("/sign-in", { email })).status)
    t.same(statuses, [200, 200, 200, 200, 200, 429], `${email}: exactly 5, then refused`)
    t.equal((await (await freshClient()).post("/sign-in", { email: email.toUpperCase() })).status, 429, "the address is counted without regard to case")
  }
  await anHourLater()
  t.equal((await (await freshClient()).post("/sign-in", { email: "kim@example.org" })).status, 200, "an hour later the address may ask again")
})

t.test("10 wrong codes: nine answered 403, the tenth 429, then even the right code is refused", async (t) => {
  await seedUser(s.convene, { name: "Lou", email: "lou@example.org" })
  const b = await freshClient()
  const { code } = await signInMail(server, "lou@example.org", `127.0.0.${++lastHost}`)
  const wrong = code === "000000" ? "111111" : "000000"
  const statuses: Array<number> = []
  for (let i = 0; i < 10; i++) statuses.push((await b.post("/sign-in/code", { email: "lou@example.org", code: wrong })).status)
  t.same(statuses, [...Array(9).fill(403), 429], "exactly 10 guesses counted")
  const dead = await b.post("/sign-in/code", { email: "lou@example.org", code })
  t.equal(dead.status, 429, "the right code no longer works")
  t.ok(Number(dead.headers.get("retry-after")) > 0, "with Retry-After")
  t.same((await s.sql("SELECT count(*) AS n FROM sessions s JOIN users u ON u.id = s.user_id WHERE u.email = 'lou@example.org'")), [{ n: 0 }], "nobody signed in")
})

t.test("wrong codes are counted per address whether or not it has an account: the same answers for both", async (t) => {
  await seedUser(s.convene, { name: "Max", email: "max@example.org" })
  const sequences: Array<Array<number>> = []
  for (const email of ["max@example.org", "nobody-here@example.org"]) {
    const b = await freshClient()
    t.equal((await b.post("/sign-in", { email })).status, 200)
    const statuses: Array<number> = []
    for (let i = 0; i < 12; i++) statuses.push((await b.post("/sign-in/code", { email, code: "000000" })).status)
    sequences.push(statuses)
  }
  t.same(sequences[0], [...Array(9).fill(403), 429, 429, 429], "an account: nine refusals, then 429")
  t.same(sequences[1], sequences[0], "no account: exactly the same")
})

t.test("20 wrong codes a day per address across codes, then only the link works; a guess does not kill the link", async (t) => {
  const { user } = await seedUser(s.convene, { name: "Nia", email: "nia@example.org" })
  const b = await freshClient()
  const guess = async (n: number) => {
    const statuses: Array<number> = []
    for (let i = 0; i < n; i++) statuses.push((await b.post("/sign-in/code", { email: "nia@example.org", code: "000000" })).status)
    return statuses
  }
  const mailed = () => signInMail(server, "nia@example.org", `127.0.0.${++lastHost}`)
  await mailed()
  t.same(await guess(9), Array(9).fill(403), "nine wrong on the first code")
  await mailed()
  t.same(await guess(9), Array(9).fill(403), "nine on the second: a new code starts a new count of ten")
  const last = await mailed()
  t.same(await guess(3), [403, 403, 429], "the day's 20th is the last refused as wrong; then 429")
  const right = await b.post("/sign-in/code", { email: "nia@example.org", code: last.code })
  t.equal(right.status, 429, "even the right code is refused for the rest of the day")
  t.match(right.html, /use the link in your latest sign-in e-mail/)
  const viaLink = await b.post(last.link, {})
  t.equal(viaLink.status, 303, "the one-time link still signs in")
  t.same((await s.sql("SELECT count(*) AS n FROM sessions WHERE user_id = ?", user.id)), [{ n: 1 }])
})

t.test("60 wrong codes an hour from one client, whatever the addresses; another client is not held up", async (t) => {
  const b = await freshClient()
  const statuses: Array<number> = []
  for (let a = 0; a < 7; a++) {
    const email = `guess-${a}@example.org`
    await b.post("/sign-in", { email })
    for (let i = 0; i < 9; i++) statuses.push((await b.post("/sign-in/code", { email, code: "000000" })).status)
  }
  t.same(statuses, [...Array(60).fill(403), 429, 429, 429], "sixty, then refused")
  const other = await freshClient()
  await other.post("/sign-in", { email: "guess-0@example.org" })
  t.equal((await other.post("/sign-in/code", { email: "guess-6@example.org", code: "000000" })).status, 403, "another client still gets an answer")
})
