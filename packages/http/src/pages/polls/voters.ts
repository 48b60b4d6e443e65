/**
 * **Invite voters** (decisions §15): `/p/{key}/voters`, where a poll's administrators give ballots to particular
 * members of its group, or to people by e-mail address (guests of the thread, with an invitation link).
 */
import { RouteParams } from "../../routes.js"
import { Polls, Rules, type User } from "@convene/core"
import { Effect, Schema } from "effect"
import { Many, Text } from "../layout/forms.js"
import { fieldMessages, type Kit, type Reader, segment } from "../layout/kit.js"
import type { FormInput } from "../layout/forms.js"
import type { PageRouter } from "../layout/routes.js"
import { CSRF, define, DESCRIBED, ERR } from "../layout/templates.js"

/** **Send invitations**: the members checked, "E-mail addresses" (one per line or comma-separated), an optional "Message". */
export const InviteVotersForm = Schema.Struct({ member: Many, emails: Text, message: Text })

define("@poll-voters", `<form method="post" action="/p/<%= it.key %>/voters">${CSRF}
<% if (it.members.length > 0) { %><fieldset><legend><%= it.t("voters.members") %></legend>
<% for (const m of it.members) { %><p><input type="checkbox" id="member-<%= m.id %>" name="member" value="<%= m.id %>"<%= m.checked ? " checked" : "" %>> <label for="member-<%= m.id %>"><%= m.name %></label></p><% } %>
</fieldset><% } else { %><p><%= it.t("voters.allHaveBallots") %></p><% } %>
<p><label for="emails"><%= it.t("invite.emails") %></label><br><textarea id="emails" name="emails" rows="3" aria-describedby="emails-hint<%= it.errors && it.errors.emails ? " emails-error" : "" %>"<%= it.errors && it.errors.emails ? " aria-invalid=true" : "" %>><%= it.form.emails %></textarea></p>
<p class="hint" id="emails-hint"><%= it.t("voters.emailsHint") %></p>
${ERR("emails")}
<p><label for="message"><%= it.t("invite.message") %></label><br><textarea id="message" name="message" rows="3"${DESCRIBED("message")}><%= it.form.message %></textarea></p>
<p><button type="submit"><%= it.t("voters.send") %></button></p>
</form>
`)

const page = (who: Reader, poll: { key: string; title: string }, members: ReadonlyArray<User>,
  form: { emails: string; message: string; member: ReadonlyArray<string> }, errors?: Record<string, string>, status = 200) => ({
  title: who.t("voters.title", { title: poll.title }),
  template: "@poll-voters",
  status,
  crumbs: [{ href: `/p/${poll.key}`, label: poll.title }],
  data: {
    key: poll.key,
    members: members.map((u) => ({ id: u.id, name: Rules.displayName(u), checked: form.member.includes(String(u.id)) })),
    form,
    errors
  }
})

const load = (kit: Kit, who: Reader, key: string) =>
  kit.run(Effect.gen(function*() {
    const view = yield* Polls.showPoll(who.access, key)
    return { poll: view.poll, members: yield* Polls.voterChoices(who.access, key) }
  }))

const EMPTY = { emails: "", message: "", member: [] as ReadonlyArray<string> }

export const pollVoterRoutes = (router: PageRouter, kit: Kit) =>
  Effect.gen(function*() {
    yield* router.get("/p/:key/voters", kit.signedInGet((request, who) =>
      Effect.gen(function*() {
        const found = yield* Effect.either(load(kit, who, segment(yield* RouteParams, "key")))
        if (found._tag === "Left") return kit.refused(request, who, found.left)
        return kit.respond(request, who, page(who, found.right.poll, found.right.members, EMPTY))
      })))
    const again = (request: Parameters<Kit["refused"]>[0], who: Reader, key: string, form: typeof EMPTY, errors: Record<string, string>) =>
      Effect.gen(function*() {
        const found = yield* Effect.either(load(kit, who, key))
        if (found._tag === "Left") return kit.refused(request, who, found.left)
        return kit.respond(request, who, page(who, found.right.poll, found.right.members, form, errors, 422))
      })
    yield* router.post("/p/:key/voters", kit.post(InviteVotersForm, (request, who, form) =>
      Effect.gen(function*() {
        const key = segment(yield* RouteParams, "key")
        const emails = form.emails.split(/[\s,;]+/).map((e) => e.trim()).filter((e) => e !== "")
        const userIds = form.member.filter((m) => /^[0-9]{1,15}$/.test(m)).map(Number)
        const sent = yield* Effect.either(kit.run(Polls.inviteVoters(who.access, key, { userIds, emails, message: form.message.trim() === "" ? null : form.message.trim() })))
        if (sent._tag === "Right") return kit.seeOtherDone(`/p/${sent.right.poll.key}`, "invited", sent.right.invited)
        const e = sent.left
        if (e._tag !== "Invalid") return kit.refused(request, who, e)
        const raw = fieldMessages(e)
        const bad = emails.find((a) => !Rules.isEmail(Rules.normaliseEmail(a)))
        const errors = { emails: bad !== undefined ? who.t("invite.badEmail", { email: bad }) : raw.poll ?? who.t("voters.none") }
        return yield* again(request, who, key, form, errors)
      }),
      (request, who, { errors, input }: { errors: Record<string, string>; input: FormInput }) =>
        Effect.flatMap(RouteParams, (params) => again(request, who, segment(params, "key"), { ...EMPTY, emails: input.emails ?? "", message: input.message ?? "" }, errors))))
  })
