/**
 * Poll templates (decisions §15): Loomio's built-ins (domain/templates.ts) in the reader's words, and a poll started
 * from one records its key (`poll_template_key`). A group's own templates are not built yet (issue 44).
 */
import { BUILTIN_TEMPLATE_KEYS, BUILTIN_TEMPLATES, type BuiltinTemplate } from "../../domain/templates.js"
import type { PollSettings, PollType } from "../../domain/polls.js"
import type { MessageKey, Translate } from "../../messages/index.js"

export interface PollTemplateView {
  readonly key: string
  readonly poll_type: PollType
  readonly name: string
  /** what the process is for, in a line */
  readonly process: string
  /** the poll's details as it starts (markdown) */
  readonly details: string
  /** the options as the poll starts with them; empty: the author's own */
  readonly options: ReadonlyArray<string>
  readonly default_duration_in_days: number
  readonly settings: Partial<PollSettings>
  readonly config: BuiltinTemplate["config"]
}

const view = (t: Translate, b: BuiltinTemplate): PollTemplateView => ({
  key: b.key,
  poll_type: b.poll_type,
  name: t(`template.${b.key}.name` as MessageKey),
  process: t(`template.${b.key}.process` as MessageKey),
  details: t(`template.${b.key}.details` as MessageKey),
  options: b.options === null ? [] : Array.isArray(b.options) ? b.options : t(`template.${b.key}.options` as MessageKey).split("\n").slice(0, (b.options as { lines: number }).lines),
  default_duration_in_days: b.duration_days,
  settings: b.settings,
  config: b.config
})

/** The templates a poll may start from, in `t`'s language, in Loomio's order. */
export const pollTemplates = (t: Translate): ReadonlyArray<PollTemplateView> => BUILTIN_TEMPLATES.map((b) => view(t, b))

/** One template by its key, or undefined. */
export const pollTemplate = (t: Translate, key: string): PollTemplateView | undefined => {
  const b = BUILTIN_TEMPLATES.find((x) => x.key === key)
  return b === undefined ? undefined : view(t, b)
}

export const isTemplateKey = (key: string): boolean => BUILTIN_TEMPLATE_KEYS.includes(key)
