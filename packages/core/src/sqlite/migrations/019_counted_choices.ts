/**
 * Each choice carries whether its ballot is counted (live and cast), kept by triggers, so that the voters an
 * option names (the first VOTER_NAMES by ballot) are read from the counted choices alone. Walking the option's
 * choices and skipping the replaced ballots' made a poll's document cost more with every changed vote
 * (measured: 150 µs per option after one voter changed their vote 1,200 times; bench/growth.js's votes had a
 * p99 of 430–530 ms).
 *
 * Frozen SQL text: a released migration never changes (test: migration checksums).
 */
export const m019_counted_choices = String.raw`
ALTER TABLE stance_choices ADD COLUMN counted INTEGER NOT NULL DEFAULT 0;
UPDATE stance_choices SET counted = 1
WHERE stance_id IN (SELECT id FROM stances WHERE latest = 1 AND revoked_at IS NULL AND cast_at IS NOT NULL);

CREATE TRIGGER stance_choices_counted_insert AFTER INSERT ON stance_choices
WHEN (SELECT latest = 1 AND revoked_at IS NULL AND cast_at IS NOT NULL FROM stances WHERE id = NEW.stance_id)
BEGIN
  UPDATE stance_choices SET counted = 1 WHERE stance_id = NEW.stance_id AND poll_option_id = NEW.poll_option_id;
END;

CREATE TRIGGER stances_counted_update AFTER UPDATE OF latest, revoked_at, cast_at ON stances
BEGIN
  UPDATE stance_choices SET counted = (NEW.latest = 1 AND NEW.revoked_at IS NULL AND NEW.cast_at IS NOT NULL)
  WHERE stance_id = NEW.id;
END;

DROP INDEX stance_choices_option_order;
CREATE INDEX stance_choices_counted ON stance_choices(poll_option_id, stance_id, score) WHERE counted = 1;
`
