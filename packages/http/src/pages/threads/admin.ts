/**
 * Thread administration (decisions §12): **Edit thread** with its tags and "What's changed?", **Show edits**, **Move
 * thread**, and a group's tags at `/g/{key}/tags`. The core's use cases decide (EditDiscussion, StartDiscussion,
 * ManageGroup); a page shows a control only where the thread's or the group's rules allow it.
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { type AttachedFile, Attachments, Discussions, type Forbidden, type Group, type Id, type Invalid, type NotFound, Rules, ThreadAdmin, Threads } from "@convene/core"
import { Effect } from "effect"
import { RouteParams } from "../../routes.js"
import { filesAfterEdit, filesView, keptUploads } from "../layout/files.js"
import { NoFields } from "../layout/forms.js"
import { fieldMessages, idFrom, type Kit, noticeOf, type Reader, segment } from "../layout/kit.js"
import type { PageRouter } from "../layout/routes.js"
import { EditThreadForm, MoveThreadForm, TagForm } from "./forms.js"
import "./templates.js"

type Rights = Threads.DiscussionRights & { readonly files: ReadonlyArray<AttachedFile> }

/** The thread, where the reader may edit it (else refused as the rule says), with its files. */
const editable = (kit: Kit, who: Reader, key: string) =>
  kit.run(Effect.flatMap(Threads.discussionRights(who.access, key), (t) =>
    t.may.edit
      ? Effect.map(Attachments.filesOf("Discussion", [t.discussion.id]), (files) => Object.assign({}, t, { files: files.get(t.discussion.id) ?? [] }))
      : Effect.fail({ _tag: "Forbidden" as const })))

const storedForm = (t: Rights) => ({ title: t.discussion.title, description: t.discussion.description ?? "", tags: t.ctx.topic.tags.join(", "), change: "" })

const editPage = (who: Reader, t: Rights, form: Record<string, string>, errors?: Record<string, string>, status = 200) => ({
  title: who.t("thread.editTitle", { title: t.discussion.title }),
  template: "@edit-thread",
  status,
  crumbs: [{ href: `/d/${t.discussion.key}`, label: t.discussion.title }],
  data: { key: t.discussion.key, form, files: filesView(who, t.files), errors }
})

const movePage = (who: Reader, t: Rights, targets: ReadonlyArray<Group>, errors?: Record<string, string>, status = 200) => ({
  title: who.t("thread.moveTitle", { title: t.discussion.title }),
  template: "@move-thread",
  status,
  crumbs: [{ href: `/d/${t.discussion.key}`, label: t.discussion.title }],
  data: { key: t.discussion.key, targets: targets.map((g) => ({ key: g.key, name: g.name })), errors }
})

/** A field's value as the edits page shows it. */
const shownValue = (who: Reader, field: string, value: unknown, groups: ReadonlyMap<Id, Group>): string =>
  value === null || value === undefined ? "" :
  field === "private" ? (value === true ? who.t("thread.yes") : who.t("thread.no")) :
  field === "group_id" ? groups.get(value as Id)?.name ?? String(value) :
  Array.isArray(value) ? value.join(", ") :
  String(value)

const FIELDS = ["title", "description", "tags", "private", "group_id"] as const
const fieldLabel = (who: Reader, field: string) =>
  who.t(field === "group_id" ? "thread.field.group" : `thread.field.${field as "title" | "description" | "tags" | "private"}`)

const tagsPage = (who: Reader, group: Group, tags: ReadonlyArray<{ id: Id; name: string; color: string }>, form: { name: string; color: string }, errors?: Record<string, string>, status = 200) => ({
  title: who.t("tags.title", { group: group.name }),
  template: "@tags",
  status,
  crumbs: [{ href: `/g/${group.key}`, label: group.name }],
  data: { key: group.key, tags, form, errors, nextColor: Rules.paletteColor(tags.length) }
})

