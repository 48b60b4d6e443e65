/** People's tokens: invitations, sign-in codes, sessions, unsubscribe links and mutes, rate events. */
import { Effect } from "effect"
import type { InvitationToken, LoginCode, PeopleRepos, Session } from "../ports/people.js"
import { INVITATION_COLUMNS, LOGIN_CODE_COLUMNS, SESSION_COLUMNS } from "../sql/records.js"
import { asRecord, returned, type SqlClient } from "./client.js"


export const makePeopleRepos = (c: SqlClient): PeopleRepos => ({
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
  mutes: {
    isMuted: (userId, groupId) =>
      Effect.map(c.get(`SELECT 1 AS one FROM group_mutes WHERE user_id = ? AND group_id = ?`, [userId, groupId]), (r) => r !== undefined),
    mute: (userId, groupId, at) =>
      Effect.asVoid(c.run(`INSERT INTO group_mutes (user_id, group_id, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`, [userId, groupId, at])),
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
})
