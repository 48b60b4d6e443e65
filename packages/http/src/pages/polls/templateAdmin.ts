/**
 * A group's poll templates (decisions §15) at `/g/{key}/templates`: its administrators add one, edit one (a built-in
 * edited becomes the group's copy in its place), hide or show one in the chooser, and move one up or down. The core
 * decides who may (ManageGroup) and what a template may hold; a template is named in a path by a built-in's key or
 * the group's own template's id.
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { type Group, POLL_TYPES, Polls, type Rules } from "@convene/core"
import { Effect } from "effect"
import { RouteParams } from "../../routes.js"
import { type FormInput, NoFields } from "../layout/forms.js"
import { fieldMessages, type Kit, noticeOf, type Reader, segment } from "../layout/kit.js"
import type { PageRouter } from "../layout/routes.js"
import { CSRF, define, DESCRIBED, ERR } from "../layout/templates.js"
import { formFromSettings, PollTemplateForm, SETTINGS_FORM, settingsFromForm } from "./forms.js"
import { POLL_SETTINGS } from "./templates.js"

define("@poll-templates", `<p><%= it.t("templates.about") %></p>
<p><a class="button" href="/g/<%= it.key %>/templates/new"><%= it.t("templates.add") %></a></p>
<table><caption class="visually-hidden"><%= it.t("templates.caption") %></caption>
<thead><tr><th scope="col"><%= it.t("templates.name") %></th><th scope="col"><%= it.t("templates.kind") %></th><th scope="col"><%= it.t("templates.state") %></th><th scope="col"><%= it.t("templates.actions") %></th></tr></thead><tbody>
<% for (const tpl of it.templates) { %><tr><td><%= tpl.name %></td><td><%= tpl.kind %></td><td><%= tpl.hidden ? it.t("templates.hidden") : it.t("templates.shown") %></td><td>
<a href="/g/<%= it.key %>/templates/<%= tpl.ref %>/edit" aria-label="<%= it.t("templates.editOf", { name: tpl.name }) %>"><%= it.t("templates.edit") %></a>
<form method="post" action="/g/<%= it.key %>/templates/<%= tpl.ref %>/<%= tpl.hidden ? "show" : "hide" %>" class="inline">${CSRF}<button type="submit" aria-label="<%= it.t(tpl.hidden ? "templates.showOf" : "templates.hideOf", { name: tpl.name }) %>"><%= it.t(tpl.hidden ? "templates.show" : "templates.hide") %></button></form>
<% if (!tpl.first) { %><form method="post" action="/g/<%= it.key %>/templates/<%= tpl.ref %>/up" class="inline">${CSRF}<button type="submit" aria-label="<%= it.t("templates.upOf", { name: tpl.name }) %>"><%= it.t("templates.up") %></button></form><% } %>
<% if (!tpl.last) { %><form method="post" action="/g/<%= it.key %>/templates/<%= tpl.ref %>/down" class="inline">${CSRF}<button type="submit" aria-label="<%= it.t("templates.downOf", { name: tpl.name }) %>"><%= it.t("templates.down") %></button></form><% } %>
</td></tr><% } %></tbody></table>
`)

define("@poll-template", `<% if (it.builtin) { %><p class="notice" role="note"><%= it.t("templates.copyNote") %></p><% } %>
<form method="post" action="<%= it.action %>">
${CSRF}
<p><label for="process_name"><%= it.t("templates.processName") %></label><br><input id="process_name" name="process_name" required maxlength="100" value="<%= it.form.process_name %>"${DESCRIBED("process_name")}></p>
${ERR("process_name")}
<p><label for="process_subtitle"><%= it.t("templates.processSubtitle") %></label><br><input id="process_subtitle" name="process_subtitle" maxlength="250" value="<%= it.form.process_subtitle %>"${DESCRIBED("process_subtitle")}></p>
${ERR("process_subtitle")}
<p><label for="poll_type"><%= it.t("poll.type") %></label><br><select id="poll_type" name="poll_type">
<% for (const type of it.types) { %><option value="<%= type %>"<%= it.form.poll_type === type ? " selected" : "" %>><%= it.t("pollType." + type) %></option><% } %>
</select></p>
${ERR("poll_type")}
<p><label for="details"><%= it.t("discussion.details") %></label><br><textarea id="details" name="details" rows="4" aria-describedby="markdown-hint"><%= it.form.details %></textarea></p>
<p class="hint" id="markdown-hint"><%= it.t("form.markdown") %></p>
${ERR("details")}
<p><label for="options"><%= it.t("poll.options") %></label><br><textarea id="options" name="options" rows="5" aria-describedby="options-hint<%= it.errors && it.errors.options ? " options-error" : "" %>"<%= it.errors && it.errors.options ? " aria-invalid=true" : "" %>><%= it.form.options %></textarea></p>
<p class="hint" id="options-hint"><%= it.t("templates.optionsHint") %></p>
${ERR("options")}
<p><label for="default_duration_in_days"><%= it.t("templates.duration") %></label><br><input id="default_duration_in_days" name="default_duration_in_days" type="number" min="1" max="365" inputmode="numeric" required value="<%= it.form.default_duration_in_days %>" aria-describedby="duration-hint<%= it.errors && it.errors.default_duration_in_days ? " default_duration_in_days-error" : "" %>"<%= it.errors && it.errors.default_duration_in_days ? " aria-invalid=true" : "" %>></p>
<p class="hint" id="duration-hint"><%= it.t("templates.durationHint") %></p>
${ERR("default_duration_in_days")}
${POLL_SETTINGS}
<p><button type="submit"><%= it.t("templates.save") %></button></p>
</form>
`)

/** How a path names a template: a built-in's key, or the group's own template's id. */
const pathRef = (v: Polls.PollTemplateView) => v.key ?? String(v.id)

