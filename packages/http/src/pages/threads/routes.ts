/**
 * The thread page (decisions §9): the description, then the thread's items in order (comments with their
 * replies under them, polls, outcomes, closings), and the forms the rules allow: Post comment, Reply, Edit,
 * Delete, Close discussion / Reopen discussion, Start a poll.
 */
import { RouteParams } from "../../routes.js"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { type AttachedFile, Attachments, Comments, Discussions, type Id, Rules, ThreadAdmin, Threads, type User, Volumes } from "@convene/core"
import { Effect } from "effect"
import { NoFields } from "../layout/forms.js"
import { fieldMessages, type Kit, noticeOf, type Reader, seeOther, segment } from "../layout/kit.js"
import { CommentForm, EditCommentForm, ThreadVolumeForm } from "./forms.js"
import { bodyHtml } from "../layout/bodies.js"
import { type FileView, filesAfterEdit, filesView, keptUploads } from "../layout/files.js"
import { pollSummary } from "../polls/words.js"
import type { PageRouter } from "../layout/routes.js"
import { threadAdminRoutes } from "./admin.js"
import { reactionRoutes, reactionsView } from "./reactions.js"
import "./templates.js"

interface CommentNode {
  readonly id: Id
  readonly react: object
  readonly author: string
  readonly time: string
  readonly edited: boolean
  readonly html: string
  /** its files: a raster image shown, anything else a link to download */
  readonly files: ReadonlyArray<FileView>
  readonly mayEdit: boolean
  readonly mayDelete: boolean
  readonly depth: number
  readonly replies: Array<CommentNode>
}

/** The thread's items as the page lists them: replies under the comment they answer, the rest in order. */
const threadItems = (who: Reader, t: Threads.DiscussionThread) => {
  const users = new Map(t.users.map((u) => [u.id, u]))
  const nameOf = (id: Id | null) => {
    const u: User | undefined = id === null ? undefined : users.get(id)
    return u === undefined ? who.t("thread.someone") : Rules.displayName(u)
  }
  const comments = new Map(t.comments.map((c) => [c.id, c]))
  const reactionsOf = new Map<Id, Array<(typeof t.reactions)[number]>>()
  for (const r of t.reactions) if (r.reactable_type === "Comment") reactionsOf.set(r.reactable_id, [...(reactionsOf.get(r.reactable_id) ?? []), r])
  const polls = new Map(t.polls.map((v) => [v.poll.id, v]))
  const outcomes = new Map(t.outcomes.map((o) => [o.id, o]))
  const rootOf = new Map<Id, CommentNode>()
  const top: Array<{ readonly anchor: string; unread?: boolean; readonly [field: string]: unknown }> = []
  // the entry holding the reader's first unread item (a reply's: its comment's) is marked "New since your last visit"
  let unreadAnchor: string | undefined
  for (const item of [...t.items].sort((a, b) => a.sequence_id - b.sequence_id)) {
    const anchor = `item-${item.sequence_id}`
    const firstUnread = unreadAnchor === undefined && t.firstUnread !== undefined && item.sequence_id >= t.firstUnread
    const entries = top.length
    switch (item.itemable_type) {
      case "Comment": {
        const c = comments.get(item.itemable_id)
        if (c === undefined) break
        // a reply (to a comment or to a reply) is shown under the comment that began the conversation
        const root = c.parent_id === null ? undefined : rootOf.get(c.parent_id)
        const node: CommentNode = {
          id: c.id,
          react: {
            type: "Comment",
            id: c.id,
            reactions: reactionsView(who, reactionsOf.get(c.id) ?? [], users),
            mayReact: t.may.react && c.discarded_at === null,
            label: who.t("reactions.toComment", { name: nameOf(c.author_id) })
          },
          author: nameOf(c.author_id),
          time: who.time(c.created_at),
          edited: c.edited_at !== null,
          html: c.discarded_at !== null ? `<p><em>${who.t("comment.deleted")}</em></p>` : bodyHtml(c.body, c.body_format),
          files: c.discarded_at !== null ? [] : filesView(who, t.commentFiles.get(c.id) ?? []),
          mayEdit: t.editable.has(c.id),
          mayDelete: t.deletable.has(c.id),
          depth: root === undefined ? 0 : 1,
          replies: []
        }
        rootOf.set(c.id, root ?? node)
        if (root !== undefined) root.replies.push(node)
        else top.push({ kind: "comment", anchor: `comment-${c.id}`, ...node })
        if (firstUnread && root !== undefined) unreadAnchor = `comment-${root.id}`
        break
      }
      case "Poll": {
        const v = polls.get(item.itemable_id)
        if (v === undefined || item.kind !== "poll_created") {
          if (v !== undefined && item.kind.startsWith("poll_closed")) top.push({ kind: "event", anchor, text: who.t("thread.pollClosed", { title: v.poll.title }) })
          break
        }
        top.push({ kind: "poll", anchor, key: v.poll.key, title: v.poll.title, summary: `${who.t("thread.pollStarted", { name: nameOf(item.actor_id) })} · ${pollSummary(who, v)}` })
        break
      }
      case "Outcome": {
        const o = outcomes.get(item.itemable_id)
        const v = o === undefined ? undefined : polls.get(o.poll_id)
        if (o === undefined || v === undefined) break
        top.push({ kind: "event", anchor, text: who.t("thread.outcome", { name: nameOf(o.author_id), title: v.poll.title }), html: bodyHtml(o.statement, o.statement_format) })
        break
      }
      case "Stance":
        break
      case "Discussion":
        if (item.kind === "discussion_closed") top.push({ kind: "event", anchor, text: who.t("thread.discussionClosed", { name: nameOf(item.actor_id) }) })
        if (item.kind === "discussion_reopened") top.push({ kind: "event", anchor, text: who.t("thread.discussionReopened", { name: nameOf(item.actor_id) }) })
        if (item.kind === "discussion_moved") top.push({ kind: "event", anchor, text: who.t("thread.discussionMovedHere", { name: nameOf(item.actor_id) }) })
        break
    }
    if (firstUnread && unreadAnchor === undefined && top.length > entries) unreadAnchor = top.at(-1)!.anchor
  }
  const marked = top.find((e) => e.anchor === unreadAnchor)
  if (marked !== undefined) marked.unread = true
  return top
}

