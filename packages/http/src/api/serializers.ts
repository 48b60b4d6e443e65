/**
 * One serializer per record type; every endpoint uses these. Each is made from its wire declaration
 * (records.ts) and the core's record (`serializer`, domain/model.ts): the fields shown as they are stored are
 * copied by it, and only what the wire computes, reveals or adds is written here.
 */
import {
  type Access,
  Chatbot,
  Comment,
  Discussion,
  Group,
  Membership,
  Outcome,
  Poll,
  PollOption,
  Polls,
  Reaction,
  type Reading,
  Rules,
  SearchResult,
  serializer,
  Stance,
  ThreadItem,
  Topic,
  User,
  Users,
  type GroupCounts,
  type AttachedFile,
  type Delegation
} from "@convene/core"
import {
  AttachmentRecord,
  ChatbotRecord,
  CommentRecord,
  DelegationRecord,
  DiscussionRecord,
  GroupRecord,
  MembershipRecord,
  OutcomeRecord,
  PollOptionRecord,
  PollRecord,
  ReactionRecord,
  SearchResultRecord,
  type ServerUserJson,
  StanceRecord,
  ThreadItemRecord,
  TopicRecord,
  UserRecord
} from "./records.js"

const downloadPath = (f: AttachedFile) => Rules.downloadPathOf(f.attachment.signed_id, f.attachment.filename)

/** A file as Loomio's `attachments` entry. */
export const attachmentJson = (f: AttachedFile): typeof AttachmentRecord.Type => ({
  id: f.attachment.id,
  signed_id: f.attachment.signed_id,
  filename: f.attachment.filename,
  content_type: f.blob.content_type,
  byte_size: f.blob.byte_size,
  icon: Rules.iconOf(f.blob.content_type, f.attachment.filename),
  preview_url: f.blob.preview_key === null ? null : `${downloadPath(f)}?preview=1`,
  download_url: downloadPath(f)
})

const group = serializer(GroupRecord.fields, Group.fields)
export const groupJson = (view: { group: Group; counts: GroupCounts; parent: Group | undefined }) =>
  group(view.group, { full_name: Rules.fullName(view.group, view.parent), ...view.counts })

const membership = serializer(MembershipRecord.fields, Membership.fields)
/** `user_email` only for the caller's own membership or for administrators of the group. */
export const membershipJson = (access: Access, m: Membership, email: string | null | undefined) =>
  membership(m, email != null && Rules.canSeeMemberEmail(access, m) ? { user_email: email } : {})

const user = serializer(UserRecord.fields, User.fields, ["name", "email"])
/** A side-loaded user; the e-mail address only on the caller's own record. */
export const userJson = (access: Access, u: User) =>
  user(u, { name: Rules.displayName(u), ...(u.id === access.user.id ? { email: u.email } : {}) })

/** The Server API user (spec: "Server user account"): the core's account view, shared with the CLI. */
export const serverUserJson: (...args: Parameters<typeof Users.accountJson>) => ServerUserJson = Users.accountJson

/** Loomio's `mentioned_usernames`: of a markdown text the reader sees. */
const mentions = (text: string | null, format: "md" | "html") => (format === "md" ? Rules.mentionedUsernames(text) : [])

const topic = serializer(TopicRecord.fields, Topic.fields)
/** A thread (Loomio's TopicSerializer); `locked_at` is the newest name of `closed_at`. */
export const topicJson = (t: Topic) =>
  topic(t, { replies_count: Math.max(t.items_count - 1, 0), locked_at: t.closed_at })

const discussion = serializer(DiscussionRecord.fields, Discussion.fields, ["title", "description"])
/**
 * A discussion; thread state (privacy, closed, activity) comes from its topic; its text as rules/reveal.ts allows.
 * The spread stands last: a member after a spread is V8 11's slow path, 5 µs here (bench/experiments/spread.js).
 */
export const discussionJson = ({ discussion: d, topic: t }: { discussion: Discussion; topic: Topic }, read: Reading.ReadView | undefined, files: ReadonlyArray<AttachedFile>) =>
  discussion(d, {
    attachments: d.discarded_at === null ? files.map(attachmentJson) : [],
    mentioned_usernames: mentions(d.discarded_at === null ? d.description : null, d.description_format),
    group_id: t.group_id,
    private: t.private,
    closed_at: t.closed_at,
    last_activity_at: t.last_activity_at,
    last_read_at: read?.reader?.last_read_at ?? null,
    read_ranges: Rules.parseRanges(read?.reader?.read_ranges),
    discussion_reader_volume: read?.volume ?? null,
    dismissed_at: read?.reader?.dismissed_at ?? null,
    seen_by_count: t.seen_by_count,
    ...Rules.revealDiscussionText(d)
  })



const comment = serializer(CommentRecord.fields, Comment.fields, ["body"])
/** A comment; `parent_id` is the comment replied to (null for a reply to the discussion); a deleted one shows no files. */
export const commentJson = (c: Comment, files: ReadonlyArray<AttachedFile>) => {
  const body = Rules.revealCommentBody(c)
  return comment(c, { body, mentioned_usernames: mentions(body, c.body_format), attachments: c.discarded_at === null ? files.map(attachmentJson) : [] })
}

