/** How records look on the command line: the JSON shapes and the one-line human forms. */
import type { Deliveries, Groups, Identity, MailMessage, Membership, User } from "@convene/core"
import { Rules } from "@convene/core"

export const userLine = (u: User, identities: ReadonlyArray<Identity>): string =>
  [
    `user ${u.id} ${u.email ?? "-"}`,
    u.name === null ? "" : `(${u.name})`,
    u.username === null ? "" : `@${u.username}`,
    u.is_admin ? "admin" : "",
    u.bot ? "bot" : "",
    u.redacted_at !== null ? "redacted" : u.deactivated_at !== null ? "deactivated" : "",
    ...identities.map((i) => `identity:${i.identity_type}:${i.uid}`)
  ].filter((s) => s !== "").join(" ")

type GroupView = Groups.GroupView

/** The group record with its exact counters and Loomio's full_name. */
export const groupJson = (v: GroupView) => ({ ...v.group, full_name: Rules.fullName(v.group, v.parent), ...v.counts })

export const groupLine = (v: GroupView): string =>
  [
    `group ${v.group.id} key=${v.group.key}`,
    v.group.handle === null ? "" : `handle=${v.group.handle}`,
    JSON.stringify(Rules.fullName(v.group, v.parent)),
    `members=${v.counts.accepted_memberships_count}`,
    v.counts.pending_memberships_count > 0 ? `pending=${v.counts.pending_memberships_count}` : "",
    v.group.is_visible_to_public ? "public" : "",
    v.group.enabled ? "" : "disabled"
  ].filter((s) => s !== "").join(" ")

export const membershipLine = (m: Membership): string =>
  [
    `membership ${m.id} group=${m.group_id} user=${m.user_id}`,
    m.admin ? "admin" : "",
    m.delegate ? "delegate" : "",
    m.revoked_at !== null ? "revoked" : m.accepted_at === null ? "pending" : ""
  ].filter((s) => s !== "").join(" ")

export const mailLine = (m: MailMessage): string =>
  `mail ${m.id} ${m.created_at} ${m.kind} to=${m.recipient_email} ${m.status} attempts=${m.attempts}: ${m.subject}` +
  (m.last_error === null ? "" : ` error=${m.last_error}`) +
  (m.status === "failed" ? ` next=${m.next_attempt_at}` : "") +
  (m.sent_at === null ? "" : ` sent=${m.sent_at}`)

export const deliveryLine = (d: Deliveries.DeliveryRow): string =>
  `delivery ${d.id} ${d.status} ${d.event_kind} group=${d.group_id} chatbot=${d.chatbot_id} attempts=${d.attempts}` +
  (d.last_status === null ? "" : ` last_status=${d.last_status}`) +
  (d.last_error === null ? "" : ` error=${d.last_error}`) +
  (d.status === "failed" ? ` next=${d.next_attempt_at}` : "") +
  (d.delivered_at === null ? "" : ` delivered=${d.delivered_at}`)
