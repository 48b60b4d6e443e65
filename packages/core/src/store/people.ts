/** People's tokens: invitations, sign-in codes, sessions, unsubscribe links, volumes, reply addresses, rate events. */
import { Effect } from "effect"
import { type Id, User } from "../domain/records.js"
import type { EmailChange, InvitationToken, LoginCode, PeopleRepos, Session, Volume } from "../ports/people.js"
import { INVITATION_COLUMNS, LOGIN_CODE_COLUMNS, SESSION_COLUMNS, USER_COLUMNS } from "../sql/records.js"
import { asRecord, returned, type SqlClient } from "./client.js"

/** Where a request remembers a person's own volume in a thread (none: undefined, remembered as well). */
export const threadVolumeKey = (topicId: Id, userId: Id) => `thread_volumes:${topicId}:${userId}`

const EMAIL_CHANGE_COLUMNS = "id, user_id, new_email, created_at, expires_at, used_at"


export const makePeopleRepos = (c: SqlClient): PeopleRepos => {
  const setVolume = (table: "group_volumes" | "thread_volumes", column: "group_id" | "topic_id", userId: Id, id: Id, volume: Volume, at: string) =>
    Effect.asVoid(c.run(`INSERT INTO ${table} (user_id, ${column}, volume, updated_at) VALUES (?, ?, ?, ?)
                         ON CONFLICT (user_id, ${column}) DO UPDATE SET volume = excluded.volume, updated_at = excluded.updated_at`, [userId, id, volume, at]))
  return {
  invitations: {
    insert: (t) =>
      Effect.map(
        c.run<InvitationToken>(`INSERT INTO invitation_tokens (token_hash, kind, user_id, inviter_id, group_id, topic_id, message, created_at, expires_at)
               VALUES (@token_hash, @kind, @user_id, @inviter_id, @group_id, @topic_id, @message, @created_at, @expires_at) RETURNING ${INVITATION_COLUMNS}`, t),
        returned
      ),
    byHash: (hash) => c.get(`SELECT ${INVITATION_COLUMNS} FROM invitation_tokens WHERE token_hash = ?`, [hash], asRecord<InvitationToken>()),
    markUsed: (id, at) => Effect.asVoid(c.run(`UPDATE invitation_tokens SET used_at = ? WHERE id = ?`, [at, id])),
    byId: (id) => c.get(`SELECT ${INVITATION_COLUMNS} FROM invitation_tokens WHERE id = ?`, [id], asRecord<InvitationToken>()),
    rehash: (id, hash) => Effect.asVoid(c.run(`UPDATE invitation_tokens SET token_hash = ? WHERE id = ?`, [hash, id])),
    supersede: (userId, kind, placeId, at) =>
      Effect.asVoid(c.run(`UPDATE invitation_tokens SET expires_at = ? WHERE user_id = ? AND kind = ? AND used_at IS NULL
                           AND (CASE kind WHEN 'group' THEN group_id ELSE topic_id END) = ? AND expires_at > ?`, [at, userId, kind, placeId, at]))
  },
  loginCodes: {
    insert: (code) =>
      Effect.map(
        c.run<LoginCode>(`INSERT INTO login_codes (user_id, code_salt, code_hash, link_hash, created_at, expires_at)
               VALUES (@user_id, @code_salt, @code_hash, @link_hash, @created_at, @expires_at) RETURNING ${LOGIN_CODE_COLUMNS}`, code),
        returned
      ),
    latestLive: (userId, now) =>
      c.get(`SELECT ${LOGIN_CODE_COLUMNS} FROM login_codes WHERE user_id = ? AND used_at IS NULL AND expires_at > ? ORDER BY id DESC LIMIT 1`, [userId, now],
        asRecord<LoginCode>()),
    byLinkHash: (hash) => c.get(`SELECT ${LOGIN_CODE_COLUMNS} FROM login_codes WHERE link_hash = ?`, [hash], asRecord<LoginCode>()),
    markUsed: (id, at) => Effect.asVoid(c.run(`UPDATE login_codes SET used_at = ? WHERE id = ?`, [at, id])),
    // ids start at 1: keeping 0 keeps none
    endLive: (userId, at, keep = 0) =>
      Effect.asVoid(c.run(`UPDATE login_codes SET used_at = ? WHERE user_id = ? AND used_at IS NULL AND id <> ?`, [at, userId, keep]))
  },
  sessions: {
    insert: (x) =>
      Effect.map(
        c.run<Session>(`INSERT INTO sessions (token_hash, user_id, created_at, last_seen_at, expires_at)
               VALUES (@token_hash, @user_id, @created_at, @last_seen_at, @expires_at) RETURNING ${SESSION_COLUMNS}`, x),
        returned
      ),
    byHash: (hash) => c.get(`SELECT ${SESSION_COLUMNS} FROM sessions WHERE token_hash = ?`, [hash], asRecord<Session>()),
    touch: (id, lastSeenAt, expiresAt) => Effect.asVoid(c.run(`UPDATE sessions SET last_seen_at = ?, expires_at = ? WHERE id = ?`, [lastSeenAt, expiresAt, id])),
    deleteForUser: (userId) => Effect.asVoid(c.run(`DELETE FROM sessions WHERE user_id = ?`, [userId]))
  },
  emailChanges: {
    insert: (x) =>
      Effect.flatMap(
        // an earlier request stops working: only the latest link changes the address
        c.run(`UPDATE email_changes SET used_at = @created_at WHERE user_id = @user_id AND used_at IS NULL`, x),
        () => Effect.map(c.run<EmailChange>(`INSERT INTO email_changes (user_id, new_email, created_at, expires_at)
               VALUES (@user_id, @new_email, @created_at, @expires_at) RETURNING ${EMAIL_CHANGE_COLUMNS}`, x), returned)
      ),
    awaitingLink: (userId) =>
      c.get(`SELECT ${EMAIL_CHANGE_COLUMNS} FROM email_changes WHERE user_id = ? AND token_hash IS NULL AND used_at IS NULL ORDER BY id DESC LIMIT 1`, [userId], asRecord<EmailChange>()),
    setTokenHash: (id, hash) => Effect.asVoid(c.run(`UPDATE email_changes SET token_hash = ? WHERE id = ?`, [hash, id])),
    byTokenHash: (hash) => c.get(`SELECT ${EMAIL_CHANGE_COLUMNS} FROM email_changes WHERE token_hash = ?`, [hash], asRecord<EmailChange>()),
    markUsed: (id, at) => Effect.asVoid(c.run(`UPDATE email_changes SET used_at = ? WHERE id = ?`, [at, id]))
  },
  mutes: {
    // a group's unsubscribe is its volume Mute
    isMuted: (userId, groupId) =>
      Effect.map(c.get(`SELECT 1 AS one FROM group_volumes WHERE user_id = ? AND group_id = ? AND volume = 'mute'`, [userId, groupId]), (r) => r !== undefined),
    mute: (userId, groupId, at) => setVolume("group_volumes", "group_id", userId, groupId, "mute", at),
    insertToken: (t) =>
      Effect.asVoid(c.run(`INSERT INTO unsubscribe_tokens (token_hash, user_id, group_id, created_at) VALUES (@token_hash, @user_id, @group_id, @created_at)`, t)),
    byTokenHash: (hash) =>
      c.get(`SELECT user_id, group_id FROM unsubscribe_tokens WHERE token_hash = ?`, [hash], (r) => ({ user_id: Number(r.user_id), group_id: Number(r.group_id) }))
  },
  // in the database: every server sharing it counts the same sign-in attempts
  rateEvents: {
    record: (key, at) => Effect.asVoid(c.run(`INSERT INTO rate_events (key, at) VALUES (?, ?)`, [key, at])),
    since: (key, since) => c.all(`SELECT at FROM rate_events WHERE key = ? AND at > ? ORDER BY at`, [key, since], (r) => r.at as string),
    prune: (before) => Effect.asVoid(c.run(`DELETE FROM rate_events WHERE at <= ?`, [before]))
  },
  serverSecrets: {
    get: (name, fresh) =>
      Effect.zipRight(
        c.run(`INSERT INTO server_secrets (name, value) VALUES (?, ?) ON CONFLICT DO NOTHING`, [name, fresh]),
        Effect.map(c.get(`SELECT value FROM server_secrets WHERE name = ?`, [name]), (r) => String(r!.value))
      )
  },
  volumes: {
    ofGroup: (userId, groupId) =>
      c.get(`SELECT volume FROM group_volumes WHERE user_id = ? AND group_id = ?`, [userId, groupId], (r) => r.volume as Volume),
    // remembered: a discussion read for the person brings it (store/threads.ts readAhead)
    ofThread: (userId, topicId) =>
      c.remembered(threadVolumeKey(topicId, userId), c.get(`SELECT volume FROM thread_volumes WHERE user_id = ? AND topic_id = ?`, [userId, topicId], (r) => r.volume as Volume)),
    threadsOf: (userId, topicIds) =>
      topicIds.length === 0 ? Effect.succeed([]) : c.all(`SELECT topic_id, volume FROM thread_volumes WHERE user_id = @user AND ${c.dialect.ids.has("topic_id", "ids")}`,
        { user: userId, ids: c.dialect.ids.bind(topicIds) }, (r) => ({ topic_id: Number(r.topic_id), volume: r.volume as Volume })),
    groupsOf: (userId) =>
      c.all(`SELECT group_id, volume FROM group_volumes WHERE user_id = ? ORDER BY group_id`, [userId], (r) => ({ group_id: Number(r.group_id), volume: r.volume as Volume })),
    setGroup: (userId, groupId, volume, at) => setVolume("group_volumes", "group_id", userId, groupId, volume, at),
    setThread: (userId, topicId, volume, at) => setVolume("thread_volumes", "topic_id", userId, topicId, volume, at),
    loudListeners: (topicId, groupId) =>
      c.all(
        // from the loud rows (few, each kind its partial index), never every member of the group: a member's
        // thread volume, where set, overrides the group's
        `SELECT tv.user_id FROM thread_volumes tv
           JOIN memberships m ON m.user_id = tv.user_id AND m.group_id = @group AND m.revoked_at IS NULL AND m.accepted_at IS NOT NULL
         WHERE tv.topic_id = @topic AND tv.volume = 'loud'
         UNION
         SELECT gv.user_id FROM group_volumes gv
           JOIN memberships m ON m.user_id = gv.user_id AND m.group_id = gv.group_id AND m.revoked_at IS NULL AND m.accepted_at IS NOT NULL
         WHERE gv.group_id = @group AND gv.volume = 'loud'
           AND NOT EXISTS (SELECT 1 FROM thread_volumes o WHERE o.user_id = gv.user_id AND o.topic_id = @topic)
         UNION
         SELECT tv.user_id FROM thread_volumes tv JOIN topic_readers tr ON tr.topic_id = tv.topic_id AND tr.user_id = tv.user_id
         WHERE tv.topic_id = @topic AND tv.volume = 'loud' AND tr.guest = TRUE AND tr.revoked_at IS NULL`,
        { topic: topicId, group: groupId ?? 0 },
        (r) => Number(r.user_id)
      )
  },
  replyTokens: {
    insert: (t) =>
      Effect.asVoid(c.run(`INSERT INTO reply_tokens (token_hash, user_id, topic_id, comment_id, created_at) VALUES (@token_hash, @user_id, @topic_id, @comment_id, @created_at)`, { ...t })),
    byHash: (hash) =>
      c.get(`SELECT user_id, topic_id, comment_id, created_at FROM reply_tokens WHERE token_hash = ?`, [hash], (r) => ({
        user_id: Number(r.user_id), topic_id: Number(r.topic_id), comment_id: r.comment_id === null ? null : Number(r.comment_id), created_at: String(r.created_at)
      }))
  },
  inboundMessages: {
    outcomeOf: (messageId) => c.get(`SELECT outcome FROM inbound_messages WHERE message_id = ?`, [messageId], (r) => String(r.outcome)),
    record: (messageId, outcome, at) =>
      Effect.asVoid(c.run(`INSERT INTO inbound_messages (message_id, outcome, received_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`, [messageId, outcome, at]))
  },
  catchUp: {
    subscribers: () =>
      c.all(`SELECT ${USER_COLUMNS} FROM users WHERE catch_up IS NOT NULL AND deactivated_at IS NULL AND email IS NOT NULL ORDER BY id`, [], User.fromRow),
    // one row per thread and kind; the item of the first of a kind names its record (a new thread, a poll)
    activity: (groupIds, since, until) =>
      groupIds.length === 0
        ? Effect.succeed([])
        : c.all(
          `SELECT t.id AS topic_id, t.group_id, i.kind, min(i.itemable_type) AS itemable_type, min(i.itemable_id) AS itemable_id, count(*) AS n
           FROM topic_items i JOIN topics t ON t.id = i.topic_id
           WHERE ${c.dialect.ids.has("t.group_id", "groups")} AND t.discarded_at IS NULL AND i.created_at > @since AND i.created_at <= @until
           GROUP BY t.id, t.group_id, i.kind ORDER BY t.id, i.kind`,
          { groups: c.dialect.ids.bind(groupIds), since, until },
          (r) => ({
            topic_id: Number(r.topic_id), group_id: Number(r.group_id), kind: String(r.kind),
            itemable_type: String(r.itemable_type), itemable_id: Number(r.itemable_id), count: Number(r.n)
          })
        )
  },
  grantedMemberships: {
    record: (membershipId, provider) =>
      Effect.asVoid(c.run(`INSERT INTO granted_memberships (membership_id, provider) VALUES (?, ?) ON CONFLICT DO NOTHING`, [membershipId, provider])),
    activeOf: (userId, provider) =>
      c.all(
        `SELECT m.id AS membership_id, m.group_id FROM granted_memberships g JOIN memberships m ON m.id = g.membership_id
         WHERE m.user_id = ? AND g.provider = ? AND m.revoked_at IS NULL ORDER BY m.id`,
        [userId, provider],
        (r) => ({ membership_id: Number(r.membership_id), group_id: Number(r.group_id) })
      )
  }
}
}
