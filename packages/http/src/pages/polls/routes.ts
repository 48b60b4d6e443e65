/**
 * Polls on pages (decisions §9): starting one of the seven types, voting on each without JavaScript,
 * results with counts, percentages and a bar per option, Close poll, Share outcome and Reopen poll.
 */
import { RouteParams } from "../../routes.js"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { type AttachedFile, Attachments, Discussions, type Group, Groups, Outcomes, type Poll, pollSettings, POLL_TYPES, Polls, PROPOSAL_OPTIONS, Reactions, Rules, Stances, Threads } from "@convene/core"
import { Effect } from "effect"
import { type MessageKey, percentText, utcToZonedInput, zonedToUtc } from "../layout/i18n.js"
import { type FormInput, NoFields } from "../layout/forms.js"
import { doneOf, fieldMessages, type Kit, noticeOf, type Reader, seeOther, segment } from "../layout/kit.js"
import { COUNT_SETTINGS, EditPollForm, formFromSettings, NewPollForm, OutcomeForm, ReopenForm, SETTINGS_FORM, settingsFromForm, VoteForm } from "./forms.js"
import type { PageRouter } from "../layout/routes.js"
import { bodyHtml } from "../layout/bodies.js"
import { type FileView, filesAfterEdit, filesView, keptUploads } from "../layout/files.js"
import { reactionsView } from "../threads/reactions.js"
import "./templates.js"
import { choiceText, optionLabel, pollStateText, resultColumns } from "./words.js"
import { pollExportRoutes } from "./export.js"
import { pollVoterRoutes } from "./voters.js"
import { pollTemplateRoutes } from "./templateAdmin.js"

type Input = "radio" | "checkbox" | "score" | "dots" | "rank" | "meeting"

/** How a poll type is voted on a page. */
const inputOf = (p: Poll): Input => {
  switch (p.poll_type) {
    case "proposal":
    case "count":
      return "radio"
    case "poll":
      return p.maximum_stance_choices > 1 ? "checkbox" : "radio"
    case "score":
      return "score"
    case "dot_vote":
      return "dots"
    case "ranked_choice":
      return "rank"
    case "meeting":
      return "meeting"
  }
}

interface PollForm {
  readonly statement: string
  readonly closing_at: string
}

/** After **Remind**: how many were reminded, or that a reminder went out less than a day ago; after **Invite voters**, how many. */
const remindedNotice = (request: HttpServerRequest.HttpServerRequest, who: Reader) => {
  const done = doneOf(request)
  return done?.what === "reminded" ? who.t("poll.reminded", { count: done.n ?? 0 })
    : done?.what === "remindTooSoon" ? who.t("poll.remindTooSoon")
    : done?.what === "invited" ? who.t("poll.invited", { count: done.n ?? 0 })
    : undefined
}

