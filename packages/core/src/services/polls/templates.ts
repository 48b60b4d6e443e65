/**
 * Poll templates (decisions §15): Loomio's built-ins (domain/templates.ts) in the reader's words, and a group's own,
 * which its administrators add, edit (a built-in edited becomes the group's copy, the built-in hidden), hide and
 * order at `/g/{key}/templates`. A poll started from one records it (`poll_template_key` or `poll_template_id`).
 */
import { Effect } from "effect"
import { BUILTIN_TEMPLATE_KEYS, BUILTIN_TEMPLATES, type BuiltinTemplate, type PollTemplate } from "../../domain/templates.js"
import type { PollTemplateInput, PollTemplateSettings } from "../../domain/inputs.js"
import type { PollType } from "../../domain/polls.js"
import type { Group, Id } from "../../domain/records.js"
import { type Forbidden, type Invalid, invalid, notFound, type NotFound } from "../../errors.js"
import type { MessageKey, Translate } from "../../messages/index.js"
import { ManageGroup, type Permit } from "../../policies.js"
import { Store } from "../../ports/store.js"
import type { Access } from "../../rules/access.js"
import { arrangeTemplates, moveTemplate, type PlacedTemplate, pollTemplateErrors, sameRef, type TemplateRef } from "../../rules/templates.js"
import { cleanBody } from "../../rules/bodies.js"
import { nowIso } from "../common.js"
import { managed, managedWrite, showGroup } from "../groups.js"

export interface PollTemplateView {
  /** the group's own template's id; null: a built-in */
  readonly id: Id | null
  /** a built-in's key; null: the group's own */
  readonly key: string | null
  /** the built-in the group's copy was edited from */
  readonly source_key: string | null
  readonly poll_type: PollType
  readonly name: string
  /** what the process is for, in a line */
  readonly process: string
  /** the poll's details as it starts (markdown) */
  readonly details: string
  /** the options as the poll starts with them; empty: the author's own */
  readonly options: ReadonlyArray<string>
  readonly default_duration_in_days: number
  /** the poll's settings and its type's numbers, those the template gives */
  readonly settings: typeof PollTemplateSettings.Type
  readonly position: number
  readonly hidden: boolean
}

const builtinView = (t: Translate, b: BuiltinTemplate, position: number, hidden: boolean): PollTemplateView => ({
  id: null,
  key: b.key,
  source_key: null,
  poll_type: b.poll_type,
  name: t(`template.${b.key}.name` as MessageKey),
  process: t(`template.${b.key}.process` as MessageKey),
  details: t(`template.${b.key}.details` as MessageKey),
  options: b.options === null ? [] : Array.isArray(b.options) ? b.options : t(`template.${b.key}.options` as MessageKey).split("\n").slice(0, (b.options as { lines: number }).lines),
  default_duration_in_days: b.duration_days,
  settings: { ...b.settings, ...b.config },
  position,
  hidden
})

const ownView = (p: PollTemplate, hidden: boolean): PollTemplateView => ({
  id: p.id,
  key: null,
  source_key: p.source_key,
  poll_type: p.poll_type,
  name: p.process_name,
  process: p.process_subtitle,
  details: p.details,
  options: p.poll_options,
  default_duration_in_days: p.default_duration_in_days,
  settings: p.settings,
  position: p.position,
  hidden
})

/** The built-ins, in `t`'s language, in Loomio's order (where no group is named). */
export const pollTemplates = (t: Translate): ReadonlyArray<PollTemplateView> => BUILTIN_TEMPLATES.map((b, i) => builtinView(t, b, i, false))

export const isTemplateKey = (key: string): boolean => BUILTIN_TEMPLATE_KEYS.includes(key)

/** A template named in a link or a form: a built-in's key, or the group's own template's id. */
export const templateRef = (s: string | null | undefined): TemplateRef | undefined =>
  s == null ? undefined : /^[0-9]{1,15}$/.test(s) ? { id: Number(s) } : isTemplateKey(s) ? { key: s } : undefined

/** Every template of the group, hidden ones too, in its order, with its own rows (read once). */
const arranged = Effect.fnUntraced(function*(group: Group) {
  const own = yield* (yield* Store).pollTemplates.inGroup(group.id)
  return { own, list: arrangeTemplates(BUILTIN_TEMPLATE_KEYS, group, own) }
})

