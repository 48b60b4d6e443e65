/**
 * Home, the group page, its members, inviting people and starting a discussion (decisions §9). Every control
 * is shown from the rules' answers the core returns, and every POST goes through a core service that asks
 * the same rules again.
 */
import { RouteParams } from "../../routes.js"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Delegation, Discussions, type Group, Groups, type User, Inputs, Joining, MEMBERSHIP_GRANTED_UPON, Memberships, Polls, Reading, Rules, ThreadAdmin, Threads, Volumes } from "@convene/core"
import { Effect } from "effect"
import { NoFields } from "../layout/forms.js"
import { keptUploads } from "../layout/files.js"
import { doneOf, fieldMessages, idFrom, type Kit, noticeOf, type Reader, seeOther, segment } from "../layout/kit.js"
import { GroupSettingsForm, GroupStartForm, GroupVolumeForm, InviteForm, NewDiscussionForm } from "./forms.js"
import { pollStateText } from "../polls/words.js"
import type { PageRouter } from "../layout/routes.js"
import type { HttpSettings } from "../../settings.js"
import { joiningRoutes, shareableLink } from "./joining.js"
import { delegationRoutes } from "./delegation.js"
import { groupFor } from "./pageGroup.js"
import { threadEntry } from "../threads/lists.js"
import "./templates.js"

const LIST = { limit: 100, offset: 0 }

/** After inviting: how many invitations went out. */
const invitedNotice = (request: HttpServerRequest.HttpServerRequest, who: Reader) => {
  const done = doneOf(request)
  return done?.what === "invited" && done.n !== undefined ? who.t("invite.sent", { count: done.n }) : undefined
}

/** Home: signed out, what this is; signed in, the person's groups, polls waiting for their vote, latest threads. */
const homePage = (kit: Kit) => {
  const { respond, reader, run } = kit
  return Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const who = yield* reader(request)
    if (who.user === undefined) return respond(request, who, { title: who.t("home.title"), template: "@home", data: {}, notice: noticeOf(request, who) })
    const access = who.access
    const data = yield* run(Effect.gen(function*() {
      const groups = (yield* Groups.listGroupsFor(access)).filter((v) => access.memberships.get(v.group.id)?.accepted_at != null)
      const waiting = yield* Polls.awaitingVote(access)
      const topics = (yield* Threads.listThreads(access, { limit: 10, offset: 0 })).records
      const discussions = yield* Discussions.viewsOfTopics(topics.filter((t) => t.topicable_type === "Discussion"))
      const reads = yield* Reading.readViews(access, discussions.map((d) => d.topic))
      return {
        back: "/",
        mayStartGroup: yield* Groups.mayStartGroup(access),
        groups: groups.map((v) => ({ key: v.group.key, name: v.group.name })),
        waiting: waiting.map((p) => ({ key: p.key, title: p.title, closes: who.time(p.closing_at) })),
        threads: discussions.map((d) => ({ ...threadEntry(who, d, reads.get(d.topic.id)), active: who.time(d.topic.last_activity_at) }))
      }
    }))
    return respond(request, who, { title: who.t("home.title"), template: "@home", data, notice: noticeOf(request, who), live: { url: "/" } })
  })
}

