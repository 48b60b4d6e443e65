import type { InvitationToken, LoginCode, PeopleRepos, Session } from "../ports/people.js"
import type { Runner } from "./db.js"
import { INVITATION_COLUMNS, LOGIN_CODE_COLUMNS, SESSION_COLUMNS } from "../sql/records.js"

const INVITATION = `SELECT ${INVITATION_COLUMNS} FROM invitation_tokens`
const CODE = `SELECT ${LOGIN_CODE_COLUMNS} FROM login_codes`
const SESSION = `SELECT ${SESSION_COLUMNS} FROM sessions`

export const makePeopleRepos = (run: Runner): PeopleRepos => ({
  invitations: {
    insert: (t) =>
      run.write((_, s) => {
        const info = s(`INSERT INTO invitation_tokens (token_hash, kind, user_id, inviter_id, group_id, topic_id, message, created_at, expires_at)
          VALUES (@token_hash, @kind, @user_id, @inviter_id, @group_id, @topic_id, @message, @created_at, @expires_at)`).run(t)
        return s(`${INVITATION} WHERE id = ?`).get(info.lastInsertRowid) as InvitationToken
      }),
    byHash: (hash) => run.read((_, s) => s(`${INVITATION} WHERE token_hash = ?`).get(hash) as InvitationToken | undefined),
    markUsed: (id, at) => run.write((_, s) => void s(`UPDATE invitation_tokens SET used_at = ? WHERE id = ?`).run(at, id)),
    byId: (id) => run.read((_, s) => s(`${INVITATION} WHERE id = ?`).get(id) as InvitationToken | undefined),
    rehash: (id, hash) => run.write((_, s) => void s(`UPDATE invitation_tokens SET token_hash = ? WHERE id = ?`).run(hash, id)),
    supersede: (userId, kind, placeId, at) =>
      run.write((_, s) =>
        void s(`UPDATE invitation_tokens SET expires_at = ? WHERE user_id = ? AND kind = ? AND used_at IS NULL
                AND (CASE kind WHEN 'group' THEN group_id ELSE topic_id END) = ? AND expires_at > ?`).run(at, userId, kind, placeId, at))
  },
  loginCodes: {
    insert: (c) =>
      run.write((_, s) => {
        const info = s(`INSERT INTO login_codes (user_id, code_salt, code_hash, link_hash, created_at, expires_at)
          VALUES (@user_id, @code_salt, @code_hash, @link_hash, @created_at, @expires_at)`).run(c)
        return s(`${CODE} WHERE id = ?`).get(info.lastInsertRowid) as LoginCode
      }),
    latestLive: (userId, now) =>
      run.read((_, s) =>
        s(`${CODE} WHERE user_id = ? AND used_at IS NULL AND expires_at > ? ORDER BY id DESC LIMIT 1`).get(userId, now) as LoginCode | undefined),
    byLinkHash: (hash) => run.read((_, s) => s(`${CODE} WHERE link_hash = ?`).get(hash) as LoginCode | undefined),
    countAttempt: (id) => run.write((_, s) => void s(`UPDATE login_codes SET attempts = attempts + 1 WHERE id = ?`).run(id)),
    markUsed: (id, at) => run.write((_, s) => void s(`UPDATE login_codes SET used_at = ? WHERE id = ?`).run(at, id))
  },
  sessions: {
    insert: (x) =>
      run.write((_, s) => {
        const info = s(`INSERT INTO sessions (token_hash, user_id, created_at, last_seen_at, expires_at)
          VALUES (@token_hash, @user_id, @created_at, @last_seen_at, @expires_at)`).run(x)
        return s(`${SESSION} WHERE id = ?`).get(info.lastInsertRowid) as Session
      }),
    byHash: (hash) => run.read((_, s) => s(`${SESSION} WHERE token_hash = ?`).get(hash) as Session | undefined),
    touch: (id, lastSeenAt, expiresAt) =>
      run.write((_, s) => void s(`UPDATE sessions SET last_seen_at = ?, expires_at = ? WHERE id = ?`).run(lastSeenAt, expiresAt, id)),
    deleteForUser: (userId) => run.write((_, s) => void s(`DELETE FROM sessions WHERE user_id = ?`).run(userId))
  },
  mutes: {
    isMuted: (userId, groupId) => run.read((_, s) => s(`SELECT 1 FROM group_mutes WHERE user_id = ? AND group_id = ?`).get(userId, groupId) !== undefined),
    mute: (userId, groupId, at) =>
      run.write((_, s) => void s(`INSERT OR IGNORE INTO group_mutes (user_id, group_id, created_at) VALUES (?, ?, ?)`).run(userId, groupId, at)),
    insertToken: (t) =>
      run.write((_, s) => void s(`INSERT INTO unsubscribe_tokens (token_hash, user_id, group_id, created_at) VALUES (@token_hash, @user_id, @group_id, @created_at)`).run(t)),
    byTokenHash: (hash) =>
      run.read((_, s) => s(`SELECT user_id, group_id FROM unsubscribe_tokens WHERE token_hash = ?`).get(hash) as { user_id: number; group_id: number } | undefined)
  },
  rateEvents: {
    record: (key, at) => run.write((_, s) => void s(`INSERT INTO rate_events (key, at) VALUES (?, ?)`).run(key, at)),
    since: (key, since) => run.read((_, s) => s(`SELECT at FROM rate_events WHERE key = ? AND at > ? ORDER BY at`).pluck().all(key, since) as Array<string>),
    prune: (before) => run.write((_, s) => void s(`DELETE FROM rate_events WHERE at <= ?`).run(before))
  }
})
