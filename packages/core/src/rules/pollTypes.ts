/**
 * Poll types (Loomio's rules, reference/loomio-domain.md §1): per-type ballot defaults, option validation,
 * ballot validation, and results. Pure functions; the services apply them.
 */
import { isIsoDateOrDateTime, parseDateTime } from "./dates.js"
import type { Id } from "../domain/records.js"
import {
  type BallotConfig,
  type PollTally,
  type HideResults,
  type PollOption,
  POLL_TYPE_FACTS,
  type PollType,
  PROPOSAL_OPTIONS,
  type Stance
} from "../domain/polls.js"

export type ConfigInput = Partial<Omit<BallotConfig, "poll_type">>

/** Loomio's per-type defaults, overridden by what the poll sets. */
export const ballotConfig = (poll_type: PollType, set: ConfigInput = {}): BallotConfig => {
  const keys = ["min_score", "max_score", "minimum_stance_choices", "maximum_stance_choices", "dots_per_person", "can_respond_maybe"] as const
  const defined = Object.fromEntries(keys.filter((k) => set[k] !== undefined).map((k) => [k, set[k]]))
  return { poll_type, ...POLL_TYPE_FACTS[poll_type].ballot, ...defined }
}

/** Checks the numbers a client may set; returns [field, message] or null. */
export const configErrors = (c: BallotConfig): [string, string] | null => {
  const ints: Array<keyof BallotConfig> = ["min_score", "max_score", "minimum_stance_choices", "maximum_stance_choices", "dots_per_person"]
  for (const f of ints) {
    const v = c[f] as number
    if (!Number.isInteger(v) || v < 0 || v > 1000) return [f, "must be a whole number from 0 to 1000"]
  }
  if (c.poll_type === "score" && c.min_score > c.max_score) return ["max_score", "must be at least min_score"]
  if (c.poll_type === "poll" && c.maximum_stance_choices < c.minimum_stance_choices) {
    return ["maximum_stance_choices", "must be at least minimum_stance_choices"]
  }
  if (c.poll_type === "dot_vote" && c.dots_per_person < 1) return ["dots_per_person", "must be at least 1"]
  return null
}

/** Validates a poll's complete option list; returns the message for `options`, or null. */
export const optionsErrors = (type: PollType, names: ReadonlyArray<string>): string | null => {
  const facts = POLL_TYPE_FACTS[type]
  if (names.length < facts.minOptions) return `a ${type} needs at least ${facts.minOptions} option${facts.minOptions > 1 ? "s" : ""}`
  if (names.length > 100) return "at most 100 options"
  if (names.some((n) => n.trim() === "")) return "can't contain a blank option"
  if (names.some((n) => Array.from(n).length > 200)) return "an option is longer than 200 characters"
  if (new Set(names).size !== names.length) return "must be unique"
  if (facts.optionNames === "proposal") {
    const bad = names.filter((n) => !(PROPOSAL_OPTIONS as ReadonlyArray<string>).includes(n))
    if (bad.length > 0) return `a proposal's options must be among ${PROPOSAL_OPTIONS.join(", ")} (not ${bad.join(", ")})`
  }
  if (facts.optionNames === "dates") {
    const bad = names.filter((n) => !isIsoDateOrDateTime(n))
    if (bad.length > 0) return `a meeting's options must be ISO 8601 dates or date-times (not ${bad.join(", ")})`
  }
  return null
}

/** Meeting options are kept in chronological order (their priority); others in the order given. */
export const orderOptions = (type: PollType, names: ReadonlyArray<string>): ReadonlyArray<string> =>
  POLL_TYPE_FACTS[type].optionNames === "dates" ? [...names].sort((a, b) => parseDateTime(a)! - parseDateTime(b)! || a.localeCompare(b)) : names

/**
 * Validates a ballot (option name → score) for the poll's type; returns what is wrong, or null.
 * Loomio's BallotValidator: integer scores ≥ 0, choice counts, score bounds, and the type's ballot rule.
 */