export const threadAdminRoutes = (router: PageRouter, kit: Kit) =>
  Effect.gen(function*() {
    yield* router.get("/d/:key/edit", kit.signedInGet((request, who) =>
      Effect.gen(function*() {
        const found = yield* Effect.either(editable(kit, who, segment(yield* RouteParams, "key")))
        if (found._tag === "Left") return kit.refused(request, who, found.left)
        return kit.respond(request, who, editPage(who, found.right, storedForm(found.right)))
      })))
    yield* router.postWithFiles("/d/:key/edit", kit.post(EditThreadForm, (request, who, form, typed) =>
      Effect.gen(function*() {
        const key = segment(yield* RouteParams, "key")
        const found = yield* Effect.either(editable(kit, who, key))
        if (found._tag === "Left") return kit.refused(request, who, found.left)
        const t = found.right
        const change = form.change.trim()
        const saved = yield* Effect.either(kit.runWithFiles(Effect.flatMap(keptUploads(who.access), (added) => {
          const files = filesAfterEdit(form.files_listed, form.keep, added, t.files)
          return Discussions.updateDiscussion(who.access, key, {
            title: form.title,
            description: form.description,
            description_format: t.discussion.description_format,
            tags: Rules.tagNamesFrom([form.tags]),
            ...(files === undefined ? {} : { files }),
            // "What's changed?" goes to the group's members who follow it, where the reader may notify everyone
            ...(change !== "" && t.may.announce ? { recipient_audience: "group" as const, recipient_message: change } : {})
          })
        })))
        if (saved._tag === "Right") return kit.seeOtherDone(`/d/${t.discussion.key}`, "thread_saved")
        if (saved.left._tag !== "Invalid") return kit.refused(request, who, saved.left)
        return kit.respond(request, who, editPage(who, t, typed, fieldMessages(saved.left), 422))
      }),
      (request, who, { errors, input }) =>
        Effect.gen(function*() {
          const found = yield* Effect.either(editable(kit, who, segment(yield* RouteParams, "key")))
          if (found._tag === "Left") return kit.refused(request, who, found.left)
          return kit.respond(request, who, editPage(who, found.right, input, errors, 422))
        })))

    yield* router.get("/d/:key/edits", Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const who = yield* kit.reader(request)
      const shown = yield* Effect.either(kit.run(Discussions.discussionEdits(who.access, segment(yield* RouteParams, "key"))))
      if (shown._tag === "Left") return kit.refused(request, who, shown.left)
      const { groups, people, versions, view } = shown.right
      const byId = new Map(people.map((u) => [u.id, u]))
      const groupsById = new Map(groups.map((g) => [g.id, g]))
      // newest first
      const edits = [...versions].reverse().map((v) => {
        const u = v.whodunnit === null ? undefined : byId.get(v.whodunnit)
        return {
          by: who.t("thread.editBy", { name: u === undefined ? who.t("thread.someone") : Rules.displayName(u), when: who.time(v.created_at) }),
          changes: FIELDS.filter((f) => f in v.object_changes).map((f) => ({
            field: fieldLabel(who, f),
            before: shownValue(who, f, v.object_changes[f]![0], groupsById),
            after: shownValue(who, f, v.object_changes[f]![1], groupsById)
          }))
        }
      })
      return kit.respond(request, who, {
        title: who.t("thread.editsTitle", { title: view.discussion.title }),
        template: "@thread-edits",
        crumbs: [{ href: `/d/${view.discussion.key}`, label: view.discussion.title }],
        data: { edits }
      })
    }))

    yield* router.get("/d/:key/move", kit.signedInGet((request, who) =>
      Effect.gen(function*() {
        const found = yield* Effect.either(editable(kit, who, segment(yield* RouteParams, "key")))
        if (found._tag === "Left") return kit.refused(request, who, found.left)
        const targets = yield* kit.run(ThreadAdmin.moveTargets(who.access, found.right.ctx.topic))
        return kit.respond(request, who, movePage(who, found.right, targets))
      })))
    yield* router.post("/d/:key/move", kit.post(MoveThreadForm, (request, who, form) =>
      Effect.gen(function*() {
        const key = segment(yield* RouteParams, "key")
        const moved = yield* Effect.either(kit.run(Discussions.moveDiscussion(who.access, key, form.group)))
        if (moved._tag === "Right") return kit.seeOtherDone(`/d/${moved.right.discussion.key}`, "thread_moved")
        const found = yield* Effect.either(editable(kit, who, key))
        if (found._tag === "Left") return kit.refused(request, who, found.left)
        if (moved.left._tag === "Forbidden" || moved.left._tag === "NotFound") return kit.refused(request, who, moved.left)
        const targets = yield* kit.run(ThreadAdmin.moveTargets(who.access, found.right.ctx.topic))
        return kit.respond(request, who, movePage(who, found.right, targets, { group: Object.values(fieldMessages(moved.left)).join(" ") }, 422))
      })))

    yield* router.get("/g/:key/tags", kit.signedInGet((request, who) =>
      Effect.gen(function*() {
        const found = yield* Effect.either(kit.run(ThreadAdmin.managedTags(who.access, segment(yield* RouteParams, "key"))))
        if (found._tag === "Left") return kit.refused(request, who, found.left)
        const { group, tags } = found.right
        return kit.respond(request, who, { ...tagsPage(who, group, tags, { name: "", color: "" }), notice: noticeOf(request, who) })
      })))
    const tagWrite = (act: (who: Reader, key: string, id: Id, form: { name: string; color: string }) => Effect.Effect<unknown, NotFound | Forbidden | Invalid, never>) =>
      kit.post(TagForm, (request, who, form) =>
        Effect.gen(function*() {
          const params = yield* RouteParams
          const key = segment(params, "key")
          const done = yield* Effect.either(act(who, key, idFrom(segment(params, "id")), form))
          if (done._tag === "Right") return kit.seeOtherDone(`/g/${key}/tags`, "tags_saved")
          if (done.left._tag !== "Invalid") return kit.refused(request, who, done.left)
          const found = yield* Effect.either(kit.run(ThreadAdmin.managedTags(who.access, key)))
          if (found._tag === "Left") return kit.refused(request, who, found.left)
          return kit.respond(request, who, tagsPage(who, found.right.group, found.right.tags, form, fieldMessages(done.left), 422))
        }))
    yield* router.post("/g/:key/tags", tagWrite((who, key, _id, form) => kit.run(ThreadAdmin.addTag(who.access, key, form))))
    yield* router.post("/g/:key/tags/:id", tagWrite((who, key, id, form) => kit.run(ThreadAdmin.changeTag(who.access, key, id, form))))
    yield* router.post("/g/:key/tags/:id/delete", kit.post(NoFields, (request, who) =>
      Effect.gen(function*() {
        const params = yield* RouteParams
        const key = segment(params, "key")
        const done = yield* Effect.either(kit.run(ThreadAdmin.removeTag(who.access, key, idFrom(segment(params, "id")))))
        if (done._tag === "Left") return kit.refused(request, who, done.left)
        return kit.seeOtherDone(`/g/${key}/tags`, "tags_saved")
      })))
  })

