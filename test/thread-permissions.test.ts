/**
 * Who may read, edit and delete what, through the real server, across the group flags
 * (Loomio's ability/discussion.rb and ability/comment.rb, TopicQuery.visible_to). The expectations are
 * written out literally: they are the specification, not a re-run of the rules.
 */
import type { GroupSettings } from "@convene/core"
import t from "tap"
import { seedUser, startTestServer } from "./helpers.js"

const ACTORS = ["author", "member", "admin", "guest", "outsider", "parentMember", "instanceAdmin"] as const
type Actor = (typeof ACTORS)[number]
const ACTIONS = ["read", "editDiscussion", "deleteDiscussion", "comment", "editComment", "deleteComment"] as const
type Action = (typeof ACTIONS)[number]

/** The actors allowed each action; everyone else is refused. */
type Allowed = Record<Action, ReadonlyArray<Actor>>

const base: Allowed = {
  read: ["author", "member", "admin", "guest"],
  editDiscussion: ["author", "member", "admin", "guest"],
  deleteDiscussion: ["author", "admin"],
  comment: ["author", "member", "admin", "guest"],
  editComment: ["author", "admin"],
  deleteComment: ["author", "admin"]
}

interface Scenario {
  readonly name: string
  readonly settings: Partial<GroupSettings>
  readonly private?: boolean
  readonly allowed: Allowed
}

const scenarios: ReadonlyArray<Scenario> = [
  { name: "hidden group, default flags", settings: {}, allowed: base },
  {
    name: "parent_members_can_see_discussions",
    settings: { is_visible_to_parent_members: true, parent_members_can_see_discussions: true },
    allowed: { ...base, read: [...base.read, "parentMember"] }
  },
  {
    name: "visible to parent members only (no parent_members_can_see_discussions)",
    settings: { is_visible_to_parent_members: true },
    allowed: base
  },
  {
    name: "members_can_edit_discussions off",
    settings: { members_can_edit_discussions: false },
    allowed: { ...base, editDiscussion: ["author", "admin"] }
  },
  {
    name: "members_can_edit_comments off",
    settings: { members_can_edit_comments: false },
    allowed: { ...base, editComment: ["admin"] }
  },
  {
    name: "admins_can_edit_user_content off",
    settings: { admins_can_edit_user_content: false },
    allowed: { ...base, editComment: ["author"] }
  },
  {
    name: "public group, public discussion",
    settings: { is_visible_to_public: true, discussion_privacy_options: "public_or_private" },
    private: false,
    allowed: { ...base, read: [...base.read, "outsider", "parentMember", "instanceAdmin"] }
  },
  {
    name: "public group, private discussion",
    settings: { is_visible_to_public: true, discussion_privacy_options: "public_or_private" },
    private: true,
    allowed: base
  }
]