/** The poll page's data: the vote form (when the vote rule allows it), results as the settings allow. */
const pollPageData = (who: Reader, view: Polls.ShownPoll, users: ReadonlyMap<number, string>, form: PollForm, ballot: Record<string, number> | undefined,
  files: { readonly poll: ReadonlyArray<FileView>; readonly outcome: ReadonlyArray<FileView> }) => {
  const p = view.poll
  const mine = view.my_stance?.cast_at != null ? view.my_stance : undefined
  const input = inputOf(p)
  const ordered = p.shuffle_options ? Rules.shuffledFor(who.access.user.id, view.options) : view.options
  const n = view.options.length
  const scoreOf = (id: number, name: string) => ballot?.[name] ?? mine?.choices.get(id)
  const options = ordered.map((o, i) => {
    const score = scoreOf(o.id, o.name)
    return {
      id: o.id,
      name: o.name,
      label: optionLabel(who, p, o.name),
      score: score ?? (input === "score" ? p.min_score : input === "meeting" ? -1 : 0),
      // ranked choice: the first choice scores n; a fresh ballot offers the options' own order (distinct ranks)
      rank: score !== undefined && score > 0 ? n - score + 1 : i + 1
    }
  })
  const used = input === "dots" ? options.reduce((a, o) => a + Math.max(0, o.score), 0) : 0
  const results = view.results
  const columns = resultColumns(who, p.poll_type)
  const total = results === null ? 0 : p.poll_type === "meeting" || p.poll_type === "poll" || p.poll_type === "count" || p.poll_type === "proposal" ? results.cast_count : results.total_score
  const voteNote = view.vote_refusal === null
    ? undefined
    : who.user === undefined
    ? who.t("poll.noVoteSignedOut")
    : view.vote_refusal._tag === "NotOpen"
    ? who.t("poll.notOpen")
    : who.t("poll.notVoter")
  return {
    key: p.key,
    type: who.t(`pollType.${p.poll_type}` as MessageKey),
    state: pollStateText(who, p),
    detailsHtml: bodyHtml(p.details, p.details_format),
    files: files.poll,
    voters: view.voters_count,
    cast: view.cast_count,
    delegated: view.delegated_count,
    castForYou: mine === undefined || mine.delegated_by === null || p.anonymous ? undefined : users.get(mine.delegated_by) ?? who.t("thread.someone"),
    vote: view.vote_refusal === null && who.user !== undefined
      ? {
        input,
        // a ballot a delegate's vote cast is not yet the reader's own vote
        mine: mine !== undefined && mine.delegated_by === null,
        reason: mine?.reason ?? "",
        // the poll's "Reason" setting: no field where it takes none, a required one where it asks for one
        reasonTaken: p.stance_reason_required,
        options,
        min: input === "score" ? p.min_score : 0,
        max: input === "score" ? p.max_score : p.dots_per_person,
        dots: p.dots_per_person,
        dotsLeft: Math.max(0, p.dots_per_person - used),
        answers: [
          { score: 2, label: who.t("answer.yes") },
          ...(p.can_respond_maybe ? [{ score: 1, label: who.t("answer.maybe") }] : []),
          { score: 0, label: who.t("answer.no") }
        ]
      }
      : undefined,
    voteNote,
    results: results === null ? null : {
      columns: columns.headers,
      named: !p.anonymous,
      rows: results.options.map((r) => {
        const pct = p.poll_type === "meeting" ? (results.cast_count === 0 ? 0 : (r.yes / results.cast_count) * 100)
          : p.poll_type === "score" || p.poll_type === "dot_vote" || p.poll_type === "ranked_choice" ? r.score_percent
          : r.votes_cast_percent
        return {
          label: optionLabel(who, p, r.name),
          values: columns.values(r),
          percent: Math.round(pct * 10) / 10,
          percentText: percentText(who.locale, pct),
          voters: r.voter_ids.map((id) => users.get(id) ?? "").filter((s) => s !== "").join(", ")
        }
      }),
      total
    },
    hiddenUntil: p.hide_results === "until_closed" ? who.t("poll.hiddenUntilClosed") : who.t("poll.hiddenUntilVote"),
    outcome: view.outcome === undefined ? undefined : {
      by: who.t("poll.outcomeBy", { name: users.get(view.outcome.author_id) ?? who.t("thread.someone"), time: who.time(view.outcome.created_at) }),
      html: bodyHtml(view.outcome.statement, view.outcome.statement_format),
      files: files.outcome
    },
    // a meeting's outcome picks the chosen time: its options, most Yes first
    meetingSlots: p.poll_type !== "meeting" ? undefined
      : [...view.options].map((o) => ({ id: o.id, label: optionLabel(who, p, o.name), yes: view.results?.options.find((r) => r.id === o.id)?.yes ?? 0 }))
        .sort((a, b) => b.yes - a.yes),
    may: { close: view.may.close, reopen: view.may.reopen, outcome: view.may.outcome && view.outcome === undefined, edit: view.may.edit, remind: view.may.remind,
      // invite voters: its administrators, while it is open (the core asks again)
      invite: view.may.edit && view.may.close },
    form,
    zone: who.zone
  }
}

/** The ballot the vote form describes for the poll's type, as option name → score (the core checks it against the type's rules). */
const ballotOf = (p: Poll, optionCount: number, form: typeof VoteForm.Type): Record<string, number> => {
  switch (inputOf(p)) {
    case "radio":
    case "checkbox":
      return Object.fromEntries(form.choices.map((name) => [name, 1]))
    case "rank":
      // the first rank scores as many points as there are options
      return Object.fromEntries(Object.entries(form.ranks).map(([name, rank]) => [name, optionCount - rank + 1]))
    default:
      return Object.assign({}, form.scores)
  }
}

