/**
 * Who may read a thread: the one visibility rule (Loomio's TopicQuery.visible_to), used for single records
 * (`canShowTopic`) and, as a query, for lists (`topicScope`). Both derive from `groupThreadAccess`.
 */
import type { Group, Topic, TopicReader, TopicScope } from "../domain/records.js"
import { type Access, isMember } from "./access.js"
import { canShowGroup } from "./groups.js"

/**
 * How much of a group's threads a person reads: `all` for members, and for members of the parent group
 * when the group has `parent_members_can_see_discussions`; `public` (its public threads) for anyone who
 * can see the group; else `none`. Instance admin status plays no part.
 */
export type GroupThreadAccess = "all" | "public" | "none"

export const groupThreadAccess = (access: Access, group: Group): GroupThreadAccess =>
  isMember(access, group.id) || (group.parent_members_can_see_discussions && isMember(access, group.parent_id))
    ? "all"
    : canShowGroup(access, group)
    ? "public"
    : "none"

/** A guest is an un-revoked guest reader of the thread. */
export const isGuest = (reader: TopicReader | undefined): boolean =>
  reader !== undefined && reader.guest && reader.revoked_at === null

/** What the rules need to know about a thread. */
export interface TopicContext {
  readonly topic: Topic
  /** the thread's group; undefined for a thread without a group */
  readonly group: Group | undefined
  /** the caller's reader row in the thread, if any */
  readonly reader: TopicReader | undefined
}

export const canShowTopic = (access: Access, ctx: TopicContext): boolean => {
  if (access.user.deactivated_at !== null || ctx.topic.discarded_at !== null) return false
  if (isGuest(ctx.reader)) return true
  if (ctx.group === undefined) return false
  const level = groupThreadAccess(access, ctx.group)
  return level === "all" || (level === "public" && !ctx.topic.private)
}

/**
 * The same rule as a query. `candidates` are the groups where membership or parent membership can widen
 * access (the caller's groups and their subgroups); every other group is read only through its public
 * visibility, which the store checks from the group's `is_visible_to_public` flag (`canShowGroup`).
 */
export const topicScope = (access: Access, candidates: ReadonlyArray<Group>): TopicScope => {
  if (access.user.deactivated_at !== null) return { allIn: [], publicIn: [], publicGroups: false, guestUserId: null }
  const allIn: Array<number> = []
  const publicIn: Array<number> = []
  for (const group of candidates) {
    const level = groupThreadAccess(access, group)
    if (level === "all") allIn.push(group.id)
    else if (level === "public") publicIn.push(group.id)
  }
  return { allIn, publicIn, publicGroups: true, guestUserId: access.user.id }
}

/** The scope of one group's threads (the discussion list of a group). */
export const groupTopicScope = (access: Access, group: Group): TopicScope => {
  const level = groupThreadAccess(access, group)
  return {
    allIn: level === "all" ? [group.id] : [],
    publicIn: level === "public" ? [group.id] : [],
    publicGroups: false,
    guestUserId: access.user.deactivated_at === null ? access.user.id : null
  }
}

/** A group's polls are listed to whoever may read any of its threads. */
export const canListGroupPolls = (scope: TopicScope): boolean => scope.allIn.length > 0 || scope.publicIn.length > 0

/** Loomio's `privacy_is_permitted_by_group`: the error for `private`, or null when allowed. */
export const privacyErrors = (group: Group, isPrivate: boolean): string | null => {
  if (group.discussion_privacy_options === "public_only" && isPrivate) return "must be public"
  if (group.discussion_privacy_options === "private_only" && !isPrivate) return "must be private"
  return null
}

/** New threads without an explicit `private` follow the group (an open group's threads are public). */
export const privateDefault = (group: Group): boolean =>
  group.discussion_privacy_options === "public_only"
    ? false
    : group.discussion_privacy_options === "private_only"
    ? true
    : !group.is_visible_to_public
