/**
 * Policies in the types (src/policies.ts): a protected step requires its permit, which only its policy's
 * `check` provides, after asking the rule. The `@ts-expect-error` lines below are the proof that a step called
 * without its check does not compile: if one of them compiled, the test build would fail on the unused directive.
 */
import { Effect, Exit } from "effect"
import t from "tap"
import { forbidden, Policies, Rules } from "../src/index.js"
import { aGroup, aMembership, aUser } from "./fixtures.js"

const group = aGroup(1)
const admin = Rules.makeAccess(aUser({ id: 1 }), [aMembership(1, 1, { admin: true })])
const member = Rules.makeAccess(aUser({ id: 2 }), [aMembership(1, 2)])

let ran = 0
/** A step only an administrator of the group's webhooks may take. */
const protectedStep: Effect.Effect<string, never, Policies.Permit<"ManageWebhooks">> = Effect.zipRight(
  Policies.ManageWebhooks.needed,
  Effect.sync(() => (ran++, "done"))
)
const refuse = () => forbidden("Only group administrators manage webhooks")
const run = <A, E>(effect: Effect.Effect<A, E, never>) => Effect.runSyncExit(effect)

t.test("a protected step does not compile without its policy's check, nor under another policy's", async (t) => {
  // @ts-expect-error: Permit<"ManageWebhooks"> is not provided
  const unchecked: Effect.Effect<string, never, never> = protectedStep
  // @ts-expect-error: ManageMembers' check provides its own permit, not this one
  const otherPolicy: Effect.Effect<string, unknown, never> = Policies.ManageMembers.check([admin, group], refuse)(protectedStep)
  const checked: Effect.Effect<string, unknown, never> = Policies.ManageWebhooks.check([admin, group], refuse)(protectedStep)
  t.ok(unchecked && otherPolicy && checked)
})

t.test("the check runs the step where the rule allows, and refuses without running it where it does not", async (t) => {
  ran = 0
  t.same(run(Policies.ManageWebhooks.check([admin, group], refuse)(protectedStep)), Exit.succeed("done"))
  t.equal(ran, 1)
  const refused = run(Policies.ManageWebhooks.check([member, group], refuse)(protectedStep))
  t.ok(Exit.isFailure(refused))
  t.match(JSON.stringify(refused), /Only group administrators manage webhooks/)
  t.equal(ran, 1, "the step did not run")
})

t.test("checkOr answers otherwise where the rule refuses; a reason-giving rule hands its reason to the refusal", async (t) => {
  t.same(run(Policies.ListMembers.checkOr([Rules.makeAccess(aUser({ id: 9 }), []), group], () => "nothing")(Effect.zipRight(Policies.ListMembers.needed, Effect.succeed("members")))), Exit.succeed("nothing"))
  t.same(run(Policies.ListMembers.checkOr([member, group], () => "nothing")(Effect.zipRight(Policies.ListMembers.needed, Effect.succeed("members")))), Exit.succeed("members"))
})