/** A refused ballot's message in the reader's words where the page knows the rule, else the core's. */
const ballotMessage = (who: Reader, p: Poll, ballot: Record<string, number>, core: string): string => {
  if (p.poll_type === "ranked_choice") return who.t("poll.ranksDiffer")
  if (p.poll_type === "dot_vote") {
    const total = Object.values(ballot).reduce((a, s) => a + (Number.isFinite(s) ? s : 0), 0)
    if (total > p.dots_per_person) return who.t("poll.tooManyDots", { total: p.dots_per_person })
  }
  return core
}

/** A closing date's default: a week from now, in the reader's zone. */
const aWeekFromNow = (who: Reader) => utcToZonedInput(new Date(Date.now() + 7 * 86_400_000).toISOString(), who.zone)

/** The new-poll form as first shown (what a field shows: its text, or a checkbox's state). */
const DEFAULT_FORM: Readonly<Record<keyof typeof NewPollForm.fields, string | boolean>> = {
  poll_template_key: "", poll_template_id: "", poll_type: "proposal", title: "", details: "", options: "", closing_at: "", ...SETTINGS_FORM
}

/** What the new-poll form says, as the core's poll input (meeting times and the closing date from the reader's zone). */
const pollInputFromForm = (who: Reader, form: typeof NewPollForm.Type): { input?: Polls.PollInput; errors: Record<string, string> } => {
  const errors: Record<string, string> = {}
  const type = form.poll_type
  const lines = form.options.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== "")
  let options: Array<string> | undefined = lines.length === 0 ? undefined : lines
  // a proposal's options are its four, unless the form names some of them (a template's)
  if (type === "proposal" && !lines.every((l) => (PROPOSAL_OPTIONS as ReadonlyArray<string>).includes(l))) options = undefined
  if (type === "meeting" && options !== undefined) {
    const converted = options.map((l) => (/^\d{4}-\d{2}-\d{2}$/.test(l) ? l : zonedToUtc(l, who.zone)))
    const bad = options.find((_, i) => converted[i] === undefined)
    if (bad !== undefined) errors.options = who.t("poll.badMeetingTime", { line: bad })
    else options = converted as Array<string>
  }
  const closing = zonedToUtc(form.closing_at, who.zone)
  if (closing === undefined) errors.closing_at = who.t("poll.badDate")
  const input: Polls.PollInput = {
    poll_type: form.poll_type,
    title: form.title,
    details: form.details,
    details_format: "md",
    ...(options === undefined ? {} : { options }),
    closing_at: closing ?? null,
    ...settingsFromForm(form),
    ...(form.poll_template_key === "" ? {} : { poll_template_key: form.poll_template_key }),
    ...(/^[0-9]{1,15}$/.test(form.poll_template_id) ? { poll_template_id: Number(form.poll_template_id) } : {}),
    // the group hears of it (a ballot each); a poll for invited people only is told to those invited, later
    ...(form.voters === "invited" ? {} : { recipient_audience: "group" as const })
  }
  return Object.keys(errors).length > 0 ? { errors } : { input, errors }
}

