/**
 * Poll results kept as counters, maintained by triggers in the writing transaction, so that a vote's response
 * no longer re-counts every ballot of the poll (measured: ~20 ms per vote at 9,000 ballots, growing with the
 * poll). Triggers see every write (votes, replaced and revoked ballots, ballots issued, options removed), so
 * the counters cannot drift from the ballots; packages/core/test/poll-tally.test.ts holds them equal to the
 * in-memory definition (rules/pollTypes.ts tallyBallots).
 *
 * A ballot is live when latest = 1 AND revoked_at IS NULL, and counted in results when also cast.
 * An option's voter_count counts ballots that scored it above 0 (a meeting's: any answer).
 */
const live = (s: string) => `(${s}.latest = 1 AND ${s}.revoked_at IS NULL)`
const counted = (s: string) => `(${live(s)} AND ${s}.cast_at IS NOT NULL)`

/** Moves choices `c` (of a poll `p`) into (1) or out of (-1) their options' counters. */
const move = (sign: 1 | -1, from: string, where: string) => `
  UPDATE poll_options SET
    total_score = poll_options.total_score + ${sign} * c.score,
    voter_count = poll_options.voter_count + ${sign} * (c.score > 0 OR p.poll_type = 'meeting'),
    yes_count = poll_options.yes_count + ${sign} * (c.score = 2),
    maybe_count = poll_options.maybe_count + ${sign} * (c.score = 1),
    no_count = poll_options.no_count + ${sign} * (c.score = 0)
  FROM ${from}
  WHERE poll_options.id = c.poll_option_id AND ${where};`

/** One choice row (NEW or OLD) of a counted ballot. */
const moveChoice = (sign: 1 | -1, row: "NEW" | "OLD") =>
  move(sign, `(SELECT ${row}.poll_option_id AS poll_option_id, ${row}.score AS score) c, polls p`, "p.id = poll_options.poll_id")

/** Every choice of a ballot. */
const moveBallot = (sign: 1 | -1) => move(sign, "stance_choices c JOIN polls p ON p.id = NEW.poll_id", "c.stance_id = NEW.id")

export const m009_poll_counters = `
ALTER TABLE poll_options ADD COLUMN total_score INTEGER NOT NULL DEFAULT 0;
ALTER TABLE poll_options ADD COLUMN voter_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE poll_options ADD COLUMN yes_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE poll_options ADD COLUMN maybe_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE poll_options ADD COLUMN no_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE polls ADD COLUMN voters_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE polls ADD COLUMN cast_count INTEGER NOT NULL DEFAULT 0;

-- the counters of polls that already have ballots
UPDATE polls SET
  voters_count = (SELECT count(*) FROM stances s WHERE s.poll_id = polls.id AND ${live("s")}),
  cast_count = (SELECT count(*) FROM stances s WHERE s.poll_id = polls.id AND ${counted("s")});
${move(1, "stance_choices c JOIN stances s ON s.id = c.stance_id JOIN polls p ON p.id = s.poll_id", counted("s"))}

CREATE TRIGGER stance_choices_count_insert AFTER INSERT ON stance_choices
WHEN (SELECT ${counted("s")} FROM stances s WHERE s.id = NEW.stance_id)
BEGIN ${moveChoice(1, "NEW")} END;

CREATE TRIGGER stance_choices_count_delete AFTER DELETE ON stance_choices
WHEN (SELECT ${counted("s")} FROM stances s WHERE s.id = OLD.stance_id)
BEGIN ${moveChoice(-1, "OLD")} END;

CREATE TRIGGER stances_count_insert AFTER INSERT ON stances
BEGIN
  UPDATE polls SET voters_count = voters_count + ${live("NEW")}, cast_count = cast_count + ${counted("NEW")} WHERE id = NEW.poll_id;
END;

CREATE TRIGGER stances_count_delete AFTER DELETE ON stances
BEGIN
  UPDATE polls SET voters_count = voters_count - ${live("OLD")}, cast_count = cast_count - ${counted("OLD")} WHERE id = OLD.poll_id;
END;

-- a ballot entering or leaving the count (cast, replaced, revoked, restored) moves its choices with it
CREATE TRIGGER stances_count_update AFTER UPDATE OF latest, revoked_at, cast_at ON stances
BEGIN
  UPDATE polls SET
    voters_count = voters_count - ${live("OLD")} + ${live("NEW")},
    cast_count = cast_count - ${counted("OLD")} + ${counted("NEW")}
  WHERE id = NEW.poll_id;
END;

CREATE TRIGGER stances_count_leave AFTER UPDATE OF latest, revoked_at, cast_at ON stances
WHEN ${counted("OLD")} AND NOT ${counted("NEW")}
BEGIN ${moveBallot(-1)} END;

CREATE TRIGGER stances_count_enter AFTER UPDATE OF latest, revoked_at, cast_at ON stances
WHEN NOT ${counted("OLD")} AND ${counted("NEW")}
BEGIN ${moveBallot(1)} END;

-- the first voters of each option, in ballot order, read without a sort
CREATE INDEX stance_choices_option_order ON stance_choices(poll_option_id, stance_id, score);
`
