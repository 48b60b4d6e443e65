/**
 * Keeping up (decisions §13): a person's read state in a thread, as Loomio's reader (the items read as ranges of
 * sequence ids, when last read, dismissed), the thread's count of people who have read it (Loomio's seen_by_count,
 * kept by triggers), and the live pages' log: what each write tells open pages, kept a day so that a page that
 * reconnects with its last event's id misses nothing (AUTOINCREMENT: an id is never given twice, even once pruned);
 * a poll's newest votes by when they were cast (its page lists them, with their reactions).
 *
 * Frozen SQL text: a released migration never changes (test: migration checksums).
 */
export const m031_keeping_up = String.raw`
ALTER TABLE topic_readers ADD COLUMN last_read_at TEXT;
ALTER TABLE topic_readers ADD COLUMN read_ranges TEXT;
ALTER TABLE topic_readers ADD COLUMN dismissed_at TEXT;
ALTER TABLE topics ADD COLUMN seen_by_count INTEGER NOT NULL DEFAULT 0;
CREATE TRIGGER topics_seen_insert AFTER INSERT ON topic_readers WHEN NEW.last_read_at IS NOT NULL BEGIN
  UPDATE topics SET seen_by_count = seen_by_count + 1 WHERE id = NEW.topic_id;
END;
CREATE TRIGGER topics_seen_update AFTER UPDATE OF last_read_at ON topic_readers
  WHEN OLD.last_read_at IS NULL AND NEW.last_read_at IS NOT NULL BEGIN
  UPDATE topics SET seen_by_count = seen_by_count + 1 WHERE id = NEW.topic_id;
END;
CREATE TRIGGER topics_seen_delete AFTER DELETE ON topic_readers WHEN OLD.last_read_at IS NOT NULL BEGIN
  UPDATE topics SET seen_by_count = seen_by_count - 1 WHERE id = OLD.topic_id;
END;
CREATE TABLE live_events (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  kind TEXT NOT NULL,
  group_id INTEGER,
  topic_id INTEGER,
  user_id INTEGER,
  created_at TEXT NOT NULL
);
CREATE INDEX live_events_created ON live_events(created_at);
CREATE INDEX stances_cast ON stances(poll_id, cast_at) WHERE latest = 1 AND revoked_at IS NULL;
`
