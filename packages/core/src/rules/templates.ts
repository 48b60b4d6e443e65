/**
 * A group's poll templates (decisions §15): what a template may hold (`pollTemplateErrors`), and the group's list
 * (`arrangeTemplates`): the built-ins it does not hide and its own, each in its place, as the chooser offers them.
 */
import type { PollType } from "../domain/polls.js"
import type { Group } from "../domain/records.js"
import { GROUP_TEMPLATES_MAX, type PollTemplate, TEMPLATE_DURATION_MAX_DAYS } from "../domain/templates.js"
import type { PollTemplateInput } from "../domain/inputs.js"
import { bodyLengthErrors } from "./bodies.js"
import { ballotConfig, configErrors, optionsErrors } from "./pollTypes.js"
import { pollSettingsErrors } from "./polls.js"
import { plainLineErrors } from "./values.js"

/** What is wrong with a template as given ([field, message]), or null. Its options may be none: the author's own. */
export const pollTemplateErrors = (input: typeof PollTemplateInput.Type, others: number): [string, string] | null => {
  if (others >= GROUP_TEMPLATES_MAX) return ["process_name", `a group keeps at most ${GROUP_TEMPLATES_MAX} templates`]
  const name = plainLineErrors(input.process_name, true) ?? (Array.from(input.process_name.trim()).length > 100 ? "is longer than 100 characters" : null)
  if (name !== null) return ["process_name", name]
  const subtitle = plainLineErrors(input.process_subtitle, false) ?? (Array.from(input.process_subtitle ?? "").length > 250 ? "is longer than 250 characters" : null)
  if (subtitle !== null) return ["process_subtitle", subtitle]
  const settings = input.settings ?? {}
  const settingsProblem = pollSettingsErrors({ ...settings, poll_type: input.poll_type })
  if (settingsProblem !== null) return settingsProblem
  const details = bodyLengthErrors(input.details)
  if (details !== null) return ["details", details]
  const d = input.default_duration_in_days
  if (!Number.isInteger(d) || d < 1 || d > TEMPLATE_DURATION_MAX_DAYS) return ["default_duration_in_days", `must be a whole number from 1 to ${TEMPLATE_DURATION_MAX_DAYS}`]
  const type = input.poll_type as PollType
  const options = input.options ?? []
  // no options: a poll from it starts with its author's own (or its type's)
  const optionProblem = options.length === 0 ? null : optionsErrors(type, options)
  if (optionProblem !== null) return ["options", optionProblem]
  return configErrors(ballotConfig(type, settings))
}

/** A template of the group's list: a built-in (by key) or the group's own (by id). */
export type TemplateRef = { readonly key: string } | { readonly id: number }

export interface PlacedTemplate {
  readonly ref: TemplateRef
  readonly position: number
  readonly hidden: boolean
}

/**
 * The group's templates in their order: each built-in where the group placed it (else in Loomio's order), hidden
 * where the group hides it; each of its own at its position, hidden once discarded. The same position: the built-in
 * first, then the older.
 */
export const arrangeTemplates = (builtinKeys: ReadonlyArray<string>, group: Pick<Group, "hidden_poll_templates" | "poll_template_positions">,
  own: ReadonlyArray<Pick<PollTemplate, "id" | "position" | "discarded_at">>): ReadonlyArray<PlacedTemplate> =>
  [
    ...builtinKeys.map((key, i) => ({ ref: { key }, position: group.poll_template_positions[key] ?? i, hidden: group.hidden_poll_templates.includes(key), rank: 0 })),
    ...own.map((t) => ({ ref: { id: t.id }, position: t.position, hidden: t.discarded_at !== null, rank: t.id }))
  ].sort((a, b) => a.position - b.position || a.rank - b.rank).map(({ hidden, position, ref }) => ({ ref, position, hidden }))

/** The list after moving the template at `index` one place up (-1) or down (1): each one's new position, from 0. */
export const moveTemplate = (list: ReadonlyArray<PlacedTemplate>, index: number, by: -1 | 1): ReadonlyArray<PlacedTemplate> => {
  const to = index + by
  const out = [...list]
  if (index < 0 || index >= out.length || to < 0 || to >= out.length) return out
  ;[out[index], out[to]] = [out[to]!, out[index]!]
  return out.map((t, position) => ({ ...t, position }))
}

export const sameRef = (a: TemplateRef, b: TemplateRef): boolean =>
  "key" in a ? "key" in b && a.key === b.key : "id" in b && a.id === b.id