t.test("permission table: read, edit, delete across actors and group flags", async (t) => {
  const s = await startTestServer()
  t.teardown(s.close)
  const founder = await seedUser(s.convene, { name: "Founder" })
  const users = {
    author: await seedUser(s.convene, { name: "Author" }),
    member: await seedUser(s.convene, { name: "Member" }),
    admin: await seedUser(s.convene, { name: "Admin" }),
    guest: await seedUser(s.convene, { name: "Guest" }),
    outsider: await seedUser(s.convene, { name: "Outsider" }),
    parentMember: await seedUser(s.convene, { name: "Parent member" }),
    instanceAdmin: await seedUser(s.convene, { name: "Instance admin", is_admin: true })
  }
  const client = (a: Actor) => s.as(users[a].apiKey)

  for (const scenario of scenarios) {
    t.test(scenario.name, async (t) => {
      const parent = (await s.convene.groups.create({ name: `P ${scenario.name}`, owner: founder.user })).group
      await s.convene.members.add({ group: parent, user: users.parentMember.user })
      const group = (await s.convene.groups.create({
        name: `S ${scenario.name}`,
        owner: users.admin.user,
        parent,
        settings: scenario.settings
      })).group
      await s.convene.members.add({ group, user: users.author.user })
      await s.convene.members.add({ group, user: users.member.user })

      for (const actor of ACTORS) {
        const start = await client("author").post("api/b2/discussions", {
          json: {
            group_id: group.id,
            title: "Original",
            recipient_user_ids: [users.guest.user.id],
            ...(scenario.private === undefined ? {} : { private: scenario.private })
          }
        })
        t.equal(start.statusCode, 200, "set-up")
        const d = (start.body as any).discussions[0]
        const c = ((await client("author").post("api/b2/comments", { json: { discussion_id: d.id, body: "Original" } })).body as any)
          .comments[0]
        const as = client(actor)
        const may = (action: Action) => scenario.allowed[action].includes(actor)
        const label = (action: Action) => `${actor} ${may(action) ? "may" : "may not"} ${action}`

        const shown = await as.get(`api/b2/discussions/${d.id}`)
        t.equal(shown.statusCode, may("read") ? 200 : 403, label("read"))
        t.equal((await as.get(`api/b2/threads/${d.topic_id}`)).statusCode, may("read") ? 200 : 404, `${label("read")} (thread)`)
        t.equal((await as.get(`api/b2/threads/${d.topic_id}/markdown`)).statusCode, may("read") ? 200 : 404, `${label("read")} (markdown)`)

        const edit = await as.patch(`api/b2/discussions/${d.id}`, { json: { title: "Changed" } })
        t.equal(edit.statusCode, may("editDiscussion") ? 200 : 403, label("editDiscussion"))
        t.equal((await s.sql<any>("SELECT title FROM discussions WHERE id = ?", d.id))[0].title, may("editDiscussion") ? "Changed" : "Original")

        const said = await as.post("api/b2/comments", { json: { discussion_id: d.id, body: "mine" } })
        t.equal(said.statusCode, may("comment") ? 200 : 403, label("comment"))

        const editC = await as.patch(`api/b2/comments/${c.id}`, { json: { body: "Changed" } })
        t.equal(editC.statusCode, may("editComment") ? 200 : 403, label("editComment"))
        t.equal((await s.sql<any>("SELECT body FROM comments WHERE id = ?", c.id))[0].body, may("editComment") ? "Changed" : "Original")

        const delC = await as.delete(`api/b2/comments/${c.id}`)
        t.equal(delC.statusCode, may("deleteComment") ? 200 : 403, label("deleteComment"))
        t.equal((await s.sql<any>("SELECT discarded_at FROM comments WHERE id = ?", c.id))[0].discarded_at === null, !may("deleteComment"))

        const delD = await as.delete(`api/b2/discussions/${d.id}`)
        t.equal(delD.statusCode, may("deleteDiscussion") ? 200 : 403, label("deleteDiscussion"))
        t.equal((await s.sql<any>("SELECT discarded_at FROM discussions WHERE id = ?", d.id))[0].discarded_at === null, !may("deleteDiscussion"))
      }
    })
  }

  t.test("listing agrees with reading: each actor's thread list holds exactly the threads they may read", async (t) => {
    const readable = new Map<Actor, Set<number>>(ACTORS.map((a) => [a, new Set()]))
    const topics = (await s.sql<any>("SELECT t.id FROM topics t JOIN discussions d ON d.topic_id = t.id WHERE d.discarded_at IS NULL"))
    for (const actor of ACTORS) {
      for (const { id } of topics) {
        if ((await client(actor).get(`api/b2/threads/${id}`)).statusCode === 200) readable.get(actor)!.add(id)
      }
      const listed = ((await client(actor).get("api/b2/threads?limit=200")).body as any).threads.map((x: any) => x.id)
      t.same(new Set(listed), readable.get(actor), actor)
    }
  })
})
