import type { Effect } from "effect"
import type { Delegation, Outcome, Poll, PollOption, Stance } from "../domain/polls.js"
import type { Id, Page, TopicScope } from "../domain/records.js"
import type { PollTally } from "../domain/polls.js"
import type { PollTemplate } from "../domain/templates.js"

export type PollStatus = "active" | "closed" | "all"

export type NewPoll = Omit<Poll, "id" | "group_id" | "closed_at" | "discarded_at" | "discarded_by" | "closing_soon_sent_at" | "reminded_at" | "updated_at">
export type PollPatch = Partial<Omit<Poll, "id" | "key" | "topic_id" | "group_id" | "author_id" | "poll_type" | "created_at">> & {
  readonly updated_at: string
}

export interface PollsRepo {
  /**
   * With its thread and group in one statement (kept for the request); with `readerOf`, that person's place in the
   * thread too (kept: `ReadersRepo.find` answers it without a statement of its own).
   */
  readonly byId: (id: Id, readerOf?: Id) => Effect.Effect<Poll | undefined>
  readonly byKey: (key: string, readerOf?: Id) => Effect.Effect<Poll | undefined>
  readonly byIds: (ids: ReadonlyArray<Id>) => Effect.Effect<ReadonlyArray<Poll>>
  /** Kept polls of these threads, oldest first. */
  readonly ofTopics: (topicIds: ReadonlyArray<Id>) => Effect.Effect<ReadonlyArray<Poll>>
  /** Kept polls of a group whose threads are in `scope`, newest first. */
  readonly inGroup: (scope: TopicScope, groupId: Id, status: PollStatus, page: Page) => Effect.Effect<ReadonlyArray<Poll>>
  readonly countInGroup: (scope: TopicScope, groupId: Id, status: PollStatus) => Effect.Effect<number>
  readonly insert: (p: NewPoll) => Effect.Effect<Poll>
  readonly update: (id: Id, patch: PollPatch) => Effect.Effect<void>
  /** Polls open for voting now where the user holds a live ballot not yet cast, closing first first. */
  readonly awaitingVote: (userId: Id, limit: number) => Effect.Effect<ReadonlyArray<Poll>>
  /** Polls of the group open for voting now. */
  readonly openInGroup: (groupId: Id) => Effect.Effect<ReadonlyArray<Poll>>
  /** Open polls whose closing time has passed. */
  readonly lapsed: (now: string) => Effect.Effect<ReadonlyArray<Poll>>
  /** Open polls closing within `until` that have not had their reminder. */
  readonly closingSoon: (now: string, until: string) => Effect.Effect<ReadonlyArray<Poll>>
}

export interface PollOptionsRepo {
  readonly ofPolls: (pollIds: ReadonlyArray<Id>) => Effect.Effect<ReadonlyArray<PollOption>>
  /** Makes `names` (in order) the poll's complete option list: new ones added, missing ones removed with their votes. */
  readonly replace: (pollId: Id, names: ReadonlyArray<string>) => Effect.Effect<void>
}

export type NewStance = Omit<Stance, "id" | "latest" | "revoked_at" | "updated_at" | "delegated_by"> & { readonly delegated_by?: Id | null }

export interface StancesRepo {
  readonly byId: (id: Id) => Effect.Effect<Stance | undefined>
  readonly byIds: (ids: ReadonlyArray<Id>) => Effect.Effect<ReadonlyArray<Stance>>
  /** Latest, un-revoked ballots of these polls. */
  readonly latestOf: (pollIds: ReadonlyArray<Id>) => Effect.Effect<ReadonlyArray<Stance>>
  /** Results counted in the store (SQL) for many polls: ballots issued and cast, and per option totals. */
  readonly tallies: (pollIds: ReadonlyArray<Id>) => Effect.Effect<ReadonlyMap<Id, PollTally>>
  /** The person's latest, un-revoked ballot in each of these polls. */
  readonly mineOf: (pollIds: ReadonlyArray<Id>, userId: Id) => Effect.Effect<ReadonlyArray<Stance>>
  /** The person's latest ballot in the poll, revoked or not. */
  readonly latestFor: (pollId: Id, userId: Id) => Effect.Effect<Stance | undefined>
  /** A poll's newest cast ballots (latest, not revoked), newest first, at most `limit`. */
  readonly newestCast: (pollId: Id, limit: number) => Effect.Effect<ReadonlyArray<Stance>>
  /** Inserts a ballot as the latest one; the person's previous latest (if any) stops being latest. */
  readonly insert: (s: NewStance) => Effect.Effect<Stance>
  /** Changes a ballot in place (choices replaced). */
  readonly update: (id: Id, patch: Pick<Stance, "cast_at" | "reason" | "reason_format" | "choices" | "updated_at">) => Effect.Effect<void>
  readonly revoke: (id: Id, at: string, revokerId: Id | null) => Effect.Effect<void>
  readonly unrevoke: (id: Id, at: string) => Effect.Effect<void>
}

export interface OutcomesRepo {
  readonly byId: (id: Id) => Effect.Effect<Outcome | undefined>
  readonly byIds: (ids: ReadonlyArray<Id>) => Effect.Effect<ReadonlyArray<Outcome>>
  /** The current (latest) outcome of each poll. */
  readonly latestOf: (pollIds: ReadonlyArray<Id>) => Effect.Effect<ReadonlyArray<Outcome>>
  /** Inserts the poll's new current outcome (earlier ones stop being latest). */
  readonly insert: (o: Omit<Outcome, "id" | "latest" | "review_sent_at" | "updated_at">) => Effect.Effect<Outcome>
  readonly update: (id: Id, patch: Partial<Pick<Outcome, "statement" | "statement_format" | "review_on" | "review_sent_at">> & { updated_at: string }) => Effect.Effect<void>
  /** Outcomes whose review date has come and whose review was not raised. */
  readonly reviewDue: (today: string) => Effect.Effect<ReadonlyArray<Outcome>>
}

/** Members' delegates (decisions §15): the live grant per member and group, and every grant and revoke kept. */
export interface DelegationsRepo {
  /** the member's live delegation in the group */
  readonly activeOf: (groupId: Id, delegatorId: Id) => Effect.Effect<Delegation | undefined>
  /** the live delegations to this delegate in the group, oldest first (a delegation's place decides the limit) */
  readonly toDelegate: (groupId: Id, delegateId: Id) => Effect.Effect<ReadonlyArray<Delegation>>
  /** every live delegation in the group */
  readonly activeIn: (groupId: Id) => Effect.Effect<ReadonlyArray<Delegation>>
  readonly grant: (d: Pick<Delegation, "group_id" | "delegator_id" | "delegate_id" | "created_at">) => Effect.Effect<Delegation>
  readonly revoke: (id: Id, at: string, revokerId: Id | null) => Effect.Effect<void>
  /** every grant and revoke in the group, newest first */
  readonly history: (groupId: Id, limit: number) => Effect.Effect<ReadonlyArray<Delegation>>
}

/** A group's own poll templates (decisions §15). */
export interface PollTemplatesRepo {
  /** the group's, hidden ones too, by position */
  readonly inGroup: (groupId: Id) => Effect.Effect<ReadonlyArray<PollTemplate>>
  readonly byId: (id: Id) => Effect.Effect<PollTemplate | undefined>
  readonly insert: (t: Omit<PollTemplate, "id" | "updated_at">) => Effect.Effect<PollTemplate>
  readonly update: (id: Id, patch: Partial<Omit<PollTemplate, "id" | "group_id" | "created_at">> & { updated_at: string }) => Effect.Effect<void>
}
