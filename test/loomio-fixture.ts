/**
 * A Loomio group export written from the facts of Loomio's schema (db/schema.rb) and its export service
 * (reference/loomio-people-and-export.md §5): the older generation of the format (`events`,
 * `discussion_readers`, discussions and polls carrying their group), with Loomio's integer enums, columns
 * convene does not know, and tables it leaves out. Written for these tests; no Loomio file is copied.
 */
import { writeFileSync } from "node:fs"

export type Line = { table: string; record: Record<string, unknown> }

const t = (day: number, hour = 12) => `2024-03-${String(day).padStart(2, "0")}T${String(hour).padStart(2, "0")}:00:00.000Z`

export const FIXTURE = {
  groupKey: "clmtAct1",
  subgroupKey: "clmtWg01",
  emails: { ada: "ada@loomio.example", bo: "bo@loomio.example", cy: "cy@loomio.example", di: "di@loomio.example", ed: "ed@loomio.example", gus: "gus@loomio.example" }
} as const

export const loomioExport = (): Array<Line> => [
  {
    table: "groups",
    record: {
      id: 101, parent_id: null, key: FIXTURE.groupKey, handle: "climate-action", name: "Climate Action", full_name: "Climate Action",
      description: "We act on **climate**.", description_format: "md", creator_id: 201, is_visible_to_public: false,
      is_visible_to_parent_members: false, discussion_privacy_options: "private_only", members_can_add_members: true,
      members_can_vote: true, cover_photo_file_name: "cover.png", subscription_id: 77, memberships_count: 5,
      created_at: "2024-03-01T09:00:00.000Z", updated_at: "2024-03-02T09:00:00.000Z"
    }
  },
  {
    table: "groups",
    record: {
      id: 102, parent_id: 101, key: FIXTURE.subgroupKey, handle: null, name: "Working group", is_visible_to_parent_members: true,
      discussion_privacy_options: "private_only", created_at: t(2), updated_at: t(2)
    }
  },
  { table: "users", record: { id: 201, name: "Ada", username: "ada", email: FIXTURE.emails.ada, country: "NZ", bot: false, time_zone: "Pacific/Auckland", created_at: t(1), updated_at: t(1) } },
  // matched to an account the target already has, whatever the letter case
  { table: "users", record: { id: 202, name: "Bo (Loomio)", username: "bo", email: "BO@Loomio.Example", created_at: t(1), updated_at: t(1) } },
  { table: "users", record: { id: 203, name: "Cy", email: FIXTURE.emails.cy, created_at: t(1), updated_at: t(1) } },
  { table: "users", record: { id: 204, name: "Di", email: FIXTURE.emails.di, created_at: t(1), updated_at: t(1) } },
  { table: "users", record: { id: 205, name: "Ed", email: FIXTURE.emails.ed, created_at: t(1), updated_at: t(1) } },
  { table: "users", record: { id: 206, name: "Gus", email: FIXTURE.emails.gus, created_at: t(1), updated_at: t(1) } },
  { table: "events", record: { id: 1101, kind: "new_discussion", eventable_type: "Discussion", eventable_id: 401, user_id: 201, discussion_id: 401, sequence_id: null, parent_id: null, position_key: null, custom_fields: {}, created_at: t(3) } },
  { table: "events", record: { id: 1102, kind: "new_comment", eventable_type: "Comment", eventable_id: 501, user_id: 202, discussion_id: 401, sequence_id: 1, parent_id: 1101, position_key: "00001", created_at: t(4) } },
  { table: "events", record: { id: 1103, kind: "new_comment", eventable_type: "Comment", eventable_id: 502, user_id: 203, discussion_id: 401, sequence_id: 2, parent_id: 1102, position_key: "00001-00001", created_at: t(5) } },
  { table: "events", record: { id: 1104, kind: "new_comment", eventable_type: "Comment", eventable_id: 503, user_id: 201, discussion_id: 401, sequence_id: 3, parent_id: 1101, position_key: "00002", created_at: t(6) } },
  { table: "events", record: { id: 1105, kind: "poll_created", eventable_type: "Poll", eventable_id: 601, user_id: 201, discussion_id: 401, sequence_id: 4, parent_id: 1101, position_key: "00003", created_at: t(7) } },
  { table: "events", record: { id: 1106, kind: "stance_created", eventable_type: "Stance", eventable_id: 801, user_id: 202, discussion_id: 401, sequence_id: 5, parent_id: 1105, position_key: "00003-00001", created_at: t(8) } },
  { table: "events", record: { id: 1107, kind: "outcome_created", eventable_type: "Outcome", eventable_id: 901, user_id: 201, discussion_id: 401, sequence_id: 6, parent_id: 1105, position_key: "00003-00002", created_at: t(12) } },
  // not a thread item in convene: left out
  { table: "events", record: { id: 1108, kind: "membership_created", eventable_type: "Membership", eventable_id: 303, user_id: 203, discussion_id: null, sequence_id: null, parent_id: null, created_at: t(2) } },
  { table: "events", record: { id: 1110, kind: "new_discussion", eventable_type: "Discussion", eventable_id: 402, user_id: 201, discussion_id: 402, sequence_id: null, parent_id: null, created_at: t(3) } },
  { table: "events", record: { id: 1111, kind: "new_comment", eventable_type: "Comment", eventable_id: 504, user_id: 203, discussion_id: 402, sequence_id: 1, parent_id: 1110, created_at: t(4) } },
  { table: "events", record: { id: 1112, kind: "discussion_closed", eventable_type: "Discussion", eventable_id: 402, user_id: 201, discussion_id: 402, sequence_id: 2, parent_id: 1110, created_at: t(9) } },
  { table: "events", record: { id: 1113, kind: "poll_created", eventable_type: "Poll", eventable_id: 602, user_id: 201, discussion_id: null, sequence_id: null, parent_id: null, created_at: t(10) } },
  { table: "notifications", record: { id: 1, kind: "new_comment", user_id: 201, url: "/d/x" } },
  { table: "reactions", record: { id: 1001, reactable_type: "Comment", reactable_id: 501, user_id: 203, reaction: "heart", created_at: t(5) } },
  { table: "reactions", record: { id: 1002, reactable_type: "Discussion", reactable_id: 401, user_id: 202, reaction: "+1", created_at: t(5) } },
  { table: "memberships", record: { id: 301, group_id: 101, user_id: 201, inviter_id: null, admin: true, volume: 2, accepted_at: t(1), revoked_at: null, token: "tok1", title: "Convenor", delegate: false, created_at: t(1), updated_at: t(1) } },
  { table: "memberships", record: { id: 302, group_id: 101, user_id: 202, inviter_id: 201, admin: false, accepted_at: t(2), title: "Treasurer", delegate: true, created_at: t(1), updated_at: t(2) } },
  { table: "memberships", record: { id: 303, group_id: 101, user_id: 203, inviter_id: 201, admin: false, accepted_at: t(2), created_at: t(1), updated_at: t(2) } },
  { table: "memberships", record: { id: 304, group_id: 101, user_id: 204, inviter_id: 201, admin: false, accepted_at: null, created_at: t(2), updated_at: t(2) } },
  { table: "memberships", record: { id: 305, group_id: 101, user_id: 205, inviter_id: 201, admin: false, accepted_at: t(2), revoked_at: t(9), revoker_id: 201, created_at: t(1), updated_at: t(9) } },
  // inviter 299 is not in the file (someone who has left): the reference is left empty
  { table: "memberships", record: { id: 306, group_id: 102, user_id: 201, inviter_id: 299, admin: true, accepted_at: t(2), created_at: t(2), updated_at: t(2) } },
  { table: "membership_requests", record: { id: 1, group_id: 101, name: "Zed", email: "zed@example.org" } },
  {
    table: "discussions",
    record: {
      id: 401, group_id: 101, author_id: 201, key: "dSolar01", title: "Solar panels on the hall", description: "Shall we put *solar* on the roof?",
      description_format: "md", private: true, closed_at: null, max_depth: 3, last_activity_at: t(12), importance: 0, iframe_src: null,
      created_at: t(3), updated_at: t(3)
    }
  },
  { table: "discussions", record: { id: 402, group_id: 101, author_id: 201, key: "dBikes01", title: "Bike racks", description: "<p>Racks by the door</p>", description_format: "html", private: true, closed_at: t(9), closer_id: 201, created_at: t(3), updated_at: t(9) } },
  { table: "discussions", record: { id: 403, group_id: 102, author_id: 203, key: "dGone001", title: "Deleted thread", description: "", private: true, discarded_at: t(4), discarded_by: 203, created_at: t(3), updated_at: t(4) } },
  {
    table: "polls",
    record: {
      id: 601, key: "pSolar01", discussion_id: 401, group_id: 101, author_id: 201, title: "Install solar?", details: "Vote please", details_format: "md",
      poll_type: "proposal", closing_at: t(11), closed_at: t(11), anonymous: false, hide_results: 0, notify_on_closing_soon: 2,
      specified_voters_only: false, shuffle_options: false, voting_system: 0, stance_counts: [1, 0, 1, 0], created_at: t(7), updated_at: t(11)
    }
  },
  {
    table: "polls",
    record: {
      id: 602, key: "pMeet001", discussion_id: null, group_id: 101, author_id: 201, title: "Which evening?", details: "", poll_type: "poll",
      closing_at: t(14), closed_at: t(14), anonymous: true, hide_results: 2, notify_on_closing_soon: 0, minimum_stance_choices: 1,
      maximum_stance_choices: 1, created_at: t(10), updated_at: t(14)
    }
  },
  { table: "poll_options", record: { id: 701, poll_id: 601, name: "agree", priority: 0, score_counts: {} } },
  { table: "poll_options", record: { id: 702, poll_id: 601, name: "abstain", priority: 1 } },
  { table: "poll_options", record: { id: 703, poll_id: 601, name: "disagree", priority: 2 } },
  { table: "poll_options", record: { id: 704, poll_id: 601, name: "block", priority: 3 } },
  { table: "poll_options", record: { id: 705, poll_id: 602, name: "Tuesday", priority: 0 } },
  { table: "poll_options", record: { id: 706, poll_id: 602, name: "Thursday", priority: 1 } },
  { table: "outcomes", record: { id: 901, poll_id: 601, author_id: 201, statement: "We **agreed** to install.", statement_format: "md", poll_option_id: 701, review_on: "2024-04-01", latest: true, created_at: t(12), updated_at: t(12) } },
  // Bo voted abstain, then changed to agree: the first stance is no longer the latest
  { table: "stances", record: { id: 804, poll_id: 601, participant_id: 202, latest: false, cast_at: t(7, 13), reason: "Unsure", reason_format: "md", created_at: t(7, 13), updated_at: t(8) } },
  { table: "stances", record: { id: 801, poll_id: 601, participant_id: 202, latest: true, cast_at: t(8), reason: "Cheaper power", reason_format: "md", option_scores: { "701": 1 }, created_at: t(8), updated_at: t(8) } },
  { table: "stances", record: { id: 802, poll_id: 601, participant_id: 203, latest: true, cast_at: t(9), reason: null, created_at: t(7), updated_at: t(9) } },
  // issued, never cast
  { table: "stances", record: { id: 803, poll_id: 601, participant_id: 201, inviter_id: 201, latest: true, cast_at: null, created_at: t(7), updated_at: t(7) } },
  { table: "stances", record: { id: 805, poll_id: 602, participant_id: 202, latest: true, cast_at: t(11), created_at: t(10), updated_at: t(11) } },
  { table: "stances", record: { id: 806, poll_id: 602, participant_id: 203, latest: true, cast_at: t(11), created_at: t(10), updated_at: t(11) } },
  { table: "stances", record: { id: 807, poll_id: 602, participant_id: 201, latest: true, cast_at: t(12), created_at: t(10), updated_at: t(12) } },
  { table: "stance_choices", record: { id: 2001, stance_id: 804, poll_option_id: 702, score: 1, created_at: t(7, 13) } },
  { table: "stance_choices", record: { id: 2002, stance_id: 801, poll_option_id: 701, score: 1 } },
  { table: "stance_choices", record: { id: 2003, stance_id: 802, poll_option_id: 703, score: 1 } },
  { table: "stance_choices", record: { id: 2004, stance_id: 805, poll_option_id: 705, score: 1 } },
  { table: "stance_choices", record: { id: 2005, stance_id: 806, poll_option_id: 705, score: 1 } },
  { table: "stance_choices", record: { id: 2006, stance_id: 807, poll_option_id: 706, score: 1 } },
  { table: "discussion_readers", record: { id: 1201, discussion_id: 401, user_id: 206, inviter_id: 201, guest: true, last_read_at: t(6), volume: 2, created_at: t(5) } },
  { table: "discussion_readers", record: { id: 1202, discussion_id: 401, user_id: 203, inviter_id: null, guest: false, last_read_at: t(6), created_at: t(5) } },
  { table: "comments", record: { id: 501, discussion_id: 401, parent_id: 401, parent_type: "Discussion", user_id: 202, body: "Yes, **let's**.", body_format: "md", attachments: [], link_previews: [], created_at: t(4), updated_at: t(4) } },
  { table: "comments", record: { id: 502, discussion_id: 401, parent_id: 501, parent_type: "Comment", user_id: 203, body: "How much does it cost?", body_format: "md", created_at: t(5), updated_at: t(5) } },
  { table: "comments", record: { id: 503, discussion_id: 401, parent_id: 401, parent_type: "Discussion", user_id: 201, body: "Spam I removed", body_format: "md", discarded_at: t(6, 14), discarded_by: 201, created_at: t(6), updated_at: t(6, 14) } },
  { table: "comments", record: { id: 504, discussion_id: 402, parent_id: 402, parent_type: "Discussion", user_id: 203, body: "<p>Done!</p>", body_format: "html", edited_at: t(4, 15), created_at: t(4), updated_at: t(4, 15) } },
  { table: "attachments", record: { id: 9, host: "loomio.example", record_type: "Comment", record_id: 501, name: "files", filename: "plan.pdf", content_type: "application/pdf", path: "/rails/x", url: "https://loomio.example/rails/x" } }
]

