/** How much mail a person gets from a group or thread (decisions §11, Loomio's volumes), pure. */
import type { Id } from "../domain/records.js"
import type { Volume } from "../ports/people.js"
import type { Access } from "./access.js"

export type { Volume }
export const VOLUMES: ReadonlyArray<Volume> = ["mute", "normal", "loud"]
export const isVolume = (v: unknown): v is Volume => typeof v === "string" && (VOLUMES as ReadonlyArray<string>).includes(v)

/** The thread's volume wins over the group's; neither set is Normal. */
/** Only an accepted member has a volume in a group (an invitation still pending has none). */
export const canSetGroupVolume = (access: Access, groupId: Id): boolean => access.memberships.get(groupId)?.accepted_at != null

export const effectiveVolume = (thread: Volume | undefined, group: Volume | undefined): Volume => thread ?? group ?? "normal"

/** What Normal brings: new threads and polls, outcomes, closing-soon reminders, mentions and replies to you. */
const NORMAL: ReadonlySet<string> = new Set([
  "new_discussion", "discussion_edited", "poll_created", "poll_edited", "poll_closing_soon", "outcome_created", "outcome_review_due", "comment_replied_to",
  "user_mentioned"
])
/** What Loud adds: every comment and every vote. */
const LOUD: ReadonlySet<string> = new Set([...NORMAL, "new_comment", "stance_created"])

/** Whether a notification of `kind` reaches a person at `volume` (Mute: none; invitations and codes are not notifications). */
export const volumeAllows = (volume: Volume, kind: string): boolean => (volume === "loud" ? LOUD : volume === "normal" ? NORMAL : new Set()).has(kind)