export const ballotErrors = (c: BallotConfig, options: ReadonlyArray<PollOption>, scores: Readonly<Record<string, number>>): string | null => {
  const names = new Set(options.map((o) => o.name))
  const entries = Object.entries(scores)
  const unknown = entries.filter(([n]) => !names.has(n)).map(([n]) => n)
  if (unknown.length > 0) return `unknown option: ${unknown.join(", ")}`
  if (entries.some(([, s]) => !Number.isInteger(s) || s < 0)) return "every score must be a whole number of at least 0"
  const chosen = entries.filter(([, s]) => s > 0)
  switch (c.poll_type) {
    case "proposal":
    case "count":
      if (entries.length !== 1 || chosen.length !== 1 || chosen[0]![1] !== 1) return "choose exactly one option, with score 1"
      return null
    case "poll": {
      if (entries.some(([, s]) => s !== 1)) return "each chosen option takes score 1"
      const max = Math.max(1, c.maximum_stance_choices)
      const min = Math.max(1, c.minimum_stance_choices)
      if (entries.length < min) return `choose at least ${min} option${min > 1 ? "s" : ""}`
      if (entries.length > max) return max === 1 ? "choose only one option" : `choose at most ${max} options`
      return null
    }
    case "score": {
      if (entries.length < Math.max(1, c.minimum_stance_choices)) return "score at least one option"
      const out = entries.find(([, s]) => s < c.min_score || s > c.max_score)
      if (out) return `scores must be from ${c.min_score} to ${c.max_score} (${out[0]}: ${out[1]})`
      return null
    }
    case "ranked_choice": {
      // every option ranked: the top choice scores the number of options, the last scores 1
      const n = options.length
      const got = entries.map(([, s]) => s).sort((a, b) => a - b)
      if (entries.length !== n || got.some((s, i) => s !== i + 1)) {
        return `rank all ${n} options: scores must be ${n} (first choice) down to 1, each used once`
      }
      return null
    }
    case "meeting": {
      if (entries.length !== options.length) return "answer every proposed time (2 yes, 1 maybe, 0 no)"
      const allowed = c.can_respond_maybe ? [0, 1, 2] : [0, 2]
      const bad = entries.find(([, s]) => !allowed.includes(s))
      if (bad) return c.can_respond_maybe ? "each answer must be 2 (yes), 1 (maybe) or 0 (no)" : "each answer must be 2 (yes) or 0 (no)"
      return null
    }
    case "dot_vote": {
      const total = entries.reduce((a, [, s]) => a + s, 0)
      if (total < 1) return "place at least one dot"
      if (total > c.dots_per_person) return `at most ${c.dots_per_person} dots in total (this ballot has ${total})`
      return null
    }
  }
}

export interface OptionResult {
  readonly id: Id
  readonly name: string
  readonly priority: number
  /** 1-based position in the results order */
  readonly rank: number
  /** sum of scores (votes for proposal/poll/count, points for ranked choice, dots for dot vote) */
  readonly score: number
  readonly voter_count: number
  readonly average: number
  /** share of all scores cast */
  readonly score_percent: number
  /** share of cast ballots that chose this option */
  readonly votes_cast_percent: number
  /** share of eligible voters (ballots issued) that chose this option */
  readonly voter_percent: number
  /** meeting answers */
  readonly yes: number
  readonly maybe: number
  readonly no: number
  /** who chose it, the first VOTER_NAMES (empty for anonymous polls) */
  readonly voter_ids: ReadonlyArray<Id>
}

export interface PollResults {
  /** ballots issued (eligible voters), cast or not */
  readonly voters_count: number
  readonly cast_count: number
  /** ballots cast by delegates' votes (decisions §15) */
  readonly delegated_count: number
  readonly undecided_count: number
  readonly total_score: number
  readonly options: ReadonlyArray<OptionResult>
}

const pct = (part: number, whole: number) => (whole === 0 ? 0 : Math.round((part / whole) * 10000) / 100)


/** Results name at most this many voters per option; `voter_count` has the number. */
export const VOTER_NAMES = 50

export type { OptionTally, PollTally } from "../domain/polls.js"