const item = serializer(ThreadItemRecord.fields, ThreadItem.fields)
/** A thread item (Loomio's TopicItemSerializer). */
export const itemJson = (i: ThreadItem) => item(i, { pinned: false })

const reaction = serializer(ReactionRecord.fields, Reaction.fields)
export const reactionJson = (r: Reaction) => reaction(r, {})

const chatbot = serializer(ChatbotRecord.fields, Chatbot.fields)
/** Webhooks are only ever serialized for administrators of their group (the URL is the credential). */
export const chatbotJson = (c: Chatbot) => chatbot(c, {})

const poll = serializer(PollRecord.fields, Poll.fields, ["title", "details"])
const byPriority = (a: PollOption, b: PollOption) => a.priority - b.priority || a.id - b.id
/** Loomio's `stance_counts`: the options' totals in priority order (whatever order they are shown in). */
const stanceCounts = (options: ReadonlyArray<PollOption>, results: ReadonlyArray<{ readonly id: number; readonly score: number }>) => {
  const score = new Map(results.map((r) => [r.id, r.score]))
  return [...options].sort(byPriority).map((o) => score.get(o.id) ?? 0)
}
/** A poll; results only for readers who may see them now (hide_results). Deleted: details null. */
export const pollJson = (access: Access, v: Polls.PollView, files: ReadonlyArray<AttachedFile>) => {
  const p = v.poll
  const ordered = p.shuffle_options ? Rules.shuffledFor(access.user.id, v.options) : v.options
  return poll(p, {
    attachments: p.discarded_at === null ? files.map(attachmentJson) : [],
    discussion_id: v.discussion_id,
    voters_count: v.voters_count,
    decided_voters_count: v.cast_count,
    delegated_voters_count: v.delegated_count,
    undecided_voters_count: v.voters_count - v.cast_count,
    poll_option_ids: ordered.map((o) => o.id),
    poll_option_names: ordered.map((o) => o.name),
    stance_counts: v.results === null ? null : stanceCounts(v.options, v.results.options),
    stance_data: v.results === null ? null : Object.fromEntries(v.results.options.map((r) => [r.name, r.score])),
    cast_stances_pct: v.voters_count === 0 ? 0 : Math.round((v.cast_count / v.voters_count) * 100),
    mentioned_usernames: mentions(p.discarded_at === null ? p.details : null, p.details_format),
    results_visible: v.results !== null,
    // results name the first few voters per option, and nobody in an anonymous poll
    results: v.results === null ? null : v.results.options,
    my_stance_id: v.my_stance?.id ?? null,
    current_outcome_id: v.outcome?.id ?? null,
    ...Rules.revealPollText(p)
  })
}

const pollOption = serializer(PollOptionRecord.fields, PollOption.fields)
/** An option, with its totals when the reader may see results. */
export const pollOptionJson = (v: Polls.PollView, o: PollOption) => {
  const r = v.results?.options.find((x) => x.id === o.id)
  return pollOption(o, r === undefined ? {} : {
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

const stance = serializer(StanceRecord.fields, Stance.fields, ["participant_id", "inviter_id", "delegated_by"])
/** A ballot; an anonymous poll's ballots carry no participant except the reader's own. */
export const stanceJson = (access: Access, v: Polls.PollView, s: Stance) => {
  const names = new Map(v.options.map((o) => [o.id, o.name]))
  return stance(s, {
    mentioned_usernames: mentions(s.reason, s.reason_format),
    inviter_id: Rules.revealInviter(v.poll, s),
    delegated_by: Rules.revealDelegatedBy(v.poll, s),
    participant_id: Rules.revealVoter(access.user.id, v.poll, s),
    option_scores: Object.fromEntries([...s.choices].filter(([id]) => names.has(id)).map(([id, score]) => [names.get(id)!, score])),
    stance_choices: [...s.choices].map(([poll_option_id, score]) => ({ poll_option_id, score }))
  })
}

/** The caller's delegation in a group. */
export const delegationJson = (v: Delegation.DelegationView): typeof DelegationRecord.Type => ({
  group_id: v.group.id,
  members_can_delegate: v.group.members_can_delegate,
  delegation_limit: v.group.delegation_limit,
  delegate_id: v.delegation?.delegate_id ?? null,
  since: v.delegation?.created_at ?? null,
  delegator_ids: v.delegators.map((u) => u.id)
})

const outcome = serializer(OutcomeRecord.fields, Outcome.fields)
/** An outcome; `groupId`: its poll's group (Loomio's `group_id`). */
export const outcomeJson = (o: Outcome, groupId: number | null, files: ReadonlyArray<AttachedFile>) =>
  outcome(o, { group_id: groupId, mentioned_usernames: mentions(o.statement, o.statement_format), attachments: files.map(attachmentJson) })

const searchResult = serializer(SearchResultRecord.fields, SearchResult.fields)
/** An element of `search_results` (spec: Search result, plus Loomio's extra fields). */
export const searchResultJson = (r: SearchResult) => searchResult(r, {})