/** A comment's place: the page of its thread that holds it, at the comment. */
const commentPlace = (kit: Kit, key: string, commentId: Id) =>
  Effect.map(kit.run(Threads.pageOf("Comment", commentId)), (sequence) =>
    `/d/${encodeURIComponent(key)}${sequence === undefined ? "" : `?from=${sequence}`}#comment-${commentId}`)

/** The thread page, and commenting or replying in it. */
const threadPageRoutes = (router: PageRouter, kit: Kit) =>
  Effect.gen(function*() {
    const { respond, reader, run, refused } = kit
    yield* router.get("/d/:key", Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const key = segment(yield* RouteParams, "key")
      const who = yield* reader(request)
      // `?from=SEQUENCE_ID`: the page of the thread that holds that item (decisions §13)
      const params = new URL(request.url, "http://x").searchParams
      const fromRaw = params.get("from") ?? ""
      const from = /^[0-9]{1,9}$/.test(fromRaw) ? Number(fromRaw) : undefined
      // `?reply=COMMENT_ID`: the reply form under that comment (one form, not one per comment: a page of 100
      // comments is half the size; decisions §9's "Reply (a form under it)" without a script)
      const replyRaw = params.get("reply") ?? ""
      const reply = /^[0-9]{1,15}$/.test(replyRaw) ? Number(replyRaw) : undefined
      const found = yield* Effect.either(run(Threads.discussionThread(who.access, key, from)))
      if (found._tag === "Left") return refused(request, who, found.left)
      const t = found.right
      const d = t.discussion
      // a signed-in reader sets how much mail this thread sends them
      const volume = who.user === undefined ? undefined : (yield* run(Volumes.threadVolume(who.access, t.topic))).effective
      const groupTags = t.group === undefined || t.topic.tags.length === 0 ? [] : (yield* run(Effect.orElseSucceed(ThreadAdmin.groupTags(who.access, t.group.key), () => ({ tags: [] })))).tags
      const edited = yield* run(ThreadAdmin.wasEdited(d.id))
      const files = (yield* run(Attachments.filesOf("Discussion", [d.id]))).get(d.id) ?? []
      const author = t.users.find((u) => u.id === d.author_id)
      // the script asks again for this window of the thread, wherever the reader's first unread item moves
      const first = t.items[0]
      const back = from === undefined ? `/d/${d.key}` : `/d/${d.key}?from=${from}`
      const window = first === undefined ? `/d/${d.key}` : `/d/${d.key}?from=${first.sequence_id}`
      return respond(request, who, {
        title: d.title,
        template: "@thread",
        notice: noticeOf(request, who),
        live: { topic: t.topic.id, url: reply === undefined ? window : `${window}${window.includes("?") ? "&" : "?"}reply=${reply}` },
        crumbs: t.group === undefined ? [] : [{ href: `/g/${t.group.key}`, label: t.group.name }],
        data: {
          key: d.key,
          author: author === undefined ? who.t("thread.someone") : Rules.displayName(author),
          started: who.time(d.created_at),
          closed: t.topic.closed_at === null ? "" : who.time(t.topic.closed_at),
          descriptionHtml: bodyHtml(d.description, d.description_format),
          files: filesView(who, files),
          may: t.may,
          pinned: t.topic.pinned_at !== null,
          edited,
          back,
          reply,
          replyAt: `${back}${from === undefined ? "?" : "&"}reply=`,
          anyDeletable: t.deletable.size > 0,
          earlier: t.earlier === undefined ? undefined : t.earlier === null ? `/d/${d.key}` : `/d/${d.key}?from=${t.earlier}`,
          later: t.later === undefined ? undefined : `/d/${d.key}?from=${t.later}`,
          tags: t.topic.tags.map((name) => ({
            name,
            href: t.group === undefined ? "#" : `/g/${t.group.key}?tag=${encodeURIComponent(name)}`,
            swatch: (groupTags.find((g) => g.name === name)?.color ?? "#37474f").slice(1).toLowerCase()
          })),
          volume,
          items: threadItems(who, t)
        }
      })
    }))

    // **Post comment**, with the files of "Attach files" (decisions §14): each kept as the person's upload, then
    // attached by the comment's own write (a comment with a file may say nothing more)
    yield* router.postWithFiles("/d/:key/comments", kit.post(CommentForm, (request, who, form) =>
      Effect.gen(function*() {
        const key = segment(yield* RouteParams, "key")
        const posted = yield* Effect.either(kit.runWithFiles(Effect.gen(function*() {
          const { discussion } = yield* Discussions.showDiscussion(who.access, key)
          const files = yield* keptUploads(who.access)
          return yield* Comments.createComment(who.access, discussion.id, {
            body: form.body,
            body_format: "md",
            ...(files.length === 0 ? {} : { files }),
            ...(form.parent_id === undefined ? {} : { parent_id: form.parent_id })
          })
        })))
        if (posted._tag === "Left") {
          const e = posted.left
          // nothing written and nothing attached: the thread again, saying so
          if (e._tag === "Invalid" && "body" in e.errors) return kit.seeOtherDone(`/d/${encodeURIComponent(key)}`, "comment_empty")
          // a file the core refused (its name): said on a page of its own, nothing kept
          if (e._tag === "Invalid") {
            return respond(request, who, kit.message(who, "error.formInvalidTitle", Object.values(e.errors).flat().join(" "), 422, { href: `/d/${encodeURIComponent(key)}`, label: who.t("form.cancel") }))
          }
          return refused(request, who, e)
        }
        return kit.seeOtherDone(yield* commentPlace(kit, key, posted.right.comment.id), "commented")
      })))
  })

