/**
 * Delegated voting's page (decisions §15): `/g/{key}/delegation`, where a member names the member whose vote is
 * cast for them, changes or revokes it, and sees who delegated to them. The core decides who may and whom.
 */
import { RouteParams } from "../../routes.js"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Delegation, Rules, type User } from "@convene/core"
import { Effect, Schema } from "effect"
import { NoFields, Required } from "../layout/forms.js"
import { fieldMessages, type Kit, noticeOf, type Reader, segment } from "../layout/kit.js"
import type { PageRouter } from "../layout/routes.js"
import { CSRF, define, ERR } from "../layout/templates.js"

/** **Delegate my vote**: the chosen member's id. */
export const DelegateForm = Schema.Struct({ delegate_id: Required })

define("@delegation", `<p><%= it.t("delegation.about") %></p>
<% if (!it.allowed) { %><p class="notice" role="note"><%= it.t("delegation.off") %></p><% } %>
<h2 id="mine"><%= it.t("delegation.yours") %></h2>
<% if (it.current) { %><p><%= it.t("delegation.current", { name: it.current.name, when: it.current.since }) %></p>
<form method="post" action="/g/<%= it.key %>/delegation/revoke">${CSRF}<p><button type="submit" class="danger"><%= it.t("delegation.revoke") %></button></p></form>
<% } else { %><p><%= it.t("delegation.none") %></p><% } %>
<% if (it.allowed) { %><form method="post" action="/g/<%= it.key %>/delegation">${CSRF}
<p><label for="delegate_id"><%= it.current ? it.t("delegation.change") : it.t("delegation.delegate") %></label><br><select id="delegate_id" name="delegate_id" required aria-describedby="delegate_id-hint<%= it.errors && it.errors.delegate_id ? " delegate_id-error" : "" %>"<%= it.errors && it.errors.delegate_id ? " aria-invalid=true" : "" %>>
<option value=""><%= it.t("delegation.choose") %></option>
<% for (const c of it.choices) { %><option value="<%= c.id %>"<%= c.selected ? " selected" : "" %>><%= c.label %></option><% } %>
</select></p>
<p class="hint" id="delegate_id-hint"><%= it.t("delegation.limitHint", { count: it.limit }) %></p>
${ERR("delegate_id")}
<p><button type="submit"><%= it.t("delegation.save") %></button></p>
</form><% } %>
<h2><%= it.t("delegation.toYou") %></h2>
<% if (it.delegators.length === 0) { %><p><%= it.t("delegation.toYouNone") %></p><% } else { %><ul><% for (const name of it.delegators) { %><li><%= name %></li><% } %></ul><% } %>
`)

const page = (who: Reader, v: Delegation.DelegationView, choices: ReadonlyArray<{ readonly user: User; readonly holds: number }>,
  form: { delegate_id: string }, errors?: Record<string, string>, status = 200) => ({
  title: who.t("delegation.title", { group: v.group.name }),
  template: "@delegation",
  status,
  crumbs: [{ href: `/g/${v.group.key}`, label: v.group.name }],
  data: {
    key: v.group.key,
    allowed: v.group.members_can_delegate,
    limit: v.group.delegation_limit,
    current: v.delegate === undefined ? undefined : { name: Rules.displayName(v.delegate), since: who.time(v.delegation!.created_at) },
    choices: choices.map((c) => ({
      id: c.user.id,
      label: c.holds === 0 ? Rules.displayName(c.user) : who.t("delegation.holds", { name: Rules.displayName(c.user), count: c.holds }),
      selected: form.delegate_id === String(c.user.id)
    })),
    delegators: v.delegators.map((u) => Rules.displayName(u)),
    errors
  }
})

/** The page's data: the caller's delegation, and whom they may name (none while the group does not allow it). */
const load = (kit: Kit, who: Reader, key: string) =>
  kit.run(Effect.gen(function*() {
    const view = yield* Delegation.showDelegation(who.access, key)
    const choices = view.group.members_can_delegate ? yield* Delegation.delegateChoices(who.access, view.group) : []
    return { view, choices }
  }))

const show = (kit: Kit) =>
  kit.signedInGet((request, who) =>
    Effect.gen(function*() {
      const found = yield* Effect.either(load(kit, who, segment(yield* RouteParams, "key")))
      if (found._tag === "Left") return kit.refused(request, who, found.left)
      const { view, choices } = found.right
      return kit.respond(request, who, { ...page(who, view, choices, { delegate_id: String(view.delegation?.delegate_id ?? "") }), notice: noticeOf(request, who) })
    }))

/** The form again, refused: the member's choice kept, the core's reason beside the field. */
const again = (kit: Kit, request: HttpServerRequest.HttpServerRequest, who: Reader, key: string, form: { delegate_id: string }, errors: Record<string, string>) =>
  Effect.gen(function*() {
    const found = yield* Effect.either(load(kit, who, key))
    if (found._tag === "Left") return kit.refused(request, who, found.left)
    return kit.respond(request, who, page(who, found.right.view, found.right.choices, form, errors, 422))
  })

const save = (kit: Kit) =>
  kit.post(DelegateForm, (request, who, form, input) =>
    Effect.gen(function*() {
      const key = segment(yield* RouteParams, "key")
      const id = /^[0-9]{1,15}$/.test(form.delegate_id) ? Number(form.delegate_id) : 0
      const done = yield* Effect.either(kit.run(Delegation.delegateVote(who.access, key, id)))
      if (done._tag === "Right") return kit.seeOtherDone(`/g/${done.right.group.key}/delegation`, "delegated")
      if (done.left._tag !== "Invalid") return kit.refused(request, who, done.left)
      return yield* again(kit, request, who, key, { delegate_id: input.delegate_id ?? "" }, fieldMessages(done.left))
    }),
    (request, who, { errors, input }) => Effect.flatMap(RouteParams, (params) => again(kit, request, who, segment(params, "key"), { delegate_id: input.delegate_id ?? "" }, errors)))

const revoke = (kit: Kit) =>
  kit.post(NoFields, (request, who) =>
    Effect.gen(function*() {
      const done = yield* Effect.either(kit.run(Delegation.revokeDelegation(who.access, segment(yield* RouteParams, "key"))))
      if (done._tag === "Left") return kit.refused(request, who, done.left)
      return kit.seeOtherDone(`/g/${done.right.group.key}/delegation`, "delegation_revoked")
    }))

export const delegationRoutes = (router: PageRouter, kit: Kit) =>
  Effect.gen(function*() {
    yield* router.get("/g/:key/delegation", show(kit))
    yield* router.post("/g/:key/delegation", save(kit))
    yield* router.post("/g/:key/delegation/revoke", revoke(kit))
  })