/** The group's list, and `which` in it (its index); NotFound where `which` is not among the group's templates. */
const placedIn = Effect.fnUntraced(function*(group: Group, which: TemplateRef) {
  const { list, own } = yield* arranged(group)
  const index = list.findIndex((p) => sameRef(p.ref, which))
  if (index < 0) return yield* notFound("Poll template not found")
  return { list, own, index, placed: list[index]! }
})

const viewsOf = (t: Translate, list: ReadonlyArray<PlacedTemplate>, own: ReadonlyArray<PollTemplate>): ReadonlyArray<PollTemplateView> =>
  list.map((p) =>
    "key" in p.ref
      ? builtinView(t, BUILTIN_TEMPLATES.find((b) => b.key === (p.ref as { key: string }).key)!, p.position, p.hidden)
      : ownView(own.find((o) => o.id === (p.ref as { id: number }).id)!, p.hidden))

/** How a link or a form names the template. */
export const refOf = (v: PollTemplateView): TemplateRef => (v.id === null ? { key: v.key! } : { id: v.id })

/** The group's templates in its order, hidden ones too (`withHidden`), in `t`'s language. */
export const templatesOf = (t: Translate, group: Group, withHidden = false): Effect.Effect<ReadonlyArray<PollTemplateView>, never, Store> =>
  Effect.map(arranged(group), ({ list, own }) => viewsOf(t, withHidden ? list : list.filter((p) => !p.hidden), own))

/** The templates a poll of the group may start from, to whoever sees the group (the chooser, the API). */
export const groupPollTemplates = (access: Access, ref: string, t: Translate): Effect.Effect<ReadonlyArray<PollTemplateView>, NotFound | Forbidden, Store> =>
  Effect.flatMap(showGroup(access, ref), ({ group }) => templatesOf(t, group))

/** The template of `list` a link or a form names; undefined: none such. */
export const findTemplate = (list: ReadonlyArray<PollTemplateView>, ref: TemplateRef | undefined): PollTemplateView | undefined =>
  ref === undefined ? undefined : list.find((v) => sameRef(refOf(v), ref))

const managing = <A, E, R>(access: Access, ref: string, step: (group: Group) => Effect.Effect<A, E, R>) => managed(access, ref, "poll templates", step)
const managingWrite = <A, E, R>(access: Access, ref: string, step: (group: Group) => Effect.Effect<A, E, R>) => managedWrite(access, ref, "poll templates", step)

/** The group's templates to manage, hidden ones too (the templates page: its administrators'). */
export const managedPollTemplates = (access: Access, ref: string, t: Translate) =>
  managing(access, ref, (group) => Effect.zipRight(ManageGroup.needed, Effect.map(templatesOf(t, group, true), (templates) => ({ group, templates }))))

/** One template to edit: a built-in (its words in `t`'s language) or the group's own. */
export const managedPollTemplate = (access: Access, ref: string, t: Translate, which: TemplateRef) =>
  Effect.flatMap(managedPollTemplates(access, ref, t), ({ group, templates }) => {
    const found = findTemplate(templates, which)
    return found === undefined ? Effect.fail(notFound("Poll template not found")) : Effect.succeed({ group, template: found })
  })

/** A template's fields as given, checked (`others`: how many the group keeps, when it is one more). */
const fields = (input: typeof PollTemplateInput.Type, others: number) => {
  const problem = pollTemplateErrors(input, others)
  if (problem !== null) return Effect.fail(invalid(problem[0], problem[1]))
  return Effect.succeed({
    poll_type: input.poll_type as PollType,
    process_name: input.process_name.trim(),
    process_subtitle: (input.process_subtitle ?? "").trim(),
    details: cleanBody(input.details ?? "", "md"),
    poll_options: (input.options ?? []).map((o) => o.trim()),
    default_duration_in_days: input.default_duration_in_days,
    settings: input.settings ?? {}
  })
}