/** Editing and deleting a comment (its author, or an administrator where the group allows it). */
const commentRoutes = (router: PageRouter, kit: Kit) =>
  Effect.gen(function*() {
    const { respond, run, refused } = kit
    const editPage = (who: Reader, key: string, id: Id, body: string, files: ReadonlyArray<AttachedFile>, errors?: Record<string, string>, status = 200) => ({
      title: who.t("comment.editTitle"),
      template: "@edit-comment",
      status,
      data: { key, id, form: { body }, files: filesView(who, files), errors }
    })

    /** A comment of this discussion the reader may edit, with its files (404 otherwise: the same page whatever the reason). */
    const editable = (who: Reader, key: string, id: number) =>
      run(Effect.flatMap(Comments.editableComment(who.access, Number.isSafeInteger(id) ? id : 0), ({ comment, discussion }) =>
        discussion.key === key.split("-")[0]
          ? Effect.map(Attachments.filesOf("Comment", [comment.id]), (files) => ({ id: comment.id, body: comment.body, files: files.get(comment.id) ?? [] }))
          : Effect.fail({ _tag: "NotFound" as const })))

    yield* router.get("/d/:key/comments/:id/edit", kit.signedInGet((request, who) =>
      Effect.gen(function*() {
        const params = yield* RouteParams
        const key = segment(params, "key")
        const found = yield* Effect.either(editable(who, key, Number(segment(params, "id"))))
        if (found._tag === "Left") return refused(request, who, found.left)
        return respond(request, who, editPage(who, key, found.right.id, found.right.body, found.right.files))
      })))

    /** The edit form again, refused: only for a comment the reader may edit (404 otherwise, as on GET). */
    const editAgain = (request: HttpServerRequest.HttpServerRequest, who: Reader, body: string, errors: Record<string, string>) =>
      Effect.gen(function*() {
        const params = yield* RouteParams
        const key = segment(params, "key")
        const found = yield* Effect.either(editable(who, key, Number(segment(params, "id"))))
        if (found._tag === "Left") return refused(request, who, found.left)
        return respond(request, who, editPage(who, key, found.right.id, body, found.right.files, errors, 422))
      })

    // **Save comment**, its files as the form left them ("Keep") and those "Attach files" added (decisions §14)
    yield* router.postWithFiles("/d/:key/comments/:id/edit", kit.post(EditCommentForm, (request, who, form) =>
      Effect.gen(function*() {
        const params = yield* RouteParams
        const key = segment(params, "key")
        const id = Number(segment(params, "id"))
        const found = yield* Effect.either(editable(who, key, id))
        if (found._tag === "Left") return refused(request, who, found.left)
        const saved = yield* Effect.either(kit.runWithFiles(Effect.flatMap(keptUploads(who.access), (added) => {
          const files = filesAfterEdit(form.files_listed, form.keep, added, found.right.files)
          return Comments.updateComment(who.access, found.right.id, { body: form.body, body_format: "md", ...(files === undefined ? {} : { files }) })
        })))
        if (saved._tag === "Left") {
          const e = saved.left
          if (e._tag !== "Invalid") return refused(request, who, e)
          return respond(request, who, editPage(who, key, id, form.body, found.right.files, fieldMessages(e), 422))
        }
        return seeOther(yield* commentPlace(kit, key, id))
      }), (request, who, { errors, input }) => editAgain(request, who, input.body ?? "", errors)))

    yield* router.post("/d/:key/comments/:id/delete", kit.post(NoFields, (request, who) =>
      Effect.gen(function*() {
        const params = yield* RouteParams
        const key = segment(params, "key")
        const id = Number(segment(params, "id"))
        const gone = yield* Effect.either(run(Comments.deleteComment(who.access, Number.isSafeInteger(id) ? id : 0)))
        if (gone._tag === "Left") return refused(request, who, gone.left)
        return kit.seeOtherDone(`/d/${encodeURIComponent(key)}`, "comment_deleted")
      })))
  })

