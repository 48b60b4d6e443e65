/**
 * A list's rows reach the answer exactly as written whichever way the store reads them: row by row, or, once
 * a statement has answered several rows, as one JSON text built by SQLite (sqlite/db.ts). Titles that JSON
 * must escape (quotes, backslashes, control and line-separator characters, text that looks like JSON or a
 * number) and the list's order are the same on the first read and the next. Control characters go in the
 * descriptions (a title refuses them); the titles carry the rest.
 */
import t from "tap"
import { seedUser, startTestServer } from "./helpers.js"

const TITLES = [
  `Quotes " and 'single' and \\ backslash`,
  "Tab\there, newline\nthere, NUL-free \u0001 control",
  "Line\u2028separator and paragraph\u2029separator",
  "Emoji 🗳️ and accents: Ärger, naïve, 日本語",
  `{"looks": ["like", "json"]}`,
  "007",
  "null"
]

t.test("a list of discussions answers the same titles, in the same order, on every read", async (t) => {
  const s = await startTestServer()
  t.teardown(s.close)
  const ada = await seedUser(s.convene, { name: "Ada" })
  const { group } = await s.convene.groups.create({ name: "Rows", owner: ada.user })
  const titleOf = (text: string) => text.replace(/[\u0000-\u001f\u007f-\u009f]/g, " ")
  for (const text of TITLES) {
    t.equal((await s.as(ada.apiKey).post("api/b2/discussions", { json: { group_id: group.id, title: titleOf(text), description: text } })).statusCode, 200)
  }
  const list = async () => {
    const res = await s.as(ada.apiKey).get(`api/b2/discussions?group_id=${group.id}`)
    t.equal(res.statusCode, 200)
    return res.body as unknown as { discussions: Array<{ id: number; title: string; description: string }> }
  }
  const first = await list()
  const second = await list()
  const third = await list()
  t.same(first.discussions.map((d) => d.title).sort(), TITLES.map(titleOf).sort(), "every title exactly as written")
  t.same(first.discussions.map((d) => d.description).sort(), [...TITLES].sort(), "every description too, control characters and all")
  t.same(second, first, "the next read answers the same")
  t.same(third, first, "and the one after")
  t.same(first.discussions.map((d) => d.id), [...first.discussions.map((d) => d.id)].sort((a, b) => b - a), "newest activity first")
})
