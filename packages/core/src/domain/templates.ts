/**
 * Loomio's 14 built-in poll templates (decisions §15; reference/templates-voters-delegation.md §1.2), declared once:
 * each one's poll type, options, duration and settings; their words (name, process, details, option names) are the
 * catalog's (`template.KEY.*`, in every shipped language). The spec fixes a proposal's options to agree, abstain,
 * disagree and block: Loomio's proposals with other options (sense check, advice, consent, gradients of agreement)
 * are single-choice polls here, with Loomio's option names.
 */
import { Schema } from "effect"
import { PollTemplateSettings } from "./inputs.js"
import { Id as IdField, model, NullId, NullStamp, NullText, Stamp } from "./model.js"
import { type PollSettings, type PollType, POLL_TYPES } from "./polls.js"

export interface BuiltinTemplate {
  readonly key: string
  readonly poll_type: PollType
  /** the options: a proposal's own words, how many of the catalog's `template.KEY.options` lines, or none (the author's own) */
  readonly options: ReadonlyArray<"agree" | "abstain" | "disagree" | "block"> | { readonly lines: number } | null
  /** the closing date a poll from it starts with: this many days on */
  readonly duration_days: number
  readonly settings: Partial<PollSettings>
  readonly config: { readonly minimum_stance_choices?: number; readonly maximum_stance_choices?: number; readonly dots_per_person?: number; readonly min_score?: number; readonly max_score?: number; readonly can_respond_maybe?: boolean }
}

export const BUILTIN_TEMPLATES: ReadonlyArray<BuiltinTemplate> = [
  { key: "practice_proposal", poll_type: "proposal", options: ["agree", "abstain", "disagree"], duration_days: 7, settings: {}, config: {} },
  { key: "question", poll_type: "poll", options: { lines: 1 }, duration_days: 5, settings: { stance_reason_required: "required" }, config: { maximum_stance_choices: 1 } },
  { key: "count", poll_type: "count", options: null, duration_days: 3, settings: {}, config: {} },
  { key: "check", poll_type: "poll", options: { lines: 3 }, duration_days: 3, settings: {}, config: { maximum_stance_choices: 1 } },
  { key: "proposal", poll_type: "proposal", options: ["agree", "abstain", "disagree"], duration_days: 7, settings: {}, config: {} },
  { key: "meeting", poll_type: "meeting", options: null, duration_days: 3, settings: {}, config: { can_respond_maybe: true } },
  { key: "poll", poll_type: "poll", options: null, duration_days: 3, settings: { shuffle_options: true }, config: { maximum_stance_choices: 1 } },
  { key: "dot_vote", poll_type: "dot_vote", options: null, duration_days: 3, settings: {}, config: { dots_per_person: 8 } },
  { key: "score", poll_type: "score", options: null, duration_days: 3, settings: {}, config: { min_score: 0, max_score: 5 } },
  { key: "ranked_choice", poll_type: "ranked_choice", options: null, duration_days: 3, settings: {}, config: { minimum_stance_choices: 2 } },
  { key: "advice", poll_type: "poll", options: { lines: 2 }, duration_days: 7, settings: {}, config: { maximum_stance_choices: 1 } },
  { key: "consent", poll_type: "poll", options: { lines: 2 }, duration_days: 7, settings: {}, config: { maximum_stance_choices: 1 } },
  { key: "consensus", poll_type: "proposal", options: ["agree", "abstain", "disagree", "block"], duration_days: 7, settings: { notify_on_closing_soon: "voters" }, config: {} },
  { key: "gradients_of_agreement", poll_type: "poll", options: { lines: 8 }, duration_days: 5, settings: {}, config: { maximum_stance_choices: 1 } }
]

export const BUILTIN_TEMPLATE_KEYS = BUILTIN_TEMPLATES.map((t) => t.key)

/**
 * A group's own poll template (decisions §15; Loomio's `poll_templates` row): added by the group's administrators,
 * or a built-in they edited (`source_key`: the built-in it was copied from, which the group then hides). Hidden:
 * `discarded_at`. Its place among the group's templates: `position` (the built-ins' are the group's
 * `poll_template_positions`).
 */
export const PollTemplate = model("PollTemplate", {
  id: IdField,
  group_id: IdField,
  author_id: NullId,
  source_key: NullText,
  poll_type: Schema.Literal(...POLL_TYPES),
  process_name: Schema.String,
  process_subtitle: Schema.String,
  details: Schema.String,
  poll_options: Schema.Array(Schema.String),
  default_duration_in_days: Schema.Int,
  settings: PollTemplateSettings,
  position: Schema.Int,
  discarded_at: NullStamp,
  created_at: Stamp,
  updated_at: Stamp
})
export type PollTemplate = typeof PollTemplate.Type

/** How many templates of its own a group may keep, and the longest a poll from one may run. */
export const GROUP_TEMPLATES_MAX = 100
export const TEMPLATE_DURATION_MAX_DAYS = 365