/** The group page. */
const groupPage = (kit: Kit) => {
  const { respond, reader, run, refused } = kit
  return Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const key = segment(yield* RouteParams, "key")
    const who = yield* reader(request)
    // `?tag=`: only the threads carrying that tag
    const tag = new URL(request.url, "http://x").searchParams.get("tag")?.trim().slice(0, 50) || undefined
    const shown = yield* Effect.either(run(Effect.gen(function*() {
      const page = yield* Groups.groupPage(who.access, key)
      const threads = yield* Discussions.listDiscussions(who.access, page.group.id, "all", LIST, tag)
      const { tags } = yield* ThreadAdmin.groupTags(who.access, page.group.key)
      const polls = yield* Polls.listPolls(who.access, page.group.id, "all", LIST)
      // a member sets how much mail the group sends them
      const member = who.access.memberships.get(page.group.id)?.accepted_at != null
      const volume = member ? yield* Volumes.groupVolume(who.access, page.group) : undefined
      const joining = yield* Joining.joiningOptions(who.access, page.group)
      const reads = yield* Reading.readViews(who.access, threads.records.map((d) => d.topic))
      return { page, threads: threads.records, polls: polls.records, volume, joining, tags, reads }
    })))
    if (shown._tag === "Left") return refused(request, who, shown.left)
    const { joining, page, threads, polls, volume, tags, reads } = shown.right
    const g = page.group
    return respond(request, who, {
      title: g.name,
      template: "@group",
      notice: invitedNotice(request, who) ?? noticeOf(request, who),
      data: {
        key: g.key,
        parent: page.parent === undefined ? undefined : { key: page.parent.key, name: page.parent.name },
        descriptionHtml: g.description === null || g.description === "" ? "" : Rules.markdownToHtml(g.description),
        may: page.may,
        joining,
        tag,
        tags: tags.map((t) => ({ name: t.name, href: `/g/${g.key}?tag=${encodeURIComponent(t.name)}`, swatch: t.color.slice(1).toLowerCase(), current: t.name === tag })),
        membersCount: page.counts.accepted_memberships_count,
        // pinned threads first (most recently pinned first), then the others as listed: latest activity first
        open: threads.filter((d) => d.topic.closed_at === null)
          .map((d, i) => ({ d, i }))
          .sort((a, b) => (b.d.topic.pinned_at ?? "").localeCompare(a.d.topic.pinned_at ?? "") || a.i - b.i)
          .map(({ d }) => ({ ...threadEntry(who, d, reads.get(d.topic.id)), pinned: d.topic.pinned_at !== null })),
        closed: threads.filter((d) => d.topic.closed_at !== null).map((d) => threadEntry(who, d, reads.get(d.topic.id))),
        back: `/g/${g.key}`,
        polls: polls.map((p) => ({ key: p.poll.key, title: p.poll.title, state: pollStateText(who, p.poll) })),
        subgroups: page.subgroups.map((s) => ({ key: s.key, name: s.name })),
        volume
      }
    })
  })
}

/** The members page. */
const membersRoute = (kit: Kit) => {
  const { reader } = kit
  const show = membersPage(kit)
  return Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const key = segment(yield* RouteParams, "key")
    return yield* show(request, yield* reader(request), key)
  })
}

/**
 * The members page; what was just done to a member (`doneOf`: made admin, removed, an invitation sent again or
 * cancelled) is told once, the member named from the records. Those who may invite see each pending invitation's
 * address, when it was made, **Resend invitation** and **Cancel invitation**; **Make admin** is for members.
 */