/** Starting a poll, in a group or in a thread. */
const startPollRoutes = (router: PageRouter, kit: Kit) =>
  Effect.gen(function*() {
    const { respond, run, refused } = kit
    const newPollPage = (who: Reader, action: string, place: Place, templates: ReadonlyArray<Polls.PollTemplateView>, form: Readonly<Record<string, string | boolean>>,
      errors?: Record<string, string>, status = 200) => {
      const current = (v: Polls.PollTemplateView) => (v.id === null ? v.key === form.poll_template_key : String(v.id) === form.poll_template_id)
      return {
        title: who.t("poll.newTitleIn", { place: place.name }),
        template: "@new-poll",
        status,
        crumbs: [{ href: place.back, label: place.name }],
        data: {
          action, types: POLL_TYPES, form, errors, zone: who.zone,
          // "Choose a template" first, the group's in its order: each link fills the form from one (decisions §15)
          templates: templates.map((p) => ({ name: p.name, process: p.process, href: `${action}?template=${p.key ?? p.id}`, current: current(p) })),
          using: templates.find(current)?.name
        }
      }
    }
    /** The form filled from a template: its type, details, options, closing date, settings and numbers. */
    const fromTemplate = (who: Reader, p: Polls.PollTemplateView | undefined) => {
      if (p === undefined) return {}
      const closing = utcToZonedInput(new Date(Date.now() + p.default_duration_in_days * 86_400_000).toISOString(), who.zone)
      return {
        poll_template_key: p.key ?? "", poll_template_id: p.id === null ? "" : String(p.id), poll_type: p.poll_type, details: p.details, options: p.options.join("\n"),
        closing_at: closing, ...formFromSettings(p.settings)
      }
    }

    /** The templates a poll there may start from: its group's, or the built-ins (a thread of no group). */
    const offered = (who: Reader, place: Place) => place.group === undefined ? Effect.succeed(Polls.pollTemplates(who.t)) : kit.run(Polls.templatesOf(who.t, place.group))

    /** Where the poll goes: a group (by its page's rule) or a discussion (by its thread's rule). */
    type Place = { readonly name: string; readonly back: string; readonly group: Group | undefined; readonly announce: boolean; readonly input: { group_id?: number; discussion_id?: number } }
    const placeOf = (who: Reader, where: "g" | "d", key: string) =>
      run<Place, { readonly _tag: string }>(where === "g"
        ? Effect.flatMap(Groups.groupPage(who.access, key), (page) =>
          page.may.poll
            ? Effect.succeed({ name: page.group.name, back: `/g/${page.group.key}`, group: page.group, announce: page.may.announce, input: { group_id: page.group.id } })
            : Effect.fail({ _tag: "Forbidden" as const }))
        : Effect.flatMap(Threads.discussionRights(who.access, key), (t) =>
          t.may.poll
            ? Effect.succeed({ name: t.discussion.title, back: `/d/${t.discussion.key}`, group: t.ctx.group, announce: t.may.announce, input: { discussion_id: t.discussion.id } })
            : Effect.fail({ _tag: "Forbidden" as const })))

    const newPollRoutes = (where: "g" | "d") =>
      Effect.gen(function*() {
        const path = where === "g" ? "/g/:key/polls/new" as const : "/d/:key/polls/new" as const
        yield* router.get(path, kit.signedInGet((request, who) =>
          Effect.gen(function*() {
            const key = segment(yield* RouteParams, "key")
            const place = yield* Effect.either(placeOf(who, where, key))
            if (place._tag === "Left") return refused(request, who, place.left)
            const params = new URL(request.url, "http://x").searchParams
            const type = params.get("type")
            const templates = yield* offered(who, place.right)
            const chosen = Polls.templateRef(params.get("template"))
            const form = {
              ...DEFAULT_FORM, closing_at: aWeekFromNow(who), ...(type !== null && (POLL_TYPES as ReadonlyArray<string>).includes(type) ? { poll_type: type } : {}),
              ...fromTemplate(who, Polls.findTemplate(templates, chosen))
            }
            return respond(request, who, newPollPage(who, `/${where}/${key}/polls/new`, place.right, templates, form))
          })))
        /** The form again, refused, only where the reader may start a poll (as the page itself). */
        const again = (request: HttpServerRequest.HttpServerRequest, who: Reader, input: FormInput, errors: Record<string, string>) =>
          Effect.gen(function*() {
            const key = segment(yield* RouteParams, "key")
            const place = yield* Effect.either(placeOf(who, where, key))
            if (place._tag === "Left") return refused(request, who, place.left)
            const templates = yield* offered(who, place.right)
            return respond(request, who, newPollPage(who, `/${where}/${key}/polls/new`, place.right, templates, input, errors, 422))
          })
        yield* router.postWithFiles(path, kit.post(NewPollForm, (request, who, form, typed) =>
          Effect.gen(function*() {
            const key = segment(yield* RouteParams, "key")
            const place = yield* Effect.either(placeOf(who, where, key))
            if (place._tag === "Left") return refused(request, who, place.left)
            const { input, errors } = pollInputFromForm(who, form)
            if (input === undefined) return yield* again(request, who, typed, errors)
            // the group hears of it where the reader may notify everyone (members_can_announce)
            const { recipient_audience: _everyone, ...quiet } = input
            const made = yield* Effect.either(kit.runWithFiles(Effect.flatMap(keptUploads(who.access), (files) =>
              Polls.createPoll(who.access, { ...(place.right.announce ? input : quiet), ...place.right.input, ...(files.length === 0 ? {} : { files }) }))))
            if (made._tag === "Left") {
              const e = made.left
              return e._tag === "Invalid" ? yield* again(request, who, typed, fieldMessages(e)) : refused(request, who, e)
            }
            return kit.seeOtherDone(`/p/${made.right.poll.key}`, "poll_started")
          }), (request, who, { errors, input }) => again(request, who, input, errors)))
      })
    yield* newPollRoutes("g")
    yield* newPollRoutes("d")
  })

