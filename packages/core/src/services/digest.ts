/**
 * The catch-up e-mail (decisions §11): at 06:00 in each person's time zone, every day, every other day or once
 * a week, what happened in their groups since the last one — new threads, new comments per thread, polls
 * opened, closing within a day, closed with their outcome. Nothing new, nothing sent. The scheduler makes
 * the due ones; `convene mail digest` makes them by hand. Each person's is decided and recorded in one
 * transaction (a second server finds it made).
 */
import { Clock, Effect } from "effect"
import type { Id, User } from "../domain/records.js"
import { mailTranslator, type Translate } from "../messages/index.js"
import { Store } from "../ports/store.js"
import { catchUpDue, CATCH_UP_DAYS } from "../rules/digest.js"
import { plainMarkdown } from "../rules/markdown.js"

const DAY_MS = 86_400_000
const iso = (ms: number) => new Date(ms).toISOString()

/** The catch-up's text for one person over (since, until], or undefined when nothing happened. */
export const catchUpBody = Effect.fnUntraced(function*(user: User, since: string, until: string, t: Translate, zone: string): Effect.fn.Return<string | undefined, never, Store> {
  const store = yield* Store
  const memberships = (yield* store.memberships.activeForUser(user.id)).filter((m) => m.accepted_at !== null)
  const groups = new Map((yield* store.groups.byIds(memberships.map((m) => m.group_id))).map((g) => [g.id, g]))
  // muted groups send nothing, this included
  const muted = new Set((yield* store.volumes.groupsOf(user.id)).filter((v) => v.volume === "mute").map((v) => v.group_id))
  const ids = [...groups.keys()].filter((id) => !muted.has(id))
  const rows = yield* store.catchUp.activity(ids, since, until)
  const lines = new Map<Id, Array<string>>()
  const add = (groupId: Id, line: string) => lines.set(groupId, [...(lines.get(groupId) ?? []), line])
  // the titles, read once for all the rows: the threads', the polls', and the polls of the outcomes
  const discussions = new Map((yield* store.discussions.byTopicIds([...new Set(rows.map((r) => r.topic_id))])).map((d) => [d.topic_id, d]))
  const outcomes = new Map((yield* store.outcomes.byIds(rows.filter((r) => r.itemable_type === "Outcome").map((r) => r.itemable_id))).map((o) => [o.id, o]))
  const pollIds = [...rows.filter((r) => r.itemable_type === "Poll").map((r) => r.itemable_id), ...[...outcomes.values()].map((o) => o.poll_id)]
  const polls = new Map((yield* store.polls.byIds([...new Set(pollIds)])).map((p) => [p.id, p]))
  const titleOf = (r: (typeof rows)[number]): string | undefined =>
    r.itemable_type === "Poll"
      ? polls.get(r.itemable_id)?.title
      : r.itemable_type === "Outcome"
      ? polls.get(outcomes.get(r.itemable_id)?.poll_id ?? 0)?.title
      : discussions.get(r.topic_id)?.title
  // each thread's news in the order it happens: started, polled, talked about, closed, decided
  const rank = (kind: string) => ["new_discussion", "poll_created", "new_comment", "poll_closed_by_user", "poll_expired", "outcome_created"].indexOf(kind)
  for (const r of [...rows].sort((a, b) => a.topic_id - b.topic_id || rank(a.kind) - rank(b.kind))) {
    const title = titleOf(r)
    if (title === undefined) continue
    const name = plainMarkdown(title)
    if (r.kind === "new_discussion") add(r.group_id, t("digest.newDiscussion", { title: name }))
    else if (r.kind === "new_comment") add(r.group_id, t("digest.comments", { title: name, count: r.count }))
    else if (r.kind === "poll_created") add(r.group_id, t("digest.pollOpened", { title: name }))
    else if (r.kind === "poll_closed_by_user" || r.kind === "poll_expired") add(r.group_id, t("digest.closed", { title: name }))
    else if (r.kind === "outcome_created") add(r.group_id, t("digest.outcome", { title: name }))
  }
  const format = new Intl.DateTimeFormat(user.locale ?? "en", { dateStyle: "medium", timeStyle: "short", timeZone: zone })
  for (const poll of yield* store.polls.closingSoon(until, iso(Date.parse(until) + DAY_MS))) {
    if (poll.group_id === null || !ids.includes(poll.group_id) || poll.discarded_at !== null) continue
    add(poll.group_id, t("digest.closingSoon", { title: plainMarkdown(poll.title), time: format.format(new Date(poll.closing_at!)) }))
  }
  if (lines.size === 0) return undefined
  const sections = [...lines].map(([groupId, items]) => `**${plainMarkdown(groups.get(groupId)!.name)}**\n\n${items.map((l) => `- ${l}`).join("\n")}`)
  return `${t("digest.intro", { since: format.format(new Date(since)) })}\n\n${sections.join("\n\n")}`
})

export interface DigestOptions {
  /** make it whatever the schedule says (`convene mail digest --now`) */
  readonly now?: boolean
  /** this person only */
  readonly userId?: Id
}

/** Makes the due catch-up e-mails; returns how many were sent (queued in the outbox). */
export const sendDigests = Effect.fnUntraced(function*(options: DigestOptions = {}): Effect.fn.Return<number, never, Store> {
  const store = yield* Store
  const nowMs = yield* Clock.currentTimeMillis
  const candidates = (yield* store.catchUp.subscribers()).filter((u) => options.userId === undefined || u.id === options.userId)
  let sent = 0
  for (const candidate of candidates) {
    const zone = candidate.time_zone ?? Intl.DateTimeFormat().resolvedOptions().timeZone
    if (options.now !== true && !catchUpDue(candidate.catch_up!, zone, candidate.catch_up_sent_at, nowMs)) continue
    sent += yield* store.transaction(Effect.gen(function*() {
      yield* store.lock({ table: "users", id: candidate.id })
      const user = yield* store.users.byId(candidate.id)
      // made meanwhile (another server), or turned off
      if (user === undefined || user.catch_up === null || user.catch_up_sent_at !== candidate.catch_up_sent_at) return 0
      const now = iso(nowMs)
      const since = user.catch_up_sent_at ?? iso(nowMs - CATCH_UP_DAYS[user.catch_up] * DAY_MS)
      yield* store.users.update(user.id, { catch_up_sent_at: now })
      const t = mailTranslator(user)
      const body = yield* catchUpBody(user, since, now, t, zone)
      if (body === undefined) return 0
      yield* store.mail.enqueue({
        kind: "catch_up", recipient_user_id: user.id, recipient_email: user.email!, subject: t("mail.catchUpSubject"), body,
        path: "/", group_id: null, actor_id: null, created_at: now
      })
      return 1
    }))
  }
  return sent
})