const adding = Effect.fnUntraced(function*(access: Access, group: Group, input: typeof PollTemplateInput.Type): Effect.fn.Return<PollTemplate, Invalid, Store | Permit<"ManageGroup">> {
  yield* ManageGroup.needed
  const store = yield* Store
  const { list, own } = yield* arranged(group)
  const values = yield* fields(input, own.length)
  const now = yield* nowIso
  return yield* store.pollTemplates.insert({
    ...values, group_id: group.id, author_id: access.user.id, source_key: null, position: Math.max(-1, ...list.map((p) => p.position)) + 1, discarded_at: null, created_at: now
  })
})

/** Adds a template of the group's own, last in its list (its administrators). */
export const addPollTemplate = (access: Access, ref: string, input: typeof PollTemplateInput.Type): Effect.Effect<PollTemplate, NotFound | Forbidden | Invalid, Store> =>
  managingWrite(access, ref, (group) => adding(access, group, input))

const saving = Effect.fnUntraced(function*(access: Access, group: Group, which: TemplateRef, input: typeof PollTemplateInput.Type): Effect.fn.Return<PollTemplate, NotFound | Invalid, Store | Permit<"ManageGroup">> {
  yield* ManageGroup.needed
  const store = yield* Store
  const { own, placed } = yield* placedIn(group, which)
  const now = yield* nowIso
  if ("id" in which) {
    yield* store.pollTemplates.update(which.id, { ...(yield* fields(input, 0)), updated_at: now })
    return (yield* store.pollTemplates.byId(which.id))!
  }
  // a built-in edited: the group's copy takes its place, and the built-in is hidden (Loomio's copy-on-write)
  const copy = yield* store.pollTemplates.insert({
    ...(yield* fields(input, own.length)), group_id: group.id, author_id: access.user.id, source_key: which.key, position: placed.position, discarded_at: null, created_at: now
  })
  yield* store.groups.update(group.id, { hidden_poll_templates: [...new Set([...group.hidden_poll_templates, which.key])], updated_at: now })
  return copy
})

/** Saves a template: the group's own is changed, a built-in becomes the group's copy (its administrators). */
export const savePollTemplate = (access: Access, ref: string, which: TemplateRef, input: typeof PollTemplateInput.Type): Effect.Effect<PollTemplate, NotFound | Forbidden | Invalid, Store> =>
  managingWrite(access, ref, (group) => saving(access, group, which, input))

const hiding = Effect.fnUntraced(function*(group: Group, which: TemplateRef, hidden: boolean): Effect.fn.Return<void, NotFound, Store | Permit<"ManageGroup">> {
  yield* ManageGroup.needed
  const store = yield* Store
  yield* placedIn(group, which)
  const now = yield* nowIso
  if ("id" in which) return yield* store.pollTemplates.update(which.id, { discarded_at: hidden ? now : null, updated_at: now })
  const keys = group.hidden_poll_templates.filter((k) => k !== which.key)
  yield* store.groups.update(group.id, { hidden_poll_templates: hidden ? [...keys, which.key] : keys, updated_at: now })
})

/** Hides a template from the chooser, or shows it again (its administrators). */
export const hidePollTemplate = (access: Access, ref: string, which: TemplateRef, hidden: boolean): Effect.Effect<void, NotFound | Forbidden, Store> =>
  managingWrite(access, ref, (group) => hiding(group, which, hidden))

const moving = Effect.fnUntraced(function*(group: Group, which: TemplateRef, by: -1 | 1): Effect.fn.Return<void, NotFound, Store | Permit<"ManageGroup">> {
  yield* ManageGroup.needed
  const store = yield* Store
  const { index, list } = yield* placedIn(group, which)
  const moved = moveTemplate(list, index, by)
  const now = yield* nowIso
  const positions: Record<string, number> = {}
  for (const [i, p] of moved.entries()) {
    if ("key" in p.ref) positions[p.ref.key] = p.position
    else if (!sameRef(p.ref, list[i]!.ref) || list[i]!.position !== p.position) yield* store.pollTemplates.update(p.ref.id, { position: p.position, updated_at: now })
  }
  yield* store.groups.update(group.id, { poll_template_positions: positions, updated_at: now })
})

/** Moves a template one place up (-1) or down (1) in the group's list (its administrators). */
export const movePollTemplate = (access: Access, ref: string, which: TemplateRef, by: -1 | 1): Effect.Effect<void, NotFound | Forbidden, Store> =>
  managingWrite(access, ref, (group) => moving(group, which, by))