const membersPage = (kit: Kit) => {
  const { respond, run, refused } = kit
  return Effect.fnUntraced(function*(request: HttpServerRequest.HttpServerRequest, who: Reader, key: string) {
    const done = doneOf(request)
    const acted = done?.n ?? 0
    const shown = yield* Effect.either(run(Effect.gen(function*() {
      const page = yield* Groups.groupPage(who.access, key)
      if (!page.may.members) return yield* Effect.fail({ _tag: "Forbidden" as const })
      const list = yield* Memberships.listMemberships(who.access, page.group.id, { limit: 1000, offset: 0 })
      // the notice names the member from the records, never from the URL (a link cannot put words on this page)
      const member = (page.may.manage || page.may.invite) && acted > 0
        ? yield* Effect.option(Memberships.groupMember(who.access, page.group.id, acted))
        : undefined
      // every grant and revoke of delegations, for the group's administrators (decisions §15)
      const delegations = page.may.auditDelegations ? yield* Delegation.delegationHistory(who.access, page.group) : []
      return { page, list, delegations, actedUser: member?._tag === "Some" ? member.value.user : undefined }
    })))
    if (shown._tag === "Left") return refused(request, who, shown.left)
    const { actedUser, page, list, delegations } = shown.right
    const users = new Map(list.users.map((u) => [u.id, u]))
    // an invitation is shown by its address to those who may invite (no name yet, perhaps no account)
    const shownName = (userId: number, pending: boolean) => {
      const u = users.get(userId)
      return (u === undefined ? undefined : pending && page.may.invite ? u.email : Rules.displayName(u)) ?? who.t("thread.someone")
    }
    const actedName = actedUser === undefined ? "" : Rules.displayName(actedUser)
    const notice = actedUser === undefined ? undefined
      : done?.what === "admin" ? who.t("members.madeAdmin", { name: actedName })
      : done?.what === "removed" ? who.t("members.removed", { name: actedName })
      : done?.what === "resent" ? who.t("members.resent", { email: actedUser.email ?? "" })
      : done?.what === "resendTooSoon" ? who.t("members.resendTooSoon", { email: actedUser.email ?? "" })
      : done?.what === "cancelled" ? who.t("members.cancelled", { email: actedUser.email ?? "" })
      : undefined
    const members = list.records.map((m) => {
      const pending = m.accepted_at === null
      return {
        id: m.id,
        name: shownName(m.user_id, pending),
        pending,
        admin: m.admin,
        self: m.user_id === who.user?.id,
        marks: [
          pending ? who.t("members.invitedAt", { when: who.time(m.created_at) }) : m.admin ? who.t("members.admin") : who.t("members.member"),
          ...(m.delegate ? [who.t("members.delegate")] : [])
        ].join(", ")
      }
    })
    return respond(request, who, {
      title: who.t("members.title", { group: page.group.name }),
      template: "@members",
      crumbs: [{ href: `/g/${page.group.key}`, label: page.group.name }],
      notice,
      data: {
        key: page.group.key, manage: page.may.manage, invite: page.may.invite, members,
        delegations: page.may.auditDelegations && (page.group.members_can_delegate || delegations.length > 0)
          ? delegations.map((d) => {
            const name = (u: User | undefined) => (u === undefined ? who.t("thread.someone") : Rules.displayName(u))
            return {
              delegator: name(d.delegator),
              delegate: name(d.delegate),
              from: who.time(d.delegation.created_at),
              until: d.delegation.revoked_at === null ? who.t("members.delegationLive")
                : who.t("members.delegationRevoked", { when: who.time(d.delegation.revoked_at), name: name(d.revoker) })
            }
          })
          : undefined
      }
    })
  })
}

/** Making a member an administrator, or removing them (administrators only: the core asks the rule). */
const memberAction = (kit: Kit, act: "admin" | "remove") =>
  kit.post(NoFields, (request, who) =>
    Effect.gen(function*() {
      const params = yield* RouteParams
      const membershipId = idFrom(segment(params, "id"))
      const done = yield* Effect.either(kit.run(Effect.gen(function*() {
        const { group } = yield* Groups.showGroup(who.access, segment(params, "key"))
        if (act === "admin") yield* Memberships.makeAdmin(who.access, group.id, membershipId)
        else yield* Memberships.removeMembership(who.access, group.id, membershipId)
        return { group, membershipId }
      })))
      if (done._tag === "Left") return kit.refused(request, who, done.left)
      return kit.seeOtherDone(`/g/${done.right.group.key}/members`, act === "admin" ? "admin" : "removed", done.right.membershipId)
    }))

/** **Resend invitation** or **Cancel invitation** (whoever may invite: the core asks the rule). */
const invitationAction = (kit: Kit, act: "resend" | "cancel") =>
  kit.post(NoFields, (request, who) =>
    Effect.gen(function*() {
      const params = yield* RouteParams
      const membershipId = idFrom(segment(params, "id"))
      const done = yield* Effect.either(kit.run(Effect.gen(function*() {
        const { group } = yield* Groups.showGroup(who.access, segment(params, "key"))
        const what = act === "resend"
          ? ((yield* Memberships.resendInvitation(who.access, group.id, membershipId)).sent ? "resent" as const : "resendTooSoon" as const)
          : (yield* Memberships.cancelInvitation(who.access, group.id, membershipId), "cancelled" as const)
        return { group, what }
      })))
      if (done._tag === "Left") return kit.refused(request, who, done.left)
      return kit.seeOtherDone(`/g/${done.right.group.key}/members`, done.right.what, membershipId)
    }))

