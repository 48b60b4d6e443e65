/**
 * The scheduler's jobs (run every CONVENE_SCHEDULER_INTERVAL_MS by `serve`): close polls at closing time
 * (`poll_expired`), remind 24 hours before (`poll_closing_soon`), raise outcome reviews (`outcome_review_due`),
 * and make the catch-up e-mails that are due (digest.ts).
 * Each job re-checks its marker inside its own transaction, so a restart or a second process never repeats one.
 * Time comes from Effect's Clock: tests drive it with TestClock.
 */
import { Clock, Duration, Effect, Schedule } from "effect"
import type { Poll } from "../domain/polls.js"
import type { User } from "../domain/records.js"
import { Store } from "../ports/store.js"
import { outcomeEvent } from "./outcomes.js"
import { closeNow, pollEvent } from "./polls/index.js"
import { sendDigests } from "./digest.js"
import { purgeDeletedGroups } from "./groupDeletion.js"
import { recordThreadMessage } from "./mail.js"

const DAY_MS = 24 * 60 * 60 * 1000

export interface SchedulerReport {
  readonly expired: number
  readonly reminded: number
  readonly reviews: number
  /** catch-up e-mails made */
  readonly digests: number
  /** deleted groups purged (14 days after their deletion) */
  readonly purged: number
}

/** How long the live pages' events are kept for a page that reconnects. */
export const LIVE_KEPT_MS = 86_400_000

/** Who gets the 24 h reminder (`notify_on_closing_soon`). */
const reminderRecipients = Effect.fnUntraced(function*(poll: Poll): Effect.fn.Return<ReadonlyArray<User>, never, Store> {
  const store = yield* Store
  if (poll.notify_on_closing_soon === "nobody") return []
  if (poll.notify_on_closing_soon === "author") return yield* store.users.byIds([poll.author_id])
  const ballots = yield* store.stances.latestOf([poll.id])
  const wanted = poll.notify_on_closing_soon === "undecided_voters" ? ballots.filter((b) => b.cast_at === null) : ballots
  return (yield* store.users.byIds(wanted.map((b) => b.participant_id))).filter((u) => u.deactivated_at === null)
})

export const runScheduler: Effect.Effect<SchedulerReport, never, Store> = Effect.gen(function*() {
  const store = yield* Store
  const nowMs = yield* Clock.currentTimeMillis
  const now = new Date(nowMs).toISOString()
  let expired = 0, reminded = 0, reviews = 0

  for (const candidate of yield* store.polls.lapsed(now)) {
    // each job locks its record before it reads the marker: servers side by side do each job once
    expired += yield* store.transaction(Effect.gen(function*() {
      yield* store.lock({ table: "polls", id: candidate.id })
      const poll = yield* store.polls.byId(candidate.id)
      if (poll === undefined || poll.closed_at !== null || poll.discarded_at !== null) return 0
      yield* closeNow(poll, (yield* store.topics.byId(poll.topic_id))!, null, "poll_expired")
      return 1
    }))
  }

  for (const candidate of yield* store.polls.closingSoon(now, new Date(nowMs + DAY_MS).toISOString())) {
    // a voting period shorter than a day gets no reminder (there was never a "24 hours before")
    if (Date.parse(candidate.closing_at!) - Date.parse(candidate.opened_at!) < DAY_MS) continue
    reminded += yield* store.transaction(Effect.gen(function*() {
      yield* store.lock({ table: "polls", id: candidate.id })
      const poll = yield* store.polls.byId(candidate.id)
      if (poll === undefined || poll.closing_soon_sent_at !== null || poll.closed_at !== null) return 0
      yield* store.polls.update(poll.id, { closing_soon_sent_at: now, updated_at: now })
      yield* pollEvent("poll_closing_soon", poll, null)
      const author = (yield* store.users.byIds([poll.author_id]))[0]
      const group = poll.group_id === null ? undefined : yield* store.groups.byId(poll.group_id)
      for (const user of yield* reminderRecipients(poll)) {
        if (author !== undefined) yield* recordThreadMessage(user, { kind: "poll_closing_soon", group, title: poll.title, actor: author, path: `/p/${poll.key}`, topicId: poll.topic_id })
      }
      return 1
    }))
  }

  for (const candidate of yield* store.outcomes.reviewDue(now.slice(0, 10))) {
    reviews += yield* store.transaction(Effect.gen(function*() {
      yield* store.lock({ table: "outcomes", id: candidate.id })
      const outcome = yield* store.outcomes.byId(candidate.id)
      if (outcome === undefined || outcome.review_sent_at !== null || !outcome.latest) return 0
      yield* store.outcomes.update(outcome.id, { review_sent_at: now, updated_at: now })
      const poll = (yield* store.polls.byId(outcome.poll_id))!
      yield* outcomeEvent("outcome_review_due", poll, outcome, null)
      const [author] = yield* store.users.byIds([outcome.author_id])
      if (author !== undefined) {
        const group = poll.group_id === null ? undefined : yield* store.groups.byId(poll.group_id)
        yield* recordThreadMessage(author, { kind: "outcome_review_due", group, title: poll.title, actor: author, path: `/p/${poll.key}`, topicId: poll.topic_id })
      }
      return 1
    }))
  }
  const digests = yield* sendDigests()
  const purged = yield* purgeDeletedGroups
  // the live pages' log is kept a day: a page away longer reloads instead of catching up (decisions §13)
  yield* store.transaction(store.live.prune(new Date(nowMs - LIVE_KEPT_MS).toISOString()))
  return { expired, reminded, reviews, digests, purged }
})

/**
 * Runs the jobs now and then every `intervalMs`, forever (fork it; interrupt to stop). Each tick is logged
 * (at info when it did something) and reported to `onTick`; a failing tick is logged, not fatal.
 */
export const schedulerLoop = (intervalMs: number, onTick: (report: SchedulerReport) => void = () => {}): Effect.Effect<never, never, Store> =>
  runScheduler.pipe(
    Effect.tap((report) => {
      onTick(report)
      const busy = report.expired + report.reminded + report.reviews + report.digests + report.purged > 0
      return busy ? Effect.logInfo("scheduler ran", { ...report }) : Effect.logDebug("scheduler ran", { ...report })
    }),
    Effect.catchAllDefect((d) => Effect.logError("scheduler tick failed", { err: String(d) })),
    Effect.repeat(Schedule.spaced(Duration.millis(intervalMs))),
    Effect.zipRight(Effect.never)
  )
