/** The group pages' forms (decisions §9, §11), each declared once (layout/forms.ts). */
import { Inputs, MEMBERSHIP_GRANTED_UPON, Rules } from "@convene/core"
import { Schema } from "effect"
import { Checkbox, OneOf, OptionalCount, Required, Text } from "../layout/forms.js"

/** How much mail the group sends the reader; `next` is where the form was (the profile lists every group's). */
export const GroupVolumeForm = Schema.Struct({ volume: OneOf(...Rules.VOLUMES), next: Text })

/** **Send invitations**: "E-mail addresses" (one per line or comma-separated) and an optional "Message". */
export const InviteForm = Schema.Struct({ emails: Text, message: Text })

/** **Start discussion**: "Title", "Details" (markdown) and, where the group leaves the choice, its privacy ("0": public). */
export const NewDiscussionForm = Schema.Struct({ title: Required, description: Text, private: Text })

/** **Start group** and **Start subgroup**: "Group name", "Handle" (optional: made from the name), "Description" (markdown). */
export const GroupStartForm = Schema.Struct({ name: Required, handle: Text, description: Text })

/** **Save settings**: "Group name", "Handle", "Description", "Privacy", "Who can join" and one checkbox per permission (decisions §12). */
export const GroupSettingsForm = Schema.Struct({
  name: Required,
  handle: Text,
  description: Text,
  group_privacy: OneOf(...Rules.GROUP_PRIVACIES),
  membership_granted_upon: OneOf(...MEMBERSHIP_GRANTED_UPON),
  ...Object.fromEntries(Inputs.GROUP_PERMISSIONS.map((flag) => [flag, Checkbox])) as { readonly [K in (typeof Inputs.GROUP_PERMISSIONS)[number]]: typeof Checkbox },
  /** "Members can delegate their vote" and "Most delegations one member holds" (decisions §15) */
  members_can_delegate: Checkbox,
  delegation_limit: OptionalCount
})

/** **Ask to join**: "Why do you want to join?" (required; the core holds it to 250 characters). */
export const AskToJoinForm = Schema.Struct({ introduction: Text })

/** **Decline** a request to join: an optional reason, mailed to the requester. */
export const DeclineForm = Schema.Struct({ reason: Text })

/** **Delete group**: the group's name typed to confirm. */
export const DeleteGroupForm = Schema.Struct({ confirmation: Text })
