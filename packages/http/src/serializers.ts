/** One serializer per record type; every endpoint uses these. */
import {
  type Access,
  type Chatbot,
  type Comment,
  type Discussion,
  type GroupCounts,
  type Group,
  type Identity,
  type Membership,
  type Reaction,
  Rules,
  type ThreadItem,
  type Topic,
  type User
} from "@convene/core"

export const groupJson = (view: { group: Group; counts: GroupCounts; parent: Group | undefined }) => {
  const g = view.group
  return {
    id: g.id,
    key: g.key,
    handle: g.handle,
    name: g.name,
    full_name: Rules.fullName(g, view.parent),
    parent_id: g.parent_id,
    description: g.description,
    enabled: g.enabled,
    is_visible_to_public: g.is_visible_to_public,
    is_visible_to_parent_members: g.is_visible_to_parent_members,
    discussion_privacy_options: g.discussion_privacy_options,
    parent_members_can_see_discussions: g.parent_members_can_see_discussions,
    members_can_start_discussions: g.members_can_start_discussions,
    members_can_edit_discussions: g.members_can_edit_discussions,
    members_can_edit_comments: g.members_can_edit_comments,
    members_can_raise_motions: g.members_can_raise_motions,
    members_can_vote: g.members_can_vote,
    members_can_add_members: g.members_can_add_members,
    admins_can_edit_user_content: g.admins_can_edit_user_content,
    ...view.counts,
    created_at: g.created_at
  }
}

/** `user_email` only for the caller's own membership or for administrators of the group. */
export const membershipJson = (access: Access, m: Membership, email: string | null | undefined) => ({
  id: m.id,
  group_id: m.group_id,
  user_id: m.user_id,
  inviter_id: m.inviter_id,
  admin: m.admin,
  delegate: m.delegate,
  title: m.title,
  accepted_at: m.accepted_at,
  created_at: m.created_at,
  ...(email != null && Rules.canSeeMemberEmail(access, m) ? { user_email: email } : {})
})

/** A side-loaded user; the e-mail address only on the caller's own record. */
export const userJson = (access: Access, u: User) => ({
  id: u.id,
  name: Rules.displayName(u),
  username: u.username,
  country: u.country,
  bot: u.bot,
  deactivated_at: u.deactivated_at,
  ...(u.id === access.user.id ? { email: u.email } : {})
})

/** The Server API user (spec: "Server user account"); every field always present. */
export const serverUserJson = (u: User, identities: ReadonlyArray<Identity>) => ({
  id: u.id,
  name: u.name,
  username: u.username,
  email: u.email,
  is_admin: u.is_admin,
  active: u.deactivated_at === null,
  deactivated_at: u.deactivated_at,
  identities: identities.map((i) => ({ id: i.id, identity_type: i.identity_type, uid: i.uid, email: i.email, name: i.name }))
})

/** A thread (Loomio's TopicSerializer); `locked_at` is the newest name of `closed_at`. */
export const topicJson = (t: Topic) => ({
  id: t.id,
  group_id: t.group_id,
  topicable_type: t.topicable_type,
  topicable_id: t.topicable_id,
  private: t.private,
  tags: t.tags,
  items_count: t.items_count,
  replies_count: Math.max(t.items_count - 1, 0),
  max_depth: t.max_depth,
  last_activity_at: t.last_activity_at,
  closed_at: t.closed_at,
  locked_at: t.closed_at,
  closer_id: t.closer_id,
  pinned_at: null,
  created_at: t.created_at,
  updated_at: t.updated_at
})

/** A discussion; thread state (privacy, closed, activity) comes from its topic. Deleted: title and description null. */
export const discussionJson = ({ discussion: d, topic: t }: { discussion: Discussion; topic: Topic }) => {
  const hidden = d.discarded_at !== null
  return {
    id: d.id,
    key: d.key,
    topic_id: d.topic_id,
    group_id: t.group_id,
    title: hidden ? null : d.title,
    description: hidden ? null : d.description,
    description_format: d.description_format,
    private: t.private,
    closed_at: t.closed_at,
    last_activity_at: t.last_activity_at,
    author_id: d.author_id,
    discarded_at: d.discarded_at,
    discarded_by: d.discarded_by,
    created_at: d.created_at,
    updated_at: d.updated_at
  }
}

/** A comment; deleted: body null. `parent_id` is the comment replied to (null for a reply to the discussion). */
export const commentJson = (c: Comment) => ({
  id: c.id,
  discussion_id: c.discussion_id,
  topic_id: c.topic_id,
  parent_id: c.parent_id,
  author_id: c.author_id,
  body: c.discarded_at === null ? c.body : null,
  body_format: c.body_format,
  edited_at: c.edited_at,
  discarded_at: c.discarded_at,
  discarded_by: c.discarded_by,
  created_at: c.created_at,
  updated_at: c.updated_at
})

/** A thread item (Loomio's TopicItemSerializer). */
export const itemJson = (i: ThreadItem) => ({
  id: i.id,
  topic_id: i.topic_id,
  sequence_id: i.sequence_id,
  kind: i.kind,
  parent_id: i.parent_id,
  depth: i.depth,
  position: i.position,
  position_key: i.position_key,
  child_count: i.child_count,
  itemable_type: i.itemable_type,
  itemable_id: i.itemable_id,
  actor_id: i.actor_id,
  pinned: false,
  created_at: i.created_at
})

export const reactionJson = (r: Reaction) => ({
  id: r.id,
  reactable_type: r.reactable_type,
  reactable_id: r.reactable_id,
  user_id: r.user_id,
  reaction: r.reaction,
  created_at: r.created_at
})

/** Webhooks are only ever serialized for administrators of their group (the URL is the credential). */
export const chatbotJson = (c: Chatbot) => ({
  id: c.id,
  group_id: c.group_id,
  author_id: c.author_id,
  name: c.name,
  kind: c.kind,
  webhook_kind: c.webhook_kind,
  server: c.server,
  event_kinds: c.event_kinds,
  notification_only: c.notification_only,
  created_at: c.created_at,
  updated_at: c.updated_at
})
