/** The poll pages' forms (decisions §9), each declared once (layout/forms.ts). */
import { type Inputs, NOTIFY_ON_CLOSING_SOON, POLL_SETTINGS, POLL_TYPES, STANCE_REASON_REQUIRED } from "@convene/core"
import { Schema } from "effect"
import { Checkbox, Filled, Many, OneOf, OptionalCount, Required, Text } from "../layout/forms.js"

/**
 * **Start poll**: the type, "Title", "Details", "Options" (one per line), "Closing date" (in the reader's zone:
 * the route reads it there) and the type's settings.
 */
/** A poll's settings, on starting it and on editing it (the type's numbers only where the type has them: the core says). */
const POLL_SETTING_FIELDS = {
  anonymous: Checkbox,
  /** "No delegated votes" (decisions §15): checked, the poll refuses them */
  no_delegated_votes: Checkbox,
  /** "Reason", "Shuffle options", "Closing-soon notice" (decisions §15) */
  stance_reason_required: OneOf(...STANCE_REASON_REQUIRED),
  /** "Who can vote": anyone in the group, or invited people only (specified_voters_only) */
  voters: OneOf("group", "invited"),
  shuffle_options: Checkbox,
  notify_on_closing_soon: OneOf(...NOTIFY_ON_CLOSING_SOON),
  hide_results: OneOf("off", "until_vote", "until_closed"),
  minimum_stance_choices: OptionalCount,
  maximum_stance_choices: OptionalCount,
  min_score: OptionalCount,
  max_score: OptionalCount,
  dots_per_person: OptionalCount
}

export const NewPollForm = Schema.Struct({
  /** the template the form was filled from (hidden fields; the core checks them): a built-in's key, or the group's own's id */
  poll_template_key: Text,
  poll_template_id: Text,
  poll_type: OneOf(...POLL_TYPES),
  title: Required,
  details: Text,
  options: Text,
  closing_at: Text,
  ...POLL_SETTING_FIELDS
})

/** **Add template** and a template's edit (decisions §15): its name, process, the poll it starts and how long it runs. */
export const PollTemplateForm = Schema.Struct({
  process_name: Required,
  process_subtitle: Text,
  poll_type: OneOf(...POLL_TYPES),
  details: Text,
  options: Text,
  default_duration_in_days: OptionalCount,
  ...POLL_SETTING_FIELDS
})

const SettingsForm = Schema.Struct(POLL_SETTING_FIELDS)
/** The type's numbers a poll form holds. */
export const COUNT_SETTINGS = ["minimum_stance_choices", "maximum_stance_choices", "min_score", "max_score", "dots_per_person"] as const

/** A form's settings fields as the core takes them, a poll's or a template's ("Who can vote", "No delegated votes" turned). */
export const settingsFromForm = (form: typeof SettingsForm.Type) => ({
  anonymous: form.anonymous,
  hide_results: form.hide_results,
  allow_delegated_votes: !form.no_delegated_votes,
  stance_reason_required: form.stance_reason_required,
  shuffle_options: form.shuffle_options,
  notify_on_closing_soon: form.notify_on_closing_soon,
  specified_voters_only: form.voters === "invited",
  ...Object.fromEntries(COUNT_SETTINGS.flatMap((k) => (form[k] === undefined ? [] : [[k, form[k]]])))
})

/** What a form's settings fields show for these settings (a template's; a new poll's defaults). */
export const formFromSettings = (s: typeof Inputs.PollTemplateSettings.Type): Record<string, string | boolean> => ({
  ...Object.fromEntries(Object.entries(s).flatMap(([k, v]) =>
    k === "specified_voters_only" ? [["voters", v === true ? "invited" : "group"]]
    : k === "allow_delegated_votes" ? [["no_delegated_votes", v === false]]
    : k === "can_respond_maybe" || v === undefined ? []
    : [[k, typeof v === "number" ? String(v) : v as string | boolean]]))
})

/** The settings fields as a new poll's form shows them: the poll defaults, no numbers (the type's own). */
export const SETTINGS_FORM = {
  ...formFromSettings(POLL_SETTINGS),
  minimum_stance_choices: "", maximum_stance_choices: "", min_score: "", max_score: "", dots_per_person: ""
} as Readonly<Record<keyof typeof SettingsForm.fields, string | boolean>>

/** A number typed for an option (a score, dots, a rank): a whole number, else NaN, which the core refuses. */
const Whole = Schema.transform(Text, Schema.Number, {
  strict: true,
  decode: (s) => (/^-?[0-9]{1,6}$/.test(s.trim()) ? Number(s.trim()) : Number.NaN),
  encode: (n) => String(n)
})

const SCORE = "score:"
const RANK = "rank:"

/** What the vote form's fields name: an option per checked `choice`, a `score:{option}` or a `rank:{option}` per option. */
const VoteFields = Schema.Struct(
  { reason: Text, choice: Many },
  Schema.Record({ key: Schema.TemplateLiteral(SCORE, Schema.String), value: Whole }),
  Schema.Record({ key: Schema.TemplateLiteral(RANK, Schema.String), value: Whole })
)

/** Option name → number, from the fields named `{prefix}{option}`. */
const byOption = (fields: Readonly<Record<string, unknown>>, prefix: string): Record<string, number> => {
  const out: Record<string, number> = {}
  for (const [name, value] of Object.entries(fields)) if (name.startsWith(prefix)) out[name.slice(prefix.length)] = value as number
  return out
}

/** **Vote**: the choices checked, each option's score or rank, and "Reason"; the route makes the ballot of the poll's type. */
export const VoteForm = Schema.transform(VoteFields, Schema.Struct({
  reason: Schema.String,
  choices: Schema.Array(Schema.String),
  scores: Schema.Record({ key: Schema.String, value: Schema.Number }),
  ranks: Schema.Record({ key: Schema.String, value: Schema.Number })
}), {
  strict: false,
  decode: (fields) => ({ reason: fields.reason, choices: fields.choice, scores: byOption(fields, SCORE), ranks: byOption(fields, RANK) }),
  encode: (form) => ({ reason: form.reason, choice: form.choices })
})

/** **Share outcome**: "Outcome"; a meeting poll's also "Chosen time" (an option's id), "Event title" and "Location". */
export const OutcomeForm = Schema.Struct({ statement: Filled, poll_option_id: Text, event_summary: Text, event_location: Text })

/** **Reopen poll**: a new "Closing date", in the reader's zone. */
export const ReopenForm = Schema.Struct({ closing_at: Text })

/**
 * **Save poll** (decisions §12): "Title", "Details", "Closing date" (in the reader's zone), "Options" (one per line; a
 * proposal's are fixed), the poll's settings, "What's changed?" with "Tell the voters", and the confirmation that removes
 * voted options.
 */
export const EditPollForm = Schema.Struct({
  title: Required,
  details: Text,
  closing_at: Text,
  options: Text,
  change: Text,
  notify: Checkbox,
  confirm_removal: Checkbox,
  // the files the form listed ("Keep" boxes) and which stay checked
  files_listed: Checkbox,
  keep: Many,
  ...POLL_SETTING_FIELDS
})