/** The invitation form, and the shareable link with **Reset link** (`link`: shown to those who may invite). */
const invitePage = (who: Reader, group: { key: string; name: string }, link: string | undefined, form: { emails: string; message: string }, errors?: Record<string, string>, status = 200) => ({
  title: who.t("invite.title", { group: group.name }),
  template: "@invite",
  status,
  crumbs: [{ href: `/g/${group.key}`, label: group.name }],
  data: { key: group.key, form, errors, link }
})

const newDiscussionPage = (who: Reader, group: { key: string; name: string; discussion_privacy_options: string }, form: Record<string, string>, errors?: Record<string, string>, status = 200) => ({
  title: who.t("discussion.newTitle", { group: group.name }),
  template: "@new-discussion",
  status,
  crumbs: [{ href: `/g/${group.key}`, label: group.name }],
  data: { key: group.key, form, errors, privacyChoice: group.discussion_privacy_options === "public_or_private" }
})

/** **Start a group** (`parent` undefined) or **Start a subgroup** of `parent`: the form, with what was typed and why it was refused. */
const newGroupPage = (who: Reader, parent: { key: string; name: string; handle: string | null } | undefined, form: Record<string, string>, errors?: Record<string, string>, status = 200) => ({
  title: parent === undefined ? who.t("newGroup.title") : who.t("newGroup.subgroupTitle", { group: parent.name }),
  template: "@new-group",
  status,
  ...(parent === undefined ? {} : { crumbs: [{ href: `/g/${parent.key}`, label: parent.name }] }),
  data: {
    action: parent === undefined ? "/g/new" : `/g/${parent.key}/subgroups/new`,
    parent: parent !== undefined,
    handleHint: parent?.handle ? who.t("newGroup.subgroupHandleHint", { handle: parent.handle }) : who.t("newGroup.handleHint"),
    form,
    errors
  }
})
const EMPTY_GROUP_FORM = { name: "", handle: "", description: "" }

/** `/g/new`: only to those the core lets start a group (FEATURES_DISABLE_CREATE_GROUP: the server's administrators). */
const newGroupForm = (kit: Kit) =>
  kit.signedInGet((request, who) =>
    Effect.gen(function*() {
      if (!(yield* kit.run(Groups.mayStartGroup(who.access)))) return kit.refused(request, who, { _tag: "Forbidden" })
      return kit.respond(request, who, newGroupPage(who, undefined, EMPTY_GROUP_FORM))
    }))

/** `/g/{key}/subgroups/new`: to the group's administrators (one level deep). */
const newSubgroupForm = (kit: Kit) =>
  kit.signedInGet((request, who) =>
    Effect.gen(function*() {
      const found = yield* Effect.either(groupFor(kit, who, segment(yield* RouteParams, "key"), (may) => may.subgroup))
      if (found._tag === "Left") return kit.refused(request, who, found.left)
      return kit.respond(request, who, newGroupPage(who, found.right, EMPTY_GROUP_FORM))
    }))

/** **Start group** / **Start subgroup**: the core decides who may (and checks the name and handle); the new group's page next. */
const startGroupRoute = (kit: Kit, sub: boolean) =>
  kit.post(GroupStartForm, (request, who, form, input) =>
    Effect.gen(function*() {
      const key = sub ? segment(yield* RouteParams, "key") : undefined
      const made = yield* Effect.either(kit.run(key === undefined ? Groups.startGroup(who.access, form) : Groups.startSubgroup(who.access, key, form)))
      if (made._tag === "Right") return seeOther(`/g/${made.right.group.key}`)
      const e = made.left
      if (e._tag !== "Invalid") return kit.refused(request, who, e)
      const parent = key === undefined ? undefined : yield* Effect.either(kit.run(Groups.showGroup(who.access, key)))
      return kit.respond(request, who, newGroupPage(who, parent?._tag === "Right" ? parent.right.group : undefined, input, fieldMessages(e), 422))
    }),
    // a form that could not be read: refused as the page would be, else shown again with its messages
    (request, who, { errors, input }) =>
      Effect.gen(function*() {
        if (!sub) {
          if (!(yield* kit.run(Groups.mayStartGroup(who.access)))) return kit.refused(request, who, { _tag: "Forbidden" })
          return kit.respond(request, who, newGroupPage(who, undefined, input, errors, 422))
        }
        const found = yield* Effect.either(groupFor(kit, who, segment(yield* RouteParams, "key"), (may) => may.subgroup))
        if (found._tag === "Left") return kit.refused(request, who, found.left)
        return kit.respond(request, who, newGroupPage(who, found.right, input, errors, 422))
      }))

