/**
 * A group's poll templates (rules/templates.ts): the list a group offers (built-ins where it placed them, hidden where
 * it hides them, its own at their positions), moving one, and what a template may hold.
 */
import t from "tap"
import { Rules } from "@convene/core"

const KEYS = ["a", "b", "c"]
const none = { hidden_poll_templates: [] as Array<string>, poll_template_positions: {} as Record<string, number> }
const refs = (list: ReadonlyArray<Rules.PlacedTemplate>) => list.map((p) => ("key" in p.ref ? p.ref.key : `#${p.ref.id}`) + (p.hidden ? "(hidden)" : ""))

t.test("the group's list: built-ins in Loomio's order, then its own by position", async (t) => {
  t.same(refs(Rules.arrangeTemplates(KEYS, none, [])), ["a", "b", "c"])
  t.same(refs(Rules.arrangeTemplates(KEYS, none, [{ id: 9, position: 3, discarded_at: null }])), ["a", "b", "c", "#9"], "added: last")
  t.same(refs(Rules.arrangeTemplates(KEYS, { ...none, hidden_poll_templates: ["b"] }, [{ id: 9, position: 1, discarded_at: null }])), ["a", "b(hidden)", "#9", "c"],
    "a built-in edited: hidden, its copy in its place, after it")
  t.same(refs(Rules.arrangeTemplates(KEYS, { ...none, poll_template_positions: { a: 5, b: 0, c: 1 } }, [{ id: 2, position: 2, discarded_at: "t" }])), ["b", "c", "#2(hidden)", "a"],
    "placed by the group; a discarded one hidden")
})

t.test("moving one place: every position written again from 0; the ends stay", async (t) => {
  const list = Rules.arrangeTemplates(KEYS, none, [{ id: 9, position: 3, discarded_at: null }])
  const up = Rules.moveTemplate(list, 3, -1)
  t.same(refs(up), ["a", "b", "#9", "c"])
  t.same(up.map((p) => p.position), [0, 1, 2, 3])
  t.same(refs(Rules.moveTemplate(list, 0, -1)), refs(list), "the first cannot go up")
  t.same(refs(Rules.moveTemplate(list, 3, 1)), refs(list), "the last cannot go down")
})

t.test("what a template may hold", async (t) => {
  const ok = { process_name: "Budget", poll_type: "dot_vote", default_duration_in_days: 7 }
  const table: Array<[string, object, number, [string, string] | null]> = [
    ["a dot vote with no options (the author's own)", {}, 0, null],
    ["a blank name", { process_name: " " }, 0, ["process_name", "can't be blank"]],
    ["a name of 101 characters", { process_name: "x".repeat(101) }, 0, ["process_name", "is longer than 100 characters"]],
    ["a line break in what it is for", { process_subtitle: "a\nb" }, 0, ["process_subtitle", "must not contain control characters (such as line breaks)"]],
    ["no days", { default_duration_in_days: 0 }, 0, ["default_duration_in_days", "must be a whole number from 1 to 365"]],
    ["over a year", { default_duration_in_days: 366 }, 0, ["default_duration_in_days", "must be a whole number from 1 to 365"]],
    ["an unknown type", { poll_type: "vote" }, 0, ["poll_type", "must be one of proposal, poll, count, score, ranked_choice, meeting, dot_vote"]],
    ["a proposal's own options", { poll_type: "proposal", options: ["agree", "disagree"] }, 0, null],
    ["a proposal with other options", { poll_type: "proposal", options: ["yes"] }, 0, ["options", "a proposal's options must be among agree, abstain, disagree, block (not yes)"]],
    ["options twice", { options: ["a", "a"] }, 0, ["options", "must be unique"]],
    ["a dot vote of no dots", { settings: { dots_per_person: 0 } }, 0, ["dots_per_person", "must be at least 1"]],
    ["a bad setting", { settings: { hide_results: "never" } }, 0, ["hide_results", "must be one of off, until_vote, until_closed"]],
    ["the hundred-and-first of the group", {}, 100, ["process_name", "a group keeps at most 100 templates"]]
  ]
  for (const [name, change, others, expected] of table) t.same(Rules.pollTemplateErrors({ ...ok, ...change } as never, others), expected, name)
})
