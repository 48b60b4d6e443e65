/**
 * A group's discussions, polls and subgroups counted on the group row, as its membership counters are
 * (migration 010): recounting them on every group document read every thread of the group, so a read cost
 * grew with the group's size. Triggers keep them equal to a recount through every change: a thread started,
 * discarded, restored, moved or deleted; a poll made, discarded or deleted (with its thread or alone); a
 * subgroup made, moved or deleted.
 *
 * Frozen SQL text: a released migration never changes (test: migration checksums).
 */
export const m016_group_content_counters = String.raw`
ALTER TABLE groups ADD COLUMN discussions_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE groups ADD COLUMN polls_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE groups ADD COLUMN subgroups_count INTEGER NOT NULL DEFAULT 0;
UPDATE groups SET
  discussions_count = (SELECT count(*) FROM topics t WHERE t.group_id = groups.id AND t.topicable_type = 'Discussion' AND t.discarded_at IS NULL),
  polls_count = (SELECT count(*) FROM polls p JOIN topics t ON t.id = p.topic_id WHERE t.group_id = groups.id AND p.discarded_at IS NULL),
  subgroups_count = (SELECT count(*) FROM groups s WHERE s.parent_id = groups.id);

CREATE TRIGGER groups_count_topic_insert AFTER INSERT ON topics
WHEN NEW.topicable_type = 'Discussion' AND NEW.discarded_at IS NULL
BEGIN
  UPDATE groups SET discussions_count = discussions_count + 1 WHERE id = NEW.group_id;
END;
CREATE TRIGGER groups_count_topic_update AFTER UPDATE OF group_id, topicable_type, discarded_at ON topics
BEGIN
  UPDATE groups SET discussions_count = discussions_count - 1
    WHERE id = OLD.group_id AND OLD.topicable_type = 'Discussion' AND OLD.discarded_at IS NULL;
  UPDATE groups SET discussions_count = discussions_count + 1
    WHERE id = NEW.group_id AND NEW.topicable_type = 'Discussion' AND NEW.discarded_at IS NULL;
  UPDATE groups SET polls_count = polls_count - (SELECT count(*) FROM polls p WHERE p.topic_id = OLD.id AND p.discarded_at IS NULL)
    WHERE id = OLD.group_id AND OLD.group_id IS NOT NEW.group_id;
  UPDATE groups SET polls_count = polls_count + (SELECT count(*) FROM polls p WHERE p.topic_id = NEW.id AND p.discarded_at IS NULL)
    WHERE id = NEW.group_id AND OLD.group_id IS NOT NEW.group_id;
END;
-- before the thread goes: its polls are still there to be counted out (their own delete trigger then finds no thread)
CREATE TRIGGER groups_count_topic_delete BEFORE DELETE ON topics
BEGIN
  UPDATE groups SET discussions_count = discussions_count - 1
    WHERE id = OLD.group_id AND OLD.topicable_type = 'Discussion' AND OLD.discarded_at IS NULL;
  UPDATE groups SET polls_count = polls_count - (SELECT count(*) FROM polls p WHERE p.topic_id = OLD.id AND p.discarded_at IS NULL)
    WHERE id = OLD.group_id;
END;

CREATE TRIGGER groups_count_poll_insert AFTER INSERT ON polls
WHEN NEW.discarded_at IS NULL
BEGIN
  UPDATE groups SET polls_count = polls_count + 1 WHERE id = (SELECT group_id FROM topics WHERE id = NEW.topic_id);
END;
CREATE TRIGGER groups_count_poll_update AFTER UPDATE OF topic_id, discarded_at ON polls
BEGIN
  UPDATE groups SET polls_count = polls_count - 1
    WHERE id = (SELECT group_id FROM topics WHERE id = OLD.topic_id) AND OLD.discarded_at IS NULL;
  UPDATE groups SET polls_count = polls_count + 1
    WHERE id = (SELECT group_id FROM topics WHERE id = NEW.topic_id) AND NEW.discarded_at IS NULL;
END;
CREATE TRIGGER groups_count_poll_delete AFTER DELETE ON polls
WHEN OLD.discarded_at IS NULL
BEGIN
  UPDATE groups SET polls_count = polls_count - 1 WHERE id = (SELECT group_id FROM topics WHERE id = OLD.topic_id);
END;

CREATE TRIGGER groups_count_subgroup_insert AFTER INSERT ON groups
WHEN NEW.parent_id IS NOT NULL
BEGIN
  UPDATE groups SET subgroups_count = subgroups_count + 1 WHERE id = NEW.parent_id;
END;
CREATE TRIGGER groups_count_subgroup_update AFTER UPDATE OF parent_id ON groups
WHEN OLD.parent_id IS NOT NEW.parent_id
BEGIN
  UPDATE groups SET subgroups_count = subgroups_count - 1 WHERE id = OLD.parent_id;
  UPDATE groups SET subgroups_count = subgroups_count + 1 WHERE id = NEW.parent_id;
END;
CREATE TRIGGER groups_count_subgroup_delete AFTER DELETE ON groups
WHEN OLD.parent_id IS NOT NULL
BEGIN
  UPDATE groups SET subgroups_count = subgroups_count - 1 WHERE id = OLD.parent_id;
END;
`