/** The settings form of a group, as stored or as typed, with each field's message. */
const settingsPage = (who: Reader, group: Group, form: Record<string, string | boolean>, errors?: Record<string, string>, status = 200) => ({
  title: who.t("settings.title", { group: group.name }),
  template: "@group-settings",
  status,
  crumbs: [{ href: `/g/${group.key}`, label: group.name }],
  data: {
    key: group.key,
    form,
    errors,
    privacies: Rules.GROUP_PRIVACIES.map((value) => ({ value, label: who.t(`settings.${value}`), hint: who.t(`settings.${value}Hint`) })),
    joinings: MEMBERSHIP_GRANTED_UPON.map((value) => ({ value, label: who.t(`settings.${value}`) })),
    flags: Inputs.GROUP_PERMISSIONS.map((name) => ({ name, label: who.t(`settings.${name}`), on: form[name] === true })),
    delegation: { on: form.members_can_delegate === true, limit: String(form.delegation_limit ?? "") }
  }
})
const storedSettings = (g: Group) => ({
  name: g.name,
  handle: g.handle ?? "",
  description: g.description ?? "",
  group_privacy: Rules.privacyOf(g),
  membership_granted_upon: g.membership_granted_upon,
  ...Object.fromEntries(Inputs.GROUP_PERMISSIONS.map((flag) => [flag, g[flag]])),
  members_can_delegate: g.members_can_delegate,
  delegation_limit: String(g.delegation_limit)
})

/** `/g/{key}/settings`: the group's administrators only (the page, and the POST again in the core). */
const settingsForm = (kit: Kit) =>
  kit.signedInGet((request, who) =>
    Effect.gen(function*() {
      const found = yield* Effect.either(groupFor(kit, who, segment(yield* RouteParams, "key"), (may) => may.settings))
      if (found._tag === "Left") return kit.refused(request, who, found.left)
      return kit.respond(request, who, settingsPage(who, found.right, storedSettings(found.right)))
    }))

/** **Save settings**: the core checks who and what; the group's page says once that they are saved. */
const saveSettings = (kit: Kit) =>
  kit.post(GroupSettingsForm, (request, who, form, input) =>
    Effect.gen(function*() {
      const key = segment(yield* RouteParams, "key")
      const saved = yield* Effect.either(kit.run(Groups.changeGroupSettings(who.access, key, form)))
      if (saved._tag === "Right") return kit.seeOtherDone(`/g/${saved.right.group.key}`, "settings_saved")
      const e = saved.left
      if (e._tag !== "Invalid") return kit.refused(request, who, e)
      const group = yield* Effect.either(groupFor(kit, who, key, (may) => may.settings))
      if (group._tag === "Left") return kit.refused(request, who, group.left)
      return kit.respond(request, who, settingsPage(who, group.right, { ...input, ...checked(form) }, fieldMessages(e), 422))
    }),
    (request, who, { errors, input }) =>
      Effect.gen(function*() {
        const found = yield* Effect.either(groupFor(kit, who, segment(yield* RouteParams, "key"), (may) => may.settings))
        if (found._tag === "Left") return kit.refused(request, who, found.left)
        return kit.respond(request, who, settingsPage(who, found.right, { ...input, ...checked(input) }, errors, 422))
      }))
/** The permission checkboxes as typed ("1": on). */
const checked = (typed: Record<string, unknown>) =>
  Object.fromEntries([...Inputs.GROUP_PERMISSIONS, "members_can_delegate"].map((flag) => [flag, typed[flag] === true || typed[flag] === "1"]))