const listPage = (who: Reader, group: Group, templates: ReadonlyArray<Polls.PollTemplateView>) => {
  // the built-ins' names, for a copy's "edited from"
  const builtins = new Map(Polls.pollTemplates(who.t).map((b) => [b.key!, b.name]))
  const builtinName = (key: string) => builtins.get(key) ?? key
  return {
    title: who.t("templates.title", { group: group.name }),
    template: "@poll-templates",
    crumbs: [{ href: `/g/${group.key}`, label: group.name }],
    data: {
      key: group.key,
      templates: templates.map((v, i) => ({
        ref: pathRef(v), name: v.name, hidden: v.hidden, first: i === 0, last: i === templates.length - 1,
        kind: v.id === null ? who.t("templates.builtin") : v.source_key === null ? who.t("templates.own") : who.t("templates.editedFrom", { name: builtinName(v.source_key) })
      }))
    }
  }
}

/** The form as a template fills it (a new one: a proposal open a week, the poll defaults). */
const storedForm = (v: Polls.PollTemplateView | undefined): Record<string, string | boolean> => ({
  process_name: v?.name ?? "", process_subtitle: v?.process ?? "", poll_type: v?.poll_type ?? "proposal", details: v?.details ?? "", options: (v?.options ?? []).join("\n"),
  default_duration_in_days: String(v?.default_duration_in_days ?? 7), ...SETTINGS_FORM, ...(v === undefined ? {} : formFromSettings(v.settings))
})

const formPage = (who: Reader, group: Group, action: string, template: Polls.PollTemplateView | undefined, form: Readonly<Record<string, string | boolean>>, errors?: Record<string, string>, status = 200) => ({
  title: template === undefined ? who.t("templates.newTitle", { group: group.name }) : who.t("templates.editTitle", { name: template.name }),
  template: "@poll-template",
  status,
  crumbs: [{ href: `/g/${group.key}`, label: group.name }, { href: `/g/${group.key}/templates`, label: who.t("templates.manage") }],
  data: { action, types: POLL_TYPES, form, errors, builtin: template !== undefined && template.id === null }
})

/** What the form says, as the core's template input. */
const inputOf = (form: typeof PollTemplateForm.Type) => ({
  process_name: form.process_name,
  process_subtitle: form.process_subtitle,
  poll_type: form.poll_type,
  details: form.details,
  options: form.options.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== ""),
  default_duration_in_days: form.default_duration_in_days ?? Number.NaN,
  settings: settingsFromForm(form)
})

