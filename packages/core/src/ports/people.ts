/** Storage of the people pieces: invitation tokens, sign-in codes, sessions, rate-limit events. */
import type { Effect } from "effect"
import type { Id, User } from "../domain/records.js"

export type InvitationKind = "group" | "thread" | "poll"

export interface InvitationToken {
  readonly id: Id
  readonly kind: InvitationKind
  readonly user_id: Id
  readonly inviter_id: Id | null
  readonly group_id: Id | null
  readonly topic_id: Id | null
  readonly message: string | null
  readonly created_at: string
  readonly expires_at: string
  readonly used_at: string | null
}

export interface LoginCode {
  readonly id: Id
  readonly user_id: Id
  readonly code_salt: string
  readonly code_hash: string
  readonly attempts: number
  readonly created_at: string
  readonly expires_at: string
  readonly used_at: string | null
}

export interface Session {
  readonly id: Id
  readonly user_id: Id
  readonly created_at: string
  readonly last_seen_at: string
  readonly expires_at: string
}

/** A change of address waiting for its link (decisions §12). */
export interface EmailChange {
  readonly id: Id
  readonly user_id: Id
  readonly new_email: string
  readonly created_at: string
  readonly expires_at: string
  readonly used_at: string | null
}

export interface EmailChangesRepo {
  /** a new request; the person's earlier ones stop working */
  readonly insert: (x: Omit<EmailChange, "id" | "used_at">) => Effect.Effect<EmailChange>
  /** the person's latest request whose link is not made yet (the mail worker makes it when it sends) */
  readonly awaitingLink: (userId: Id) => Effect.Effect<EmailChange | undefined>
  readonly setTokenHash: (id: Id, hash: string) => Effect.Effect<void>
  readonly byTokenHash: (hash: string) => Effect.Effect<EmailChange | undefined>
  readonly markUsed: (id: Id, at: string) => Effect.Effect<void>
}

export interface InvitationsRepo {
  readonly insert: (t: Omit<InvitationToken, "id" | "used_at"> & { readonly token_hash: string }) => Effect.Effect<InvitationToken>
  readonly byHash: (hash: string) => Effect.Effect<InvitationToken | undefined>
  readonly markUsed: (id: Id, at: string) => Effect.Effect<void>
  readonly byId: (id: Id) => Effect.Effect<InvitationToken | undefined>
  /** Gives the invitation a new secret (when the message that carries it is sent). */
  readonly rehash: (id: Id, hash: string) => Effect.Effect<void>
  /** Ends a person's earlier unused invitations to the same place (inviting again sends a fresh token). */
  readonly supersede: (userId: Id, kind: InvitationKind, placeId: Id, at: string) => Effect.Effect<void>
}

export interface LoginCodesRepo {
  readonly insert: (c: Omit<LoginCode, "id" | "attempts" | "used_at"> & { readonly link_hash: string }) => Effect.Effect<LoginCode>
  /** The newest unused, unexpired code of a person. */
  readonly latestLive: (userId: Id, now: string) => Effect.Effect<LoginCode | undefined>
  readonly byLinkHash: (hash: string) => Effect.Effect<LoginCode | undefined>
  readonly markUsed: (id: Id, at: string) => Effect.Effect<void>
  /** Ends every live code and link of a person (but `keep`'s, when given): none of them signs anyone in any more. */
  readonly endLive: (userId: Id, at: string, keep?: Id) => Effect.Effect<void>
}

export interface SessionsRepo {
  readonly insert: (s: Omit<Session, "id"> & { readonly token_hash: string }) => Effect.Effect<Session>
  readonly byHash: (hash: string) => Effect.Effect<Session | undefined>
  readonly touch: (id: Id, lastSeenAt: string, expiresAt: string) => Effect.Effect<void>
  readonly deleteForUser: (userId: Id) => Effect.Effect<void>
}

export interface MutesRepo {
  readonly isMuted: (userId: Id, groupId: Id) => Effect.Effect<boolean>
  readonly mute: (userId: Id, groupId: Id, at: string) => Effect.Effect<void>
  readonly insertToken: (t: { token_hash: string; user_id: Id; group_id: Id; created_at: string }) => Effect.Effect<void>
  readonly byTokenHash: (hash: string) => Effect.Effect<{ user_id: Id; group_id: Id } | undefined>
}