/** Closing and reopening a thread, and how much mail it sends the reader. */
const threadStateRoutes = (router: PageRouter, kit: Kit) =>
  Effect.gen(function*() {
    const { run, refused } = kit
    const closing = (closed: boolean) =>
      kit.post(NoFields, (request, who) =>
        Effect.gen(function*() {
          const key = segment(yield* RouteParams, "key")
          const done = yield* Effect.either(run(Discussions.setClosed(who.access, key, closed)))
          if (done._tag === "Left") return refused(request, who, done.left)
          return kit.seeOtherDone(`/d/${encodeURIComponent(done.right.discussion.key)}`, closed ? "closed" : "reopened")
        }))

    // a volume that is none of the choices changes nothing: the thread again
    yield* router.post("/d/:key/volume", kit.post(ThreadVolumeForm, (request, who, { volume }) =>
      Effect.gen(function*() {
        const key = segment(yield* RouteParams, "key")
        const set = yield* Effect.either(run(Effect.flatMap(Discussions.showDiscussion(who.access, key), ({ topic }) => Volumes.setThreadVolume(who.access, topic.id, volume))))
        if (set._tag === "Left") return refused(request, who, set.left)
        return kit.seeOtherDone(`/d/${encodeURIComponent(key)}#volume-title`, "volume")
      }), () => Effect.map(RouteParams, (params) => seeOther(`/d/${encodeURIComponent(segment(params, "key"))}`))))

    const pinning = (pinned: boolean) =>
      kit.post(NoFields, (request, who) =>
        Effect.gen(function*() {
          const done = yield* Effect.either(run(Discussions.setPinned(who.access, segment(yield* RouteParams, "key"), pinned)))
          if (done._tag === "Left") return refused(request, who, done.left)
          return kit.seeOtherDone(`/d/${encodeURIComponent(done.right.discussion.key)}`, pinned ? "pinned" : "unpinned")
        }))

    yield* router.post("/d/:key/close", closing(true))
    yield* router.post("/d/:key/reopen", closing(false))
    yield* router.post("/d/:key/pin", pinning(true))
    yield* router.post("/d/:key/unpin", pinning(false))
  })

export const threadRoutes = (router: PageRouter, kit: Kit) =>
  Effect.gen(function*() {
    yield* threadPageRoutes(router, kit)
    yield* commentRoutes(router, kit)
    yield* threadStateRoutes(router, kit)
    yield* threadAdminRoutes(router, kit)
    yield* reactionRoutes(router, kit)
  })