export const tallyBallots = (type: PollType, options: ReadonlyArray<PollOption>, stances: ReadonlyArray<Stance>): PollTally => {
  const live = stances.filter((s) => s.latest && s.revoked_at === null)
  const cast = live.filter((s) => s.cast_at !== null).sort((a, b) => a.id - b.id)
  return {
    voters_count: live.length,
    cast_count: cast.length,
    delegated_count: cast.filter((s) => s.delegated_by !== null).length,
    options: options.map((o) => {
      let score = 0, voters = 0, yes = 0, maybe = 0, no = 0
      const ids: Array<Id> = []
      for (const s of cast) {
        const v = s.choices.get(o.id)
        if (v === undefined) continue
        score += v
        // a meeting's answers: 2 yes, 1 maybe, 0 no
        if (v === 2) yes++
        else if (v === 1) maybe++
        else if (v === 0) no++
        if (v > 0 || type === "meeting") {
          voters++
          if (ids.length < VOTER_NAMES) ids.push(s.participant_id)
        }
      }
      return { option_id: o.id, score, voter_count: voters, yes, maybe, no, voter_ids: ids }
    })
  }
}

/** Percentages, averages and order from a tally. Anonymous polls never say who chose what. */
export const resultsFromTally = (type: PollType, options: ReadonlyArray<PollOption>, tally: PollTally, anonymous: boolean): PollResults => {
  const byOption = new Map(tally.options.map((t) => [t.option_id, t]))
  const total = tally.options.reduce((a, t) => a + t.score, 0)
  const meeting = type === "meeting"
  const rows = options.map((o) => {
    const t = byOption.get(o.id) ?? { score: 0, voter_count: 0, yes: 0, maybe: 0, no: 0, voter_ids: [] }
    return {
      id: o.id, name: o.name, priority: o.priority, score: t.score, voter_count: t.voter_count,
      average: t.voter_count === 0 ? 0 : Math.round((t.score / t.voter_count) * 100) / 100,
      score_percent: pct(t.score, total),
      votes_cast_percent: pct(t.voter_count, tally.cast_count),
      voter_percent: pct(t.voter_count, tally.voters_count),
      yes: meeting ? t.yes : 0, maybe: meeting ? t.maybe : 0, no: meeting ? t.no : 0,
      voter_ids: anonymous ? [] : t.voter_ids
    }
  })
  const ordered = POLL_TYPE_FACTS[type].resultsOrder === "priority"
    ? [...rows].sort((a, b) => a.priority - b.priority)
    : [...rows].sort((a, b) => b.score - a.score || a.priority - b.priority)
  return {
    voters_count: tally.voters_count,
    cast_count: tally.cast_count,
    delegated_count: tally.delegated_count,
    undecided_count: tally.voters_count - tally.cast_count,
    total_score: total,
    options: ordered.map((r, i) => Object.assign({}, r, { rank: i + 1 }))
  }
}

/** Results over ballots in memory (latest, un-revoked). */
export const computeResults = (
  type: PollType,
  options: ReadonlyArray<PollOption>,
  stances: ReadonlyArray<Stance>,
  anonymous: boolean
): PollResults => resultsFromTally(type, options, tallyBallots(type, options, stances), anonymous)

/**
 * May this viewer see results and other people's votes yet? `until_vote`: once they have voted or the
 * poll closed; `until_closed`: only once it closed.
 */
export const resultsVisible = (hide: HideResults, closed: boolean, viewerHasVoted: boolean): boolean =>
  hide === "off" || closed || (hide === "until_vote" && viewerHasVoted)

/**
 * `shuffle_options`: each viewer sees the options in an order of their own that stays the same on every
 * request (a hash of viewer and option), so ballots are not biased by position.
 */
export const shuffledFor = <T extends { id: Id }>(viewerId: Id, options: ReadonlyArray<T>): ReadonlyArray<T> => {
  const rank = (id: Id) => {
    let h = 2166136261
    for (const ch of `${viewerId}:${id}`) h = Math.imul(h ^ ch.charCodeAt(0), 16777619)
    return h >>> 0
  }
  return [...options].sort((a, b) => rank(a.id) - rank(b.id) || a.id - b.id)
}