/** The edit form of a poll as stored: the closing date in the reader's zone, a meeting's times too. */
const storedPollForm = (who: Reader, view: Polls.PollView) => ({
  title: view.poll.title,
  details: view.poll.details,
  closing_at: view.poll.closing_at === null ? "" : utcToZonedInput(view.poll.closing_at, who.zone),
  options: view.options.map((o) => (view.poll.poll_type === "meeting" && o.name.includes("T") ? utcToZonedInput(o.name, who.zone) : o.name)).join("\n"),
  change: "",
  notify: false,
  ...formFromSettings(pollSettings(view.poll, false)),
  ...Object.fromEntries(COUNT_SETTINGS.map((k) => [k, view.poll[k] === null || view.poll[k] === undefined ? "" : String(view.poll[k])]))
})

/**
 * **Edit poll** (decisions §12): title, details, closing date, options (not a proposal's), "What's changed?"; an
 * option removed asks to confirm first (its votes go). The core checks who (EditPoll) and what (the type's rules).
 */
const editPollRoutes = (router: PageRouter, kit: Kit) =>
  Effect.gen(function*() {
    const editPage = (who: Reader, view: Polls.PollView & { readonly files: ReadonlyArray<AttachedFile> }, form: Record<string, string | boolean>, errors?: Record<string, string>, removing?: string, status = 200) => ({
      title: who.t("poll.editTitle", { title: view.poll.title }),
      template: "@edit-poll",
      status,
      crumbs: [{ href: `/p/${view.poll.key}`, label: view.poll.title }],
      data: { key: view.poll.key, form, files: filesView(who, view.files), errors, optionsEditable: view.poll.poll_type !== "proposal", removing, anonymousLocked: view.poll.anonymous }
    })
    /** The poll, where the reader may edit it, with its files. */
    const editable = (who: Reader, key: string) =>
      kit.run(Effect.flatMap(Polls.showPoll(who.access, key), (view) =>
        view.may.edit
          ? Effect.map(Attachments.filesOf("Poll", [view.poll.id]), (files) => Object.assign({}, view, { files: files.get(view.poll.id) ?? [] }))
          : Effect.fail({ _tag: "Forbidden" as const })))

    yield* router.get("/p/:key/edit", kit.signedInGet((request, who) =>
      Effect.gen(function*() {
        const found = yield* Effect.either(editable(who, segment(yield* RouteParams, "key")))
        if (found._tag === "Left") return kit.refused(request, who, found.left)
        return kit.respond(request, who, editPage(who, found.right, storedPollForm(who, found.right)))
      })))

    yield* router.postWithFiles("/p/:key/edit", kit.post(EditPollForm, (request, who, form, input) =>
      Effect.gen(function*() {
        const key = segment(yield* RouteParams, "key")
        const found = yield* Effect.either(editable(who, key))
        if (found._tag === "Left") return kit.refused(request, who, found.left)
        const view = found.right
        const again = (errors: Record<string, string>, removing?: string) =>
          kit.respond(request, who, editPage(who, view, { ...input, notify: form.notify }, errors, removing, 422))
        const closing = zonedToUtc(form.closing_at, who.zone)
        if (closing === undefined) return again({ closing_at: who.t("poll.badDate") })
        let options: Array<string> | undefined
        if (view.poll.poll_type !== "proposal") {
          const lines = form.options.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== "")
          const converted = view.poll.poll_type === "meeting" ? lines.map((l) => (/^\d{4}-\d{2}-\d{2}$/.test(l) ? l : zonedToUtc(l, who.zone))) : lines
          const bad = lines.find((_, i) => converted[i] === undefined)
          if (bad !== undefined) return again({ options: who.t("poll.badMeetingTime", { line: bad }) })
          options = converted as Array<string>
          // an option taken away takes its votes: said, and done only once confirmed
          const removed = view.options.filter((o) => !options!.includes(o.name)).map((o) => o.name)
          if (removed.length > 0 && !form.confirm_removal) return again({ options: who.t("poll.removalNeedsConfirming") }, removed.join(", "))
          if (options.join("\n") === view.options.map((o) => o.name).join("\n")) options = undefined
        }
        const saved = yield* Effect.either(kit.runWithFiles(Effect.flatMap(keptUploads(who.access), (added) => {
          const files = filesAfterEdit(form.files_listed, form.keep, added, view.files)
          return Polls.updatePoll(who.access, key, {
          ...(files === undefined ? {} : { files }),
          title: form.title,
          details: form.details,
          details_format: "md",
          closing_at: closing,
          ...(options === undefined ? {} : { options }),
          ...(form.change.trim() === "" ? {} : { recipient_message: form.change.trim() }),
          notify_voters: form.notify,
          // the type's settings: the core refuses what the type does not take, and anonymity turned off
          ...settingsFromForm(form)
          })
        })))
        if (saved._tag === "Right") return kit.seeOtherDone(`/p/${saved.right.poll.key}`, "poll_saved")
        const e = saved.left
        if (e._tag !== "Invalid") return kit.refused(request, who, e)
        return again(fieldMessages(e))
      })))
  })

