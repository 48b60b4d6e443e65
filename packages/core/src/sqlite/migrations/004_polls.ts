/**
 * Polls, their options, ballots (stances with their choices) and outcomes.
 * A poll's group is its thread's group (read through the topic, not stored twice).
 *
 * Frozen SQL text: a released migration never changes (test: migration checksums).
 */
export const m004_polls = String.raw`
CREATE TABLE polls (
  id INTEGER PRIMARY KEY,
  key TEXT NOT NULL UNIQUE,
  topic_id INTEGER NOT NULL REFERENCES topics(id) ON DELETE CASCADE,
  author_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  title TEXT NOT NULL,
  details TEXT NOT NULL DEFAULT '',
  details_format TEXT NOT NULL DEFAULT 'md' CHECK (details_format IN ('md', 'html')),
  poll_type TEXT NOT NULL CHECK (poll_type IN ('proposal', 'poll', 'count', 'score', 'ranked_choice', 'meeting', 'dot_vote')),
  closing_at TEXT,
  opened_at TEXT,
  closed_at TEXT,
  discarded_at TEXT,
  discarded_by INTEGER REFERENCES users(id) ON DELETE SET NULL,
  specified_voters_only INTEGER NOT NULL DEFAULT 0,
  hide_results TEXT NOT NULL DEFAULT 'off' CHECK (hide_results IN ('off', 'until_vote', 'until_closed')),
  shuffle_options INTEGER NOT NULL DEFAULT 0,
  anonymous INTEGER NOT NULL DEFAULT 0,
  notify_on_closing_soon TEXT NOT NULL DEFAULT 'nobody'
    CHECK (notify_on_closing_soon IN ('nobody', 'author', 'undecided_voters', 'voters')),
  min_score INTEGER NOT NULL,
  max_score INTEGER NOT NULL,
  minimum_stance_choices INTEGER NOT NULL,
  maximum_stance_choices INTEGER NOT NULL,
  dots_per_person INTEGER NOT NULL,
  can_respond_maybe INTEGER NOT NULL,
  -- scheduler marker: the 24 h reminder of the current voting period was sent
  closing_soon_sent_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX polls_topic ON polls(topic_id);
CREATE INDEX polls_author ON polls(author_id);
CREATE INDEX polls_open ON polls(closing_at) WHERE closed_at IS NULL AND opened_at IS NOT NULL AND discarded_at IS NULL;
CREATE TRIGGER polls_delete_items AFTER DELETE ON polls
BEGIN
  DELETE FROM topic_items WHERE itemable_type = 'Poll' AND itemable_id = OLD.id;
  DELETE FROM topics WHERE id = OLD.topic_id AND topicable_type = 'Poll';
END;

CREATE TABLE poll_options (
  id INTEGER PRIMARY KEY,
  poll_id INTEGER NOT NULL REFERENCES polls(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  priority INTEGER NOT NULL,
  UNIQUE (poll_id, name)
);

-- ballots: one row per revision; latest = 1 marks the current one (issued when cast_at is null)
CREATE TABLE stances (
  id INTEGER PRIMARY KEY,
  poll_id INTEGER NOT NULL REFERENCES polls(id) ON DELETE CASCADE,
  participant_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  inviter_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
  latest INTEGER NOT NULL DEFAULT 1,
  cast_at TEXT,
  reason TEXT,
  reason_format TEXT NOT NULL DEFAULT 'md' CHECK (reason_format IN ('md', 'html')),
  revoked_at TEXT,
  revoker_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX stances_latest ON stances(poll_id, participant_id) WHERE latest = 1;
CREATE INDEX stances_participant ON stances(participant_id);
CREATE TRIGGER stances_delete_items AFTER DELETE ON stances
BEGIN
  DELETE FROM topic_items WHERE itemable_type = 'Stance' AND itemable_id = OLD.id;
END;

-- removing an option removes the votes on it (Loomio: stance_choices dependent: :destroy)
CREATE TABLE stance_choices (
  stance_id INTEGER NOT NULL REFERENCES stances(id) ON DELETE CASCADE,
  poll_option_id INTEGER NOT NULL REFERENCES poll_options(id) ON DELETE CASCADE,
  score INTEGER NOT NULL,
  PRIMARY KEY (stance_id, poll_option_id)
);
CREATE INDEX stance_choices_option ON stance_choices(poll_option_id);

CREATE TABLE outcomes (
  id INTEGER PRIMARY KEY,
  poll_id INTEGER NOT NULL REFERENCES polls(id) ON DELETE CASCADE,
  author_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  statement TEXT NOT NULL,
  statement_format TEXT NOT NULL DEFAULT 'md' CHECK (statement_format IN ('md', 'html')),
  poll_option_id INTEGER REFERENCES poll_options(id) ON DELETE SET NULL,
  review_on TEXT,
  latest INTEGER NOT NULL DEFAULT 1,
  -- scheduler marker: outcome_review_due was raised
  review_sent_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX outcomes_poll ON outcomes(poll_id);
CREATE INDEX outcomes_review ON outcomes(review_on) WHERE review_sent_at IS NULL;
CREATE TRIGGER outcomes_delete_items AFTER DELETE ON outcomes
BEGIN
  DELETE FROM topic_items WHERE itemable_type = 'Outcome' AND itemable_id = OLD.id;
END;
`
