/**
 * Poll results kept as counters, maintained by triggers in the writing transaction, so that a vote's response
 * no longer re-counts every ballot of the poll (measured: ~20 ms per vote at 9,000 ballots, growing with the
 * poll). Triggers see every write (votes, replaced and revoked ballots, ballots issued, options removed), so
 * the counters cannot drift from the ballots; packages/core/test/poll-tally.test.ts holds them equal to the
 * in-memory definition (rules/pollTypes.ts tallyBallots).
 *
 * A ballot is live when latest = 1 AND revoked_at IS NULL, and counted in results when also cast.
 * An option's voter_count counts ballots that scored it above 0 (a meeting's: any answer).
 *
 * Frozen SQL text: a released migration never changes (test: migration checksums).
 */
export const m009_poll_counters = String.raw`
ALTER TABLE poll_options ADD COLUMN total_score INTEGER NOT NULL DEFAULT 0;
ALTER TABLE poll_options ADD COLUMN voter_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE poll_options ADD COLUMN yes_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE poll_options ADD COLUMN maybe_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE poll_options ADD COLUMN no_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE polls ADD COLUMN voters_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE polls ADD COLUMN cast_count INTEGER NOT NULL DEFAULT 0;

-- the counters of polls that already have ballots
UPDATE polls SET
  voters_count = (SELECT count(*) FROM stances s WHERE s.poll_id = polls.id AND (s.latest = 1 AND s.revoked_at IS NULL)),
  cast_count = (SELECT count(*) FROM stances s WHERE s.poll_id = polls.id AND ((s.latest = 1 AND s.revoked_at IS NULL) AND s.cast_at IS NOT NULL));

  UPDATE poll_options SET
    total_score = poll_options.total_score + 1 * c.score,
    voter_count = poll_options.voter_count + 1 * (c.score > 0 OR p.poll_type = 'meeting'),
    yes_count = poll_options.yes_count + 1 * (c.score = 2),
    maybe_count = poll_options.maybe_count + 1 * (c.score = 1),
    no_count = poll_options.no_count + 1 * (c.score = 0)
  FROM stance_choices c JOIN stances s ON s.id = c.stance_id JOIN polls p ON p.id = s.poll_id
  WHERE poll_options.id = c.poll_option_id AND ((s.latest = 1 AND s.revoked_at IS NULL) AND s.cast_at IS NOT NULL);

CREATE TRIGGER stance_choices_count_insert AFTER INSERT ON stance_choices
WHEN (SELECT ((s.latest = 1 AND s.revoked_at IS NULL) AND s.cast_at IS NOT NULL) FROM stances s WHERE s.id = NEW.stance_id)
BEGIN 
  UPDATE poll_options SET
    total_score = poll_options.total_score + 1 * c.score,
    voter_count = poll_options.voter_count + 1 * (c.score > 0 OR p.poll_type = 'meeting'),
    yes_count = poll_options.yes_count + 1 * (c.score = 2),
    maybe_count = poll_options.maybe_count + 1 * (c.score = 1),
    no_count = poll_options.no_count + 1 * (c.score = 0)
  FROM (SELECT NEW.poll_option_id AS poll_option_id, NEW.score AS score) c, polls p
  WHERE poll_options.id = c.poll_option_id AND p.id = poll_options.poll_id; END;

CREATE TRIGGER stance_choices_count_delete AFTER DELETE ON stance_choices
WHEN (SELECT ((s.latest = 1 AND s.revoked_at IS NULL) AND s.cast_at IS NOT NULL) FROM stances s WHERE s.id = OLD.stance_id)
BEGIN 
  UPDATE poll_options SET
    total_score = poll_options.total_score + -1 * c.score,
    voter_count = poll_options.voter_count + -1 * (c.score > 0 OR p.poll_type = 'meeting'),
    yes_count = poll_options.yes_count + -1 * (c.score = 2),
    maybe_count = poll_options.maybe_count + -1 * (c.score = 1),
    no_count = poll_options.no_count + -1 * (c.score = 0)
  FROM (SELECT OLD.poll_option_id AS poll_option_id, OLD.score AS score) c, polls p
  WHERE poll_options.id = c.poll_option_id AND p.id = poll_options.poll_id; END;

CREATE TRIGGER stances_count_insert AFTER INSERT ON stances
BEGIN
  UPDATE polls SET voters_count = voters_count + (NEW.latest = 1 AND NEW.revoked_at IS NULL), cast_count = cast_count + ((NEW.latest = 1 AND NEW.revoked_at IS NULL) AND NEW.cast_at IS NOT NULL) WHERE id = NEW.poll_id;
END;

CREATE TRIGGER stances_count_delete AFTER DELETE ON stances
BEGIN
  UPDATE polls SET voters_count = voters_count - (OLD.latest = 1 AND OLD.revoked_at IS NULL), cast_count = cast_count - ((OLD.latest = 1 AND OLD.revoked_at IS NULL) AND OLD.cast_at IS NOT NULL) WHERE id = OLD.poll_id;
END;

-- a ballot entering or leaving the count (cast, replaced, revoked, restored) moves its choices with it
CREATE TRIGGER stances_count_update AFTER UPDATE OF latest, revoked_at, cast_at ON stances
BEGIN
  UPDATE polls SET
    voters_count = voters_count - (OLD.latest = 1 AND OLD.revoked_at IS NULL) + (NEW.latest = 1 AND NEW.revoked_at IS NULL),
    cast_count = cast_count - ((OLD.latest = 1 AND OLD.revoked_at IS NULL) AND OLD.cast_at IS NOT NULL) + ((NEW.latest = 1 AND NEW.revoked_at IS NULL) AND NEW.cast_at IS NOT NULL)
  WHERE id = NEW.poll_id;
END;

CREATE TRIGGER stances_count_leave AFTER UPDATE OF latest, revoked_at, cast_at ON stances
WHEN ((OLD.latest = 1 AND OLD.revoked_at IS NULL) AND OLD.cast_at IS NOT NULL) AND NOT ((NEW.latest = 1 AND NEW.revoked_at IS NULL) AND NEW.cast_at IS NOT NULL)
BEGIN 
  UPDATE poll_options SET
    total_score = poll_options.total_score + -1 * c.score,
    voter_count = poll_options.voter_count + -1 * (c.score > 0 OR p.poll_type = 'meeting'),
    yes_count = poll_options.yes_count + -1 * (c.score = 2),
    maybe_count = poll_options.maybe_count + -1 * (c.score = 1),
    no_count = poll_options.no_count + -1 * (c.score = 0)
  FROM stance_choices c JOIN polls p ON p.id = NEW.poll_id
  WHERE poll_options.id = c.poll_option_id AND c.stance_id = NEW.id; END;

CREATE TRIGGER stances_count_enter AFTER UPDATE OF latest, revoked_at, cast_at ON stances
WHEN NOT ((OLD.latest = 1 AND OLD.revoked_at IS NULL) AND OLD.cast_at IS NOT NULL) AND ((NEW.latest = 1 AND NEW.revoked_at IS NULL) AND NEW.cast_at IS NOT NULL)
BEGIN 
  UPDATE poll_options SET
    total_score = poll_options.total_score + 1 * c.score,
    voter_count = poll_options.voter_count + 1 * (c.score > 0 OR p.poll_type = 'meeting'),
    yes_count = poll_options.yes_count + 1 * (c.score = 2),
    maybe_count = poll_options.maybe_count + 1 * (c.score = 1),
    no_count = poll_options.no_count + 1 * (c.score = 0)
  FROM stance_choices c JOIN polls p ON p.id = NEW.poll_id
  WHERE poll_options.id = c.poll_option_id AND c.stance_id = NEW.id; END;

-- the first voters of each option, in ballot order, read without a sort
CREATE INDEX stance_choices_option_order ON stance_choices(poll_option_id, stance_id, score);
`