/** **Leave group**, asked first: what leaving does, and a word to the last administrator. */
const leavePage = (kit: Kit) =>
  kit.signedInGet((request, who) =>
    Effect.gen(function*() {
      const leaving = yield* Effect.either(kit.run(Memberships.leavingGroup(who.access, segment(yield* RouteParams, "key"))))
      if (leaving._tag === "Left") return kit.refused(request, who, leaving.left)
      const { group, lastAdmin } = leaving.right
      return kit.respond(request, who, {
        title: who.t("leave.title", { group: group.name }),
        template: "@leave",
        crumbs: [{ href: `/g/${group.key}`, label: group.name }],
        data: { key: group.key, name: group.name, lastAdmin }
      })
    }))

const leave = (kit: Kit) =>
  kit.post(NoFields, (request, who) =>
    Effect.gen(function*() {
      const left = yield* Effect.either(kit.run(Memberships.leaveGroup(who.access, segment(yield* RouteParams, "key"))))
      if (left._tag === "Left") return kit.refused(request, who, left.left)
      return kit.seeOtherDone("/", "left")
    }))

/** The invitation form (administrators, or members where the group lets them add members). */
const invitePageRoute = (kit: Kit, settings: HttpSettings) => {
  const { respond, refused } = kit
  return kit.signedInGet((request, who) =>
    Effect.gen(function*() {
      const found = yield* Effect.either(groupFor(kit, who, segment(yield* RouteParams, "key"), (may) => may.invite))
      if (found._tag === "Left") return refused(request, who, found.left)
      const link = yield* shareableLink(kit, settings, who, found.right.key)
      return respond(request, who, { ...invitePage(who, found.right, link, { emails: "", message: "" }), notice: noticeOf(request, who) })
    }))
}

/** How much mail the group sends the reader (decisions §11). */
const setVolume = (kit: Kit) => {
  const { run, refused } = kit
  const back = (next: string | undefined, key: string) => (next === "/profile" ? "/profile" : `/g/${encodeURIComponent(key)}#volume-title`)
  return kit.post(GroupVolumeForm, (request, who, { volume, next }) =>
    Effect.gen(function*() {
      const key = segment(yield* RouteParams, "key")
      const set = yield* Effect.either(run(Effect.flatMap(Groups.groupPage(who.access, key), (page) => Volumes.setGroupVolume(who.access, page.group.id, volume))))
      if (set._tag === "Left") return refused(request, who, set.left)
      return kit.seeOtherDone(back(next, key), "volume")
    }),
    // a volume that is none of the choices changes nothing: back where the form was
    (_request, _who, { input }) => Effect.map(RouteParams, (params) => seeOther(back(input.next, segment(params, "key")))))
}

/** Inviting people by e-mail: a refused address is named beside the field. */
const inviteRoute = (kit: Kit, settings: HttpSettings) => {
  const { respond, run, refused } = kit
  return kit.post(InviteForm, (request, who, form) =>
    Effect.gen(function*() {
      const key = segment(yield* RouteParams, "key")
      const emails = form.emails.split(/[\s,;]+/).map((e) => e.trim()).filter((e) => e !== "")
      const found = yield* Effect.either(run(Groups.showGroup(who.access, key)))
      if (found._tag === "Left") return refused(request, who, found.left)
      const group = found.right.group
      const sent = yield* Effect.either(run(Memberships.inviteToGroup(who.access, group.id, emails, form.message)))
      if (sent._tag === "Left") {
        const e = sent.left
        if (e._tag !== "Invalid") return refused(request, who, e)
        const raw = fieldMessages(e)
        const bad = emails.find((a) => !Rules.isEmail(Rules.normaliseEmail(a)))
        const errors = {
          ...(raw.emails ? { emails: emails.length === 0 ? who.t("error.blank") : bad !== undefined ? who.t("invite.badEmail", { email: bad }) : who.t("invite.tooMany") } : {}),
          ...(raw.message ? { message: raw.message } : {})
        }
        return respond(request, who, invitePage(who, group, yield* shareableLink(kit, settings, who, group.key), form, errors, 422))
      }
      return kit.seeOtherDone(`/g/${group.key}`, "invited", sent.right.invited.length)
    }))
}

