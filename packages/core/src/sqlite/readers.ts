import type { ReadersRepo } from "../ports/store.js"
import type { Runner } from "./db.js"
import { toReader } from "../sql/records.js"
import { fromBools } from "../sql/rows.js"


export const makeReadersRepo = (run: Runner): ReadersRepo => ({
  find: (topicId, userId) =>
    run.read((_, s) => {
      const row = s(`SELECT * FROM topic_readers WHERE topic_id = ? AND user_id = ?`).get(topicId, userId)
      return row === undefined ? undefined : toReader(row)
    }),
  upsert: (r) =>
    run.write((_, s) =>
      toReader(
        s(`INSERT INTO topic_readers (topic_id, user_id, inviter_id, guest, created_at)
           VALUES (@topic_id, @user_id, @inviter_id, @guest, @created_at)
           ON CONFLICT (topic_id, user_id) DO UPDATE SET guest = max(guest, excluded.guest), revoked_at = NULL
           RETURNING *`).get(fromBools({ ...r }))
      )),
  guestsOf: (topicId) =>
    run.read((_, s) =>
      (s(`SELECT user_id FROM topic_readers WHERE topic_id = ? AND guest = 1 AND revoked_at IS NULL`).all(topicId) as Array<{ user_id: number }>)
        .map((r) => r.user_id))
})
