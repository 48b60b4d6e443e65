import t from "tap"
import { aGroup, aMembership, aUser } from "./fixtures.js"
import { type Group, type Membership, Rules, type Topic, type TopicReader, type User } from "@convene/core"

const user = aUser
const group = aGroup
/** The test user's (id 9) membership. */
const member = (groupId: number, over: Partial<Membership> = {}): Membership => aMembership(groupId, 9, { id: groupId, ...over })
const topic = (groupId: number, over: Partial<Topic> = {}): Topic => ({
  id: 1, group_id: groupId, topicable_type: "Discussion", topicable_id: 1, private: true, tags: [], items_count: 1, seen_by_count: 0, max_depth: 3,
  last_activity_at: "", closed_at: null, closer_id: null, pinned_at: null, discarded_at: null, created_at: "", updated_at: "", ...over
})
const guestReader: TopicReader = { id: 1, topic_id: 1, user_id: 9, inviter_id: 1, guest: true, revoked_at: null, created_at: "", last_read_at: null, read_ranges: null, dismissed_at: null }

t.test("canShowTopic and topicScope agree on every case", async (t) => {
  const sub = (over: Partial<Group>) => group(2, { parent_id: 1, ...over })
  const cases: Array<[string, Group, Partial<Topic>, Array<Membership>, TopicReader | undefined, Partial<User>, boolean]> = [
    ["member, private thread", group(2), {}, [member(2)], undefined, {}, true],
    ["pending invitee", group(2), {}, [member(2, { accepted_at: null })], undefined, {}, true],
    ["revoked member", group(2), {}, [member(2, { revoked_at: "x" })], undefined, {}, false],
    ["non-member, private thread", group(2), {}, [], undefined, {}, false],
    ["non-member, public thread of a hidden group", group(2), { private: false }, [], undefined, {}, false],
    ["non-member, public thread of a public group", group(2, { is_visible_to_public: true }), { private: false }, [], undefined, {}, true],
    ["non-member, private thread of a public group", group(2, { is_visible_to_public: true }), {}, [], undefined, {}, false],
    ["guest", group(2), {}, [], guestReader, {}, true],
    ["revoked guest", group(2), {}, [], { ...guestReader, revoked_at: "x" }, {}, false],
    ["notified member-reader who left", group(2), {}, [], { ...guestReader, guest: false }, {}, false],
    ["parent member, flag on", sub({ parent_members_can_see_discussions: true }), {}, [member(1)], undefined, {}, true],
    ["parent member, flag off", sub({}), {}, [member(1)], undefined, {}, false],
    ["parent member, public thread, visible to parent members", sub({ is_visible_to_parent_members: true }), { private: false }, [member(1)], undefined, {}, true],
    ["instance admin", group(2), {}, [], undefined, { is_admin: true }, false],
    ["deleted thread", group(2), { discarded_at: "x" }, [member(2)], undefined, {}, false],
    ["deactivated member", group(2), {}, [member(2)], undefined, { deactivated_at: "x" }, false]
  ]
  for (const [name, g, tOver, memberships, reader, uOver, expected] of cases) {
    const access = Rules.makeAccess(user(uOver), memberships)
    const th = topic(g.id, tOver)
    t.equal(Rules.canShowTopic(access, { topic: th, group: g, reader }), expected, name)
    // the same decision as the store evaluates it from the scope
    const scope = Rules.topicScope(access, [g])
    const listed = th.discarded_at === null && (
      scope.allIn.includes(g.id) ||
      (!th.private && (scope.publicIn.includes(g.id) || (scope.publicGroups && g.is_visible_to_public))) ||
      (scope.guestUserId !== null && reader !== undefined && reader.guest && reader.revoked_at === null)
    )
    t.equal(listed, expected, `${name} (scope)`)
  }
})

t.test("privacy: the group's options decide, and the default follows the group", async (t) => {
  t.equal(Rules.privacyErrors(group(1, { discussion_privacy_options: "public_only" }), true), "must be public")
  t.equal(Rules.privacyErrors(group(1, { discussion_privacy_options: "private_only" }), false), "must be private")
  t.equal(Rules.privacyErrors(group(1, { discussion_privacy_options: "public_or_private" }), true), null)
  t.equal(Rules.privateDefault(group(1, { discussion_privacy_options: "public_or_private", is_visible_to_public: true })), false)
  t.equal(Rules.privateDefault(group(1, { discussion_privacy_options: "public_or_private" })), true)
  t.equal(Rules.privateDefault(group(1, { discussion_privacy_options: "public_only" })), false)
})

t.test("markdown helpers", async (t) => {
  t.equal(Rules.shiftHeadings("# A\ntext #1\n## B\n```\n# code\n```\n###### six"), "## A\ntext #1\n### B\n```\n# code\n```\n###### six")
  t.equal(Rules.bodyMarkdown("<h1>Purpose</h1><p>Hi <em>you</em></p>", "html"), "# Purpose\n\nHi _you_")
  t.equal(Rules.bodyMarkdown("keep *this*\r\n", "md"), "keep *this*")
  t.equal(Rules.stamp("2026-07-15T10:05:59.123Z"), "2026-07-15 10:05")
  t.equal(Rules.cleanBody("<p onclick=x>a<script>b</script></p>", "html"), "<p>a</p>")
  t.equal(Rules.cleanBody("<script>kept as text in markdown</script>", "md"), "<script>kept as text in markdown</script>")
})