/** How many votes the poll page lists (the newest), and at most with `?votes=all`. */
const VOTES_SHOWN = 20
const ALL_VOTES = 1000

/** The poll page: voting, closing, the outcome, reopening. */
const pollPageRoutes = (router: PageRouter, kit: Kit) =>
  Effect.gen(function*() {
    const { respond, reader, run, refused } = kit
    const pollPage = Effect.fnUntraced(function*(
      request: HttpServerRequest.HttpServerRequest,
      who: Reader,
      key: string,
      refusal?: { errors: Record<string, string>; ballot?: Record<string, number>; form?: Partial<PollForm> }
    ) {
      // the newest votes, or (`?votes=all`) all of them
      const allVotes = new URL(request.url, "http://x").searchParams.get("votes") === "all"
      const found = yield* Effect.either(run(Effect.gen(function*() {
        const view = yield* Polls.showPoll(who.access, key)
        const thread = view.discussion_id === null ? undefined : yield* Effect.option(Discussions.showDiscussion(who.access, String(view.discussion_id)))
        const group = view.poll.group_id === null ? undefined : yield* Groups.findGroup(String(view.poll.group_id))
        // the delegate whose vote stands for the reader is named to them (never in an anonymous poll)
        const castBy = view.my_stance === undefined ? null : Rules.revealDelegatedBy(view.poll, view.my_stance)
        const ids = [...new Set([...(view.results?.options ?? []).flatMap((r) => r.voter_ids), ...(view.outcome ? [view.outcome.author_id] : []), ...(castBy === null ? [] : [castBy])])]
        const users = yield* Threads.usersByIds(ids)
        const reactions = yield* Reactions.pollReactions(who.access, view.poll, view.outcome?.id, allVotes ? ALL_VOTES : VOTES_SHOWN)
        const pollFiles = (yield* Attachments.filesOf("Poll", [view.poll.id])).get(view.poll.id) ?? []
        const outcomeFiles = view.outcome === undefined ? [] : (yield* Attachments.filesOf("Outcome", [view.outcome.id])).get(view.outcome.id) ?? []
        return { view, thread: thread?._tag === "Some" ? thread.value.discussion : undefined, group, users, reactions, pollFiles, outcomeFiles }
      })))
      if (found._tag === "Left") return refused(request, who, found.left)
      const { group, outcomeFiles, pollFiles, reactions, thread, users, view } = found.right
      const reactors = new Map(reactions.users.map((u) => [u.id, u]))
      const react = (type: "Poll" | "Outcome" | "Stance", id: number, list: typeof reactions.poll, label: string) =>
        ({ type, id, reactions: reactionsView(who, list, reactors), mayReact: reactions.mayReact, label })
      const names = new Map(users.map((u) => [u.id, Rules.displayName(u)]))
      const form: PollForm = {
        statement: refusal?.form?.statement ?? "",
        closing_at: refusal?.form?.closing_at ?? aWeekFromNow(who)
      }
      return respond(request, who, {
        title: view.poll.title,
        template: "@poll",
        status: refusal === undefined ? 200 : 422,
        notice: remindedNotice(request, who) ?? noticeOf(request, who),
        live: { topic: view.poll.topic_id, url: `/p/${view.poll.key}` },
        crumbs: [
          ...(group === undefined ? [] : [{ href: `/g/${group.key}`, label: group.name }]),
          ...(thread === undefined ? [] : [{ href: `/d/${thread.key}`, label: thread.title }])
        ],
        data: {
          ...pollPageData(who, view, names, form, refusal?.ballot, { poll: filesView(who, pollFiles), outcome: filesView(who, outcomeFiles) }),
          errors: refusal?.errors,
          back: `/p/${view.poll.key}`,
          pollReact: react("Poll", view.poll.id, reactions.poll, who.t("reactions.toPoll")),
          outcomeReact: view.outcome ? react("Outcome", view.outcome.id, reactions.outcome, who.t("reactions.toOutcome")) : undefined,
          // each vote the reader may see, with its reason and its reactions (an anonymous poll's name nobody)
          votes: reactions.votes.map(({ reactions: list, stance, voter }) => {
            const person = voter === null ? undefined : reactors.get(voter)
            const name = person === undefined ? who.t("thread.someone") : Rules.displayName(person)
            return {
              id: stance.id,
              heading: who.t("poll.voteBy", { name, choice: choiceText(who, view.poll, view.options, stance.choices), time: who.time(stance.cast_at) }),
              reasonHtml: stance.reason === null ? "" : bodyHtml(stance.reason, stance.reason_format),
              react: react("Stance", stance.id, list, who.t("reactions.toVote", { name }))
            }
          }),
          moreVotes: !allVotes && reactions.votes.length === VOTES_SHOWN && view.cast_count > VOTES_SHOWN
            ? { href: `/p/${view.poll.key}?votes=all#votes-h`, label: who.t("poll.allVotes", { count: view.cast_count }) }
            : undefined
        }
      })
    })

    yield* router.get("/p/:key", Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const key = segment(yield* RouteParams, "key")
      return yield* pollPage(request, yield* reader(request), key)
    }))

    yield* router.post("/p/:key/vote", kit.post(VoteForm, (request, who, form) =>
      Effect.gen(function*() {
        const key = segment(yield* RouteParams, "key")
        const found = yield* Effect.either(run(Polls.showPoll(who.access, key)))
        if (found._tag === "Left") return refused(request, who, found.left)
        const poll = found.right.poll
        const ballot = ballotOf(poll, found.right.options.length, form)
        const cast = yield* Effect.either(run(Stances.castVote(who.access, { poll_id: poll.id, option_scores: ballot, reason: form.reason })))
        if (cast._tag === "Left") {
          const e = cast.left
          if (e._tag !== "Invalid") return refused(request, who, e)
          // a reason refused is said beside the reason; a ballot refused beside the ballot
          if (e.errors.reason !== undefined && e.errors.option_scores === undefined) return yield* pollPage(request, who, key, { errors: { reason: who.t("poll.reasonRequired") }, ballot })
          return yield* pollPage(request, who, key, { errors: { ballot: ballotMessage(who, poll, ballot, Object.values(e.errors).flat().join("; ")) }, ballot })
        }
        return kit.seeOtherDone(`/p/${encodeURIComponent(key)}`, "voted")
      })))

    // **Remind** those who have not voted: the core decides who may, whom, and whether a day has passed
    yield* router.post("/p/:key/remind", kit.post(NoFields, (request, who) =>
      Effect.gen(function*() {
        const key = segment(yield* RouteParams, "key")
        const done = yield* Effect.either(run(Polls.remindVoters(who.access, key)))
        if (done._tag === "Right") return kit.seeOtherDone(`/p/${encodeURIComponent(key)}`, "reminded", done.right.reminded)
        if (done.left._tag === "TooManyRequests") return kit.seeOtherDone(`/p/${encodeURIComponent(key)}`, "remindTooSoon")
        return done.left._tag === "Invalid" ? seeOther(`/p/${encodeURIComponent(key)}`) : refused(request, who, done.left)
      })))

    yield* router.post("/p/:key/close", kit.post(NoFields, (request, who) =>
      Effect.gen(function*() {
        const key = segment(yield* RouteParams, "key")
        const closed = yield* Effect.either(run(Polls.closePoll(who.access, key)))
        if (closed._tag === "Left") return closed.left._tag === "Invalid" ? seeOther(`/p/${encodeURIComponent(key)}`) : refused(request, who, closed.left)
        return kit.seeOtherDone(`/p/${encodeURIComponent(key)}`, "poll_closed")
      })))

    yield* router.postWithFiles("/p/:key/outcome", kit.post(OutcomeForm, (request, who, { statement, poll_option_id, event_summary, event_location }) =>
      Effect.gen(function*() {
        const key = segment(yield* RouteParams, "key")
        // a meeting's chosen time (an option of the poll: the core checks) names the event its invitation is for
        const chosen = /^[0-9]{1,15}$/.test(poll_option_id) ? { poll_option_id: Number(poll_option_id), event_summary, event_location } : {}
        const shared = yield* Effect.either(kit.runWithFiles(Effect.flatMap(Polls.showPoll(who.access, key), (view) =>
          Effect.flatMap(keptUploads(who.access), (files) =>
            Outcomes.createOutcome(who.access, view.poll.id, { statement, statement_format: "md", ...chosen, ...(files.length === 0 ? {} : { files }) })))))
        if (shared._tag === "Left") {
          const e = shared.left
          if (e._tag !== "Invalid") return refused(request, who, e)
          return yield* pollPage(request, who, key, { errors: fieldMessages(e), form: { statement } })
        }
        return kit.seeOtherDone(`/p/${encodeURIComponent(key)}`, "outcome")
      }),
      // an empty outcome: the page again (its own rules: a poll the reader may not see is 404)
      (request, who, { errors, input }) =>
        Effect.flatMap(RouteParams, (params) => pollPage(request, who, segment(params, "key"), { errors, form: { statement: input.statement ?? "" } }))))

    yield* router.post("/p/:key/reopen", kit.post(ReopenForm, (request, who, { closing_at: typed }) =>
      Effect.gen(function*() {
        const key = segment(yield* RouteParams, "key")
        const closing = zonedToUtc(typed, who.zone)
        if (closing === undefined) return yield* pollPage(request, who, key, { errors: { closing_at: who.t("poll.badDate") }, form: { closing_at: typed } })
        const reopened = yield* Effect.either(run(Polls.reopenPoll(who.access, key, closing)))
        if (reopened._tag === "Left") {
          const e = reopened.left
          if (e._tag !== "Invalid") return refused(request, who, e)
          return yield* pollPage(request, who, key, { errors: { closing_at: Object.values(e.errors).flat().join("; ") }, form: { closing_at: typed } })
        }
        return kit.seeOtherDone(`/p/${encodeURIComponent(key)}`, "poll_reopened")
      })))
  })

export const pollRoutes = (router: PageRouter, kit: Kit) =>
  Effect.gen(function*() {
    yield* startPollRoutes(router, kit)
    yield* pollPageRoutes(router, kit)
    yield* editPollRoutes(router, kit)
    yield* pollExportRoutes(router, kit)
    yield* pollVoterRoutes(router, kit)
    yield* pollTemplateRoutes(router, kit)
  })