export interface RateEventsRepo {
  readonly record: (key: string, at: string) => Effect.Effect<void>
  /** Events of `key` since `since`, oldest first (their times say when the window frees up). */
  readonly since: (key: string, since: string) => Effect.Effect<ReadonlyArray<string>>
  readonly prune: (before: string) => Effect.Effect<void>
}

/** Secrets the server keeps for itself (the CSRF tokens' HMAC key), the same for every server on the database. */
export interface ServerSecretsRepo {
  /** The named secret, made from `fresh` the first time it is asked for (the first writer wins a race). */
  readonly get: (name: string, fresh: string) => Effect.Effect<string>
}

/**
 * Memberships an identity provider's groups claim made (decisions §10): only these are revoked when the claim
 * stops listing their group.
 */
export interface GrantedMembershipsRepo {
  readonly record: (membershipId: Id, provider: string) => Effect.Effect<void>
  /** The person's active memberships that `provider`'s claim made. */
  readonly activeOf: (userId: Id, provider: string) => Effect.Effect<ReadonlyArray<{ readonly membership_id: Id; readonly group_id: Id }>>
}

/** How much mail a person wants from a group or a thread (decisions §11, Loomio's volumes). */
export type Volume = "mute" | "normal" | "loud"

export interface VolumesRepo {
  readonly ofGroup: (userId: Id, groupId: Id) => Effect.Effect<Volume | undefined>
  readonly ofThread: (userId: Id, topicId: Id) => Effect.Effect<Volume | undefined>
  /** The person's own volume in each of these threads that has one set. */
  readonly threadsOf: (userId: Id, topicIds: ReadonlyArray<Id>) => Effect.Effect<ReadonlyArray<{ readonly topic_id: Id; readonly volume: Volume }>>
  /** The person's volume in each group that has one set. */
  readonly groupsOf: (userId: Id) => Effect.Effect<ReadonlyArray<{ readonly group_id: Id; readonly volume: Volume }>>
  readonly setGroup: (userId: Id, groupId: Id, volume: Volume, at: string) => Effect.Effect<void>
  readonly setThread: (userId: Id, topicId: Id, volume: Volume, at: string) => Effect.Effect<void>
  /** The thread's accepted members and guests whose volume there is Loud (the thread's, else the group's). */
  readonly loudListeners: (topicId: Id, groupId: Id | null) => Effect.Effect<ReadonlyArray<Id>>
}

/** The reply address of a notification: per person and thread, and the comment the mail was about. */
export interface ReplyToken {
  readonly user_id: Id
  readonly topic_id: Id
  readonly comment_id: Id | null
  readonly created_at: string
}

export interface ReplyTokensRepo {
  readonly insert: (t: ReplyToken & { readonly token_hash: string }) => Effect.Effect<void>
  readonly byHash: (hash: string) => Effect.Effect<ReplyToken | undefined>
}

/** Inbound messages already handled, by Message-ID: each is posted at most once. */
export interface InboundMessagesRepo {
  readonly outcomeOf: (messageId: string) => Effect.Effect<string | undefined>
  readonly record: (messageId: string, outcome: string, at: string) => Effect.Effect<void>
}

/** What a catch-up e-mail reads: who gets one, and what happened in groups over a time. */
export interface CatchUpRepo {
  /** Active people with an address and the catch-up e-mail on. */
  readonly subscribers: () => Effect.Effect<ReadonlyArray<User>>
  /** Thread items of the groups' kept threads made after `since` and up to `until`, counted by thread and kind. */
  readonly activity: (groupIds: ReadonlyArray<Id>, since: string, until: string) => Effect.Effect<ReadonlyArray<{
    readonly topic_id: Id
    readonly group_id: Id
    readonly kind: string
    readonly itemable_type: string
    readonly itemable_id: Id
    readonly count: number
  }>>
}

/** People's repositories, as the Store holds them. */
export interface PeopleRepos {
  readonly mutes: MutesRepo
  readonly invitations: InvitationsRepo
  readonly loginCodes: LoginCodesRepo
  readonly sessions: SessionsRepo
  readonly emailChanges: EmailChangesRepo
  readonly rateEvents: RateEventsRepo
  readonly serverSecrets: ServerSecretsRepo
  readonly grantedMemberships: GrantedMembershipsRepo
  readonly volumes: VolumesRepo
  readonly replyTokens: ReplyTokensRepo
  readonly inboundMessages: InboundMessagesRepo
  readonly catchUp: CatchUpRepo
}