export const writeJsonl = (file: string, lines: ReadonlyArray<Line | string>) =>
  writeFileSync(file, lines.map((l) => (typeof l === "string" ? l : JSON.stringify(l))).join("\n") + "\n")

const latest = (...xs: Array<unknown>) => xs.filter((x): x is string => typeof x === "string").sort().pop()!

/**
 * The same group in the newer generation of the format (Loomio since topics): `topics` rows hold the thread
 * (group, privacy, `locked_at`), discussions and polls name their topic, comments reach their discussion
 * through `parent_type`, and thread items are `topic_items` placed by topic.
 */
export const newerFormat = (lines: ReadonlyArray<Line>): Array<Line> => {
  const topicOfDiscussion = (id: unknown) => 3000 + Number(id)
  const topicOfPoll = (id: unknown) => 3500 + Number(id)
  const standalone = new Set(lines.filter((l) => l.table === "polls" && l.record.discussion_id === null).map((l) => l.record.id))
  const out: Array<Line> = []
  for (const { table, record } of lines) {
    const r = { ...record }
    switch (table) {
      case "discussions": {
        out.push({
          table: "topics",
          record: {
            id: topicOfDiscussion(r.id), group_id: r.group_id, topicable_type: "Discussion", topicable_id: r.id, private: r.private,
            max_depth: r.max_depth ?? 3, last_activity_at: r.last_activity_at ?? r.created_at, locked_at: r.closed_at ?? null,
            locker_id: r.closer_id ?? null, discarded_at: r.discarded_at ?? null, created_at: r.created_at,
            updated_at: latest(r.updated_at, r.last_activity_at, r.closed_at, r.discarded_at), ranges_string: "1-3"
          }
        })
        for (const k of ["group_id", "private", "closed_at", "closer_id", "max_depth", "last_activity_at"]) delete r[k]
        out.push({ table, record: { ...r, topic_id: topicOfDiscussion(r.id) } })
        break
      }
      case "polls": {
        if (standalone.has(r.id)) {
          out.push({
            table: "topics",
            record: { id: topicOfPoll(r.id), group_id: r.group_id, topicable_type: "Poll", topicable_id: r.id, private: true, last_activity_at: r.created_at, created_at: r.created_at, updated_at: latest(r.updated_at, r.created_at) }
          })
        }
        const topic = standalone.has(r.id) ? topicOfPoll(r.id) : topicOfDiscussion(r.discussion_id)
        delete r.group_id
        delete r.discussion_id
        out.push({ table, record: { ...r, topic_id: topic } })
        break
      }
      case "comments":
        delete r.discussion_id
        out.push({ table, record: r })
        break
      case "events": {
        if (r.eventable_type === "Membership") break
        const topic = r.discussion_id === null ? topicOfPoll(r.eventable_id) : topicOfDiscussion(r.discussion_id)
        out.push({
          table: "topic_items",
          record: { id: r.id, kind: r.kind, itemable_type: r.eventable_type, itemable_id: r.eventable_id, user_id: r.user_id, topic_id: topic, sequence_id: r.sequence_id, parent_id: r.parent_id, created_at: r.created_at }
        })
        break
      }
      case "discussion_readers":
        out.push({ table: "topic_readers", record: { ...r, discussion_id: undefined, topic_id: topicOfDiscussion(r.discussion_id) } })
        break
      default:
        out.push({ table, record: r })
    }
  }
  return out
}