/** The new discussion form. */
const newDiscussionForm = (kit: Kit) => {
  const { respond, refused } = kit
  return kit.signedInGet((request, who) =>
    Effect.gen(function*() {
      const found = yield* Effect.either(groupFor(kit, who, segment(yield* RouteParams, "key"), (may) => may.discuss))
      if (found._tag === "Left") return refused(request, who, found.left)
      return respond(request, who, newDiscussionPage(who, found.right, { title: "", description: "", private: "1" }))
    }))
}

/** Starting a discussion; a refusal is shown beside its field. */
const startDiscussion = (kit: Kit) => {
  const { respond, run, refused } = kit
  return kit.post(NewDiscussionForm, (request, who, form, input) =>
    Effect.gen(function*() {
      const key = segment(yield* RouteParams, "key")
      const found = yield* Effect.either(run(Groups.showGroup(who.access, key)))
      if (found._tag === "Left") return refused(request, who, found.left)
      const group = found.right.group
      const made = yield* Effect.either(kit.runWithFiles(Effect.flatMap(keptUploads(who.access), (files) => Discussions.createDiscussion(who.access, {
        group_id: group.id,
        title: form.title,
        description: form.description,
        description_format: "md",
        ...(files.length === 0 ? {} : { files }),
        // as Loomio's form does by default: the group hears of a new discussion (where the reader may notify everyone)
        ...(Rules.canNotifyGroup(who.access, group) ? { recipient_audience: "group" as const } : {}),
        ...(group.discussion_privacy_options === "public_or_private" ? { private: form.private !== "0" } : {})
      }))))
      if (made._tag === "Left") {
        const e = made.left
        if (e._tag !== "Invalid") return refused(request, who, e)
        return respond(request, who, newDiscussionPage(who, group, input, fieldMessages(e), 422))
      }
      return seeOther(`/d/${made.right.discussion.key}`)
    }),
    // the form again, only where the reader may start a discussion (as the page itself)
    (request, who, { errors, input }) =>
      Effect.gen(function*() {
        const found = yield* Effect.either(groupFor(kit, who, segment(yield* RouteParams, "key"), (may) => may.discuss))
        if (found._tag === "Left") return refused(request, who, found.left)
        return respond(request, who, newDiscussionPage(who, found.right, input, errors, 422))
      }))
}

export const groupRoutes = (router: PageRouter, kit: Kit, settings: HttpSettings) =>
  Effect.gen(function*() {
    yield* joiningRoutes(router, kit, settings)
    yield* delegationRoutes(router, kit)
    yield* router.get("/", homePage(kit))
    yield* router.get("/g/new", newGroupForm(kit))
    yield* router.post("/g/new", startGroupRoute(kit, false))
    yield* router.get("/g/:key", groupPage(kit))
    yield* router.get("/g/:key/subgroups/new", newSubgroupForm(kit))
    yield* router.get("/g/:key/settings", settingsForm(kit))
    yield* router.get("/g/:key/leave", leavePage(kit))
    yield* router.post("/g/:key/leave", leave(kit))
    yield* router.post("/g/:key/settings", saveSettings(kit))
    yield* router.post("/g/:key/subgroups/new", startGroupRoute(kit, true))
    yield* router.get("/g/:key/members", membersRoute(kit))
    yield* router.post("/g/:key/members/:id/admin", memberAction(kit, "admin"))
    yield* router.post("/g/:key/members/:id/remove", memberAction(kit, "remove"))
    yield* router.post("/g/:key/members/:id/resend", invitationAction(kit, "resend"))
    yield* router.post("/g/:key/members/:id/cancel", invitationAction(kit, "cancel"))
    yield* router.get("/g/:key/invite", invitePageRoute(kit, settings))
    yield* router.post("/g/:key/volume", setVolume(kit))
    yield* router.post("/g/:key/invite", inviteRoute(kit, settings))
    yield* router.get("/g/:key/discussions/new", newDiscussionForm(kit))
    yield* router.postWithFiles("/g/:key/discussions/new", startDiscussion(kit))
  })
