/** The thread page's forms (decisions §9), each declared once (layout/forms.ts). */
import { Rules } from "@convene/core"
import { Schema } from "effect"
import { Checkbox, Filled, Many, OneOf, Text, Trimmed } from "../layout/forms.js"

/** The comment a reply answers: an id, or nothing (a comment on the thread) when the field says none. */
const ParentId = Schema.transform(Trimmed, Schema.UndefinedOr(Schema.Int), {
  strict: true,
  decode: (s) => (/^[1-9][0-9]{0,14}$/.test(s) ? Number(s) : undefined),
  encode: (id) => (id === undefined ? "" : String(id))
})

/** **Post comment** (on the thread, or as a reply under a comment). An empty one is the core's to refuse. */
export const CommentForm = Schema.Struct({ body: Text, parent_id: ParentId })

/** Editing a comment. */
/** The files an edit form listed (its "Keep" boxes) and which stay checked. */
const keptFiles = { files_listed: Checkbox, keep: Many }

export const EditCommentForm = Schema.Struct({ body: Filled, ...keptFiles })

/** How much mail the thread sends the reader. */
export const ThreadVolumeForm = Schema.Struct({ volume: OneOf(...Rules.VOLUMES) })

/** **Save thread**: "Title", "Details" (markdown), "Tags" (comma-separated) and an optional "What's changed?". */
export const EditThreadForm = Schema.Struct({ title: Filled, description: Text, tags: Text, change: Text, ...keptFiles })

/** **Move thread**: the group it goes to. */
export const MoveThreadForm = Schema.Struct({ group: Trimmed })

/** A group's tag: its name and colour (`#rrggbb`). */
export const TagForm = Schema.Struct({ name: Text, color: Trimmed })