export const pollTemplateRoutes = (router: PageRouter, kit: Kit) =>
  Effect.gen(function*() {
    /** The template a path names, to edit (or undefined: a new one), where the reader manages the group's templates. */
    const load = (who: Reader, key: string, ref: string | undefined) =>
      kit.run<{ group: Group; template: Polls.PollTemplateView | undefined }, { readonly _tag: string }>(ref === undefined
        ? Effect.map(Polls.managedPollTemplates(who.access, key, who.t), ({ group }) => ({ group, template: undefined }))
        : Effect.flatMap(Effect.fromNullable(Polls.templateRef(ref)), (which) => Polls.managedPollTemplate(who.access, key, who.t, which)).pipe(
          Effect.catchTag("NoSuchElementException", () => Effect.fail({ _tag: "NotFound" as const }))))
    const actionOf = (key: string, ref: string | undefined) => (ref === undefined ? `/g/${key}/templates` : `/g/${key}/templates/${ref}`)

    yield* router.get("/g/:key/templates", kit.signedInGet((request, who) =>
      Effect.gen(function*() {
        const found = yield* Effect.either(kit.run(Polls.managedPollTemplates(who.access, segment(yield* RouteParams, "key"), who.t)))
        if (found._tag === "Left") return kit.refused(request, who, found.left)
        return kit.respond(request, who, { ...listPage(who, found.right.group, found.right.templates), notice: noticeOf(request, who) })
      })))

    const showForm = (ref: (params: Record<string, string | undefined>) => string | undefined) =>
      kit.signedInGet((request, who) =>
        Effect.gen(function*() {
          const params = yield* RouteParams
          const key = segment(params, "key")
          const found = yield* Effect.either(load(who, key, ref(params)))
          if (found._tag === "Left") return kit.refused(request, who, found.left)
          const { group, template } = found.right
          return kit.respond(request, who, formPage(who, group, actionOf(group.key, ref(params)), template, storedForm(template)))
        }))
    yield* router.get("/g/:key/templates/new", showForm(() => undefined))
    yield* router.get("/g/:key/templates/:ref/edit", showForm((params) => params.ref))

    /** The form again, refused: what was typed kept, the core's reasons beside the fields. */
    const again = (request: HttpServerRequest.HttpServerRequest, who: Reader, key: string, ref: string | undefined, form: FormInput, errors: Record<string, string>) =>
      Effect.gen(function*() {
        const found = yield* Effect.either(load(who, key, ref))
        if (found._tag === "Left") return kit.refused(request, who, found.left)
        return kit.respond(request, who, formPage(who, found.right.group, actionOf(found.right.group.key, ref), found.right.template, form, errors, 422))
      })
    const save = (ref: (params: Record<string, string | undefined>) => string | undefined) =>
      kit.post(PollTemplateForm, (request, who, form, typed) =>
        Effect.gen(function*() {
          const params = yield* RouteParams
          const key = segment(params, "key")
          const named = ref(params)
          const which = named === undefined ? undefined : Polls.templateRef(named)
          if (named !== undefined && which === undefined) return kit.notFound(request, who)
          const done = yield* Effect.either(kit.run(which === undefined
            ? Polls.addPollTemplate(who.access, key, inputOf(form))
            : Polls.savePollTemplate(who.access, key, which, inputOf(form))))
          if (done._tag === "Right") return kit.seeOtherDone(`/g/${key}/templates`, "templates_saved")
          if (done.left._tag !== "Invalid") return kit.refused(request, who, done.left)
          return yield* again(request, who, key, named, typed, fieldMessages(done.left))
        }),
        (request, who, { errors, input }) => Effect.flatMap(RouteParams, (params) => again(request, who, segment(params, "key"), ref(params), input, errors)))
    yield* router.post("/g/:key/templates", save(() => undefined))
    yield* router.post("/g/:key/templates/:ref", save((params) => params.ref))

    /** Hide, show, up and down: one button each, back to the list. */
    const act = (step: (who: Reader, key: string, which: Rules.TemplateRef) => Effect.Effect<void, { readonly _tag: string }, never>) =>
      kit.post(NoFields, (request, who) =>
        Effect.gen(function*() {
          const params = yield* RouteParams
          const key = segment(params, "key")
          const which = Polls.templateRef(segment(params, "ref"))
          if (which === undefined) return kit.notFound(request, who)
          const done = yield* Effect.either(step(who, key, which))
          if (done._tag === "Left") return kit.refused(request, who, done.left)
          return kit.seeOtherDone(`/g/${key}/templates`, "templates_saved")
        }))
    yield* router.post("/g/:key/templates/:ref/hide", act((who, key, which) => kit.run(Polls.hidePollTemplate(who.access, key, which, true))))
    yield* router.post("/g/:key/templates/:ref/show", act((who, key, which) => kit.run(Polls.hidePollTemplate(who.access, key, which, false))))
    yield* router.post("/g/:key/templates/:ref/up", act((who, key, which) => kit.run(Polls.movePollTemplate(who.access, key, which, -1))))
    yield* router.post("/g/:key/templates/:ref/down", act((who, key, which) => kit.run(Polls.movePollTemplate(who.access, key, which, 1))))
  })
