/** One serializer per record type; every endpoint uses these. */
import {
  type Access,
  type Chatbot,
  type Outcome,
  type PollOption,
  Polls,
  type Stance,
  type Comment,
  type Discussion,
  type GroupCounts,
  type Group,
  type Membership,
  type Reaction,
  Rules,
  type SearchResult,
  type ThreadItem,
  type Topic,
  type User,
  Users
} from "@convene/core"
import type {
  ChatbotJson,
  CommentJson,
  DiscussionJson,
  GroupJson,
  MembershipJson,
  OutcomeJson,
  PollJson,
  PollOptionJson,
  ReactionJson,
  SearchResultJson,
  ServerUserJson,
  StanceJson,
  ThreadItemJson,
  TopicJson,
  UserJson
} from "./records.js"

export const groupJson = (view: { group: Group; counts: GroupCounts; parent: Group | undefined }): GroupJson => {
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
export const membershipJson = (access: Access, m: Membership, email: string | null | undefined): MembershipJson => ({
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
export const userJson = (access: Access, u: User): UserJson => ({
  id: u.id,
  name: Rules.displayName(u),
  username: u.username,
  country: u.country,
  bot: u.bot,
  deactivated_at: u.deactivated_at,
  ...(u.id === access.user.id ? { email: u.email } : {})
})

/** The Server API user (spec: "Server user account"): the core's account view, shared with the CLI. */
export const serverUserJson: (...args: Parameters<typeof Users.accountJson>) => ServerUserJson = Users.accountJson

/** A thread (Loomio's TopicSerializer); `locked_at` is the newest name of `closed_at`. */
export const topicJson = (t: Topic): TopicJson => ({
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

/** A discussion; thread state (privacy, closed, activity) comes from its topic; its text as rules/reveal.ts allows. */
export const discussionJson = ({ discussion: d, topic: t }: { discussion: Discussion; topic: Topic }): DiscussionJson => {
  const text = Rules.revealDiscussionText(d)
  return {
    id: d.id,
    key: d.key,
    topic_id: d.topic_id,
    group_id: t.group_id,
    title: text.title,
    description: text.description,
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

/** A comment; `parent_id` is the comment replied to (null for a reply to the discussion). */
export const commentJson = (c: Comment): CommentJson => ({
  id: c.id,
  discussion_id: c.discussion_id,
  topic_id: c.topic_id,
  parent_id: c.parent_id,
  author_id: c.author_id,
  body: Rules.revealCommentBody(c),
  body_format: c.body_format,
  edited_at: c.edited_at,
  discarded_at: c.discarded_at,
  discarded_by: c.discarded_by,
  created_at: c.created_at,
  updated_at: c.updated_at
})

/** A thread item (Loomio's TopicItemSerializer). */
export const itemJson = (i: ThreadItem): ThreadItemJson => ({
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

export const reactionJson = (r: Reaction): ReactionJson => ({
  id: r.id,
  reactable_type: r.reactable_type,
  reactable_id: r.reactable_id,
  user_id: r.user_id,
  reaction: r.reaction,
  created_at: r.created_at
})

/** Webhooks are only ever serialized for administrators of their group (the URL is the credential). */
export const chatbotJson = (c: Chatbot): ChatbotJson => ({
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

/** A poll; results only for readers who may see them now (hide_results). Deleted: details null. */
export const pollJson = (access: Access, v: Polls.PollView): PollJson => {
  const p = v.poll
  const ordered = p.shuffle_options ? Rules.shuffledFor(access.user.id, v.options) : v.options
  return {
    id: p.id,
    key: p.key,
    topic_id: p.topic_id,
    discussion_id: v.discussion_id,
    group_id: p.group_id,
    author_id: p.author_id,
    ...Rules.revealPollText(p),
    details_format: p.details_format,
    poll_type: p.poll_type,
    closing_at: p.closing_at,
    opened_at: p.opened_at,
    closed_at: p.closed_at,
    discarded_at: p.discarded_at,
    discarded_by: p.discarded_by,
    specified_voters_only: p.specified_voters_only,
    hide_results: p.hide_results,
    shuffle_options: p.shuffle_options,
    anonymous: p.anonymous,
    notify_on_closing_soon: p.notify_on_closing_soon,
    min_score: p.min_score,
    max_score: p.max_score,
    minimum_stance_choices: p.minimum_stance_choices,
    maximum_stance_choices: p.maximum_stance_choices,
    dots_per_person: p.dots_per_person,
    can_respond_maybe: p.can_respond_maybe,
    voters_count: v.voters_count,
    decided_voters_count: v.cast_count,
    undecided_voters_count: v.voters_count - v.cast_count,
    poll_option_ids: ordered.map((o) => o.id),
    results_visible: v.results !== null,
    // results name the first few voters per option, and nobody in an anonymous poll
    results: v.results === null ? null : v.results.options,
    my_stance_id: v.my_stance?.id ?? null,
    current_outcome_id: v.outcome?.id ?? null,
    created_at: p.created_at,
    updated_at: p.updated_at
  }
}

/** An option, with its totals when the reader may see results. */
export const pollOptionJson = (v: Polls.PollView, o: PollOption): PollOptionJson => {
  const r = v.results?.options.find((x) => x.id === o.id)
  return {
    id: o.id,
    poll_id: o.poll_id,
    name: o.name,
    priority: o.priority,
    ...(r === undefined
      ? {}
      : {
        total_score: r.score,
        voter_count: r.voter_count,
        average_score: r.average,
        score_percent: r.score_percent,
        voter_percent: r.voter_percent,
        votes_cast_percent: r.votes_cast_percent,
        rank: r.rank,
        ...(v.poll.poll_type === "meeting" ? { yes: r.yes, maybe: r.maybe, no: r.no } : {})
      })
  }
}

/** A ballot; an anonymous poll's ballots carry no participant except the reader's own. */
export const stanceJson = (access: Access, v: Polls.PollView, s: Stance): StanceJson => {
  const names = new Map(v.options.map((o) => [o.id, o.name]))
  return {
    id: s.id,
    poll_id: s.poll_id,
    participant_id: Rules.revealVoter(access.user.id, v.poll, s),
    latest: s.latest,
    cast_at: s.cast_at,
    reason: s.reason,
    reason_format: s.reason_format,
    option_scores: Object.fromEntries([...s.choices].filter(([id]) => names.has(id)).map(([id, score]) => [names.get(id)!, score])),
    stance_choices: [...s.choices].map(([poll_option_id, score]) => ({ poll_option_id, score })),
    revoked_at: s.revoked_at,
    created_at: s.created_at,
    updated_at: s.updated_at
  }
}

export const outcomeJson = (o: Outcome): OutcomeJson => ({
  id: o.id,
  poll_id: o.poll_id,
  author_id: o.author_id,
  statement: o.statement,
  statement_format: o.statement_format,
  poll_option_id: o.poll_option_id,
  review_on: o.review_on,
  latest: o.latest,
  created_at: o.created_at,
  updated_at: o.updated_at
})

/** An element of `search_results` (spec: Search result, plus Loomio's extra fields). */
export const searchResultJson = (r: SearchResult): SearchResultJson => ({
  id: r.id,
  searchable_type: r.searchable_type,
  searchable_id: r.searchable_id,
  highlight: r.highlight,
  topic_id: r.topic_id,
  group_id: r.group_id,
  group_name: r.group_name,
  group_key: r.group_key,
  group_handle: r.group_handle,
  discussion_id: r.discussion_id,
  discussion_key: r.discussion_key,
  discussion_title: r.discussion_title,
  poll_id: r.poll_id,
  poll_key: r.poll_key,
  poll_title: r.poll_title,
  author_id: r.author_id,
  author_name: r.author_name,
  authored_at: r.authored_at,
  tags: r.tags
})
