/**
 * Decisions §5 "Every way in is bounded and cleaned": changing only a record's format re-cleans its stored text as
 * the new format. Each record with a body (discussion, comment, poll, outcome) × each way of changing the format
 * the API has (PATCH, PUT): markdown written with a redirecting `<meta>` and a script, relabelled html, is stored, served and
 * shown sanitised; relabelled markdown again, it stays as stored (markdown is kept as written).
 */
import t from "tap"
import { browserSession, future, seedUser, startTestServer } from "./helpers.js"

const s = await startTestServer()
t.teardown(s.close)
const ada = await seedUser(s.convene, { name: "Ada" })
const group = (await s.convene.groups.create({ name: "Open", owner: ada.user, public: true })).group
const A = s.as(ada.apiKey)

const HOSTILE = `<meta http-equiv="refresh" content="0;url=https://evil.example/"><script>alert(1)</script><b>kept</b>`
const CLEAN = "<b>kept</b>"

interface Kind {
  readonly name: string
  readonly path: string
  readonly root: string
  readonly table: string
  readonly text: string
  readonly format: string
  /** the ways the API changes it (an outcome is changed by PATCH only) */
  readonly methods: ReadonlyArray<"patch" | "put">
  /** a new record holding HOSTILE as markdown, by its id */
  readonly create: () => Promise<number>
  /** the page showing it, read by a visitor (the group and its threads are public) */
  readonly page: (id: number) => Promise<string>
}

const newDiscussion = async (body = HOSTILE) =>
  ((await A.post("api/b2/discussions", { json: { group_id: group.id, title: "T", description: body, private: false } })).body as any).discussions[0]
const newPoll = async (details = HOSTILE) => {
  const res = await A.post("api/b2/polls", {
    json: { discussion_id: (await newDiscussion("plain")).id, title: "P", poll_type: "proposal", details, closing_at: future() }
  })
  t.equal(res.statusCode, 200, JSON.stringify(res.body))
  return (res.body as any).polls[0]
}
const visitor = browserSession(s.url)
const html = async (path: string) => {
  const page = await visitor.get(path)
  t.equal(page.status, 200, path)
  return page.html
}

const kinds: ReadonlyArray<Kind> = [
  {
    name: "discussion", path: "discussions", root: "discussions", table: "discussions", text: "description", format: "description_format", methods: ["patch", "put"],
    create: async () => (await newDiscussion()).id,
    page: async (id) => html(`/d/${(await s.sql<{ key: string }>("SELECT key FROM discussions WHERE id = ?", id))[0]!.key}`)
  },
  {
    name: "comment", path: "comments", root: "comments", table: "comments", text: "body", format: "body_format", methods: ["patch", "put"],
    create: async () => {
      const d = await newDiscussion("plain")
      return ((await A.post("api/b2/comments", { json: { discussion_id: d.id, body: HOSTILE } })).body as any).comments[0].id
    },
    page: async (id) =>
      html(`/d/${(await s.sql<{ key: string }>("SELECT d.key FROM comments c JOIN discussions d ON d.id = c.discussion_id WHERE c.id = ?", id))[0]!.key}`)
  },
  {
    name: "poll", path: "polls", root: "polls", table: "polls", text: "details", format: "details_format", methods: ["patch", "put"],
    create: async () => (await newPoll()).id,
    page: async (id) => html(`/p/${(await s.sql<{ key: string }>("SELECT key FROM polls WHERE id = ?", id))[0]!.key}`)
  },
  {
    name: "outcome", path: "outcomes", root: "outcomes", table: "outcomes", text: "statement", format: "statement_format", methods: ["patch"],
    create: async () => {
      const p = await newPoll("plain")
      await A.post(`api/b2/polls/${p.id}/close`)
      return ((await A.post("api/b2/outcomes", { json: { poll_id: p.id, statement: HOSTILE } })).body as any).outcomes[0].id
    },
    page: async (id) =>
      html(`/p/${(await s.sql<{ key: string }>("SELECT p.key FROM outcomes o JOIN polls p ON p.id = o.poll_id WHERE o.id = ?", id))[0]!.key}`)
  }
]

for (const kind of kinds) {
  for (const method of kind.methods) {
    t.test(`${kind.name}: ${method.toUpperCase()} with only ${kind.format}`, async (t) => {
      const id = await kind.create()
      const stored = async () => (await s.sql<Record<string, string>>(`SELECT ${kind.text} AS text, ${kind.format} AS format FROM ${kind.table} WHERE id = ?`, id))[0]!
      t.same(await stored(), { text: HOSTILE, format: "md" }, "markdown is stored as written")

      const relabel = async (format: string) => {
        const res = await A[method](`api/b2/${kind.path}/${id}`, { json: { [kind.format]: format } })
        t.equal(res.statusCode, 200, `relabelled ${format}`)
        return (res.body as any)[kind.root][0]
      }
      const served = await relabel("html")
      t.same([served[kind.text], served[kind.format]], [CLEAN, "html"], "served cleaned as html")
      t.same(await stored(), { text: CLEAN, format: "html" }, "stored cleaned as html")
      const page = await kind.page(id)
      t.notMatch(page, /<meta http-equiv|<script>alert|evil\.example/, "the page shows no redirect and no script")
      t.match(page, /<b>kept<\/b>/)

      await relabel("md")
      t.same(await stored(), { text: CLEAN, format: "md" }, "relabelled markdown, the text stays as it is")
    })
  }
}
