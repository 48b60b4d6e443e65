/**
 * PostgreSQL's own types (issue 24): flags as `boolean`, instants as `timestamptz`, JSON as `jsonb`, a review date
 * as `date`, converted in place; what a reporting tool or a DBA reads is what the column holds. The API answers as
 * before: the adapter reads these back as SQLite gives them (postgres/db.ts), so the code above both stores is one.
 * Triggers whose column lists name a converted column, partial indexes whose predicates compared a flag with 1,
 * and the trigger functions that did arithmetic on flags are made again for the new types. Frozen SQL text.
 */
export const m006_native_types = String.raw`
DROP TRIGGER memberships_counts ON memberships;
DROP TRIGGER topics_counts_write ON topics;
DROP TRIGGER polls_group_counts ON polls;
DROP TRIGGER stances_counts ON stances;
DROP TRIGGER discussions_search ON discussions;
DROP TRIGGER comments_search ON comments;
DROP TRIGGER polls_search ON polls;
DROP TRIGGER stances_search ON stances;
DROP TRIGGER outcomes_search ON outcomes;
DROP INDEX stances_latest;
DROP INDEX stances_report;
DROP INDEX stance_choices_counted;

ALTER TABLE users
  ALTER COLUMN is_admin DROP DEFAULT, ALTER COLUMN is_admin TYPE boolean USING is_admin <> 0, ALTER COLUMN is_admin SET DEFAULT false,
  ALTER COLUMN bot DROP DEFAULT, ALTER COLUMN bot TYPE boolean USING bot <> 0, ALTER COLUMN bot SET DEFAULT false,
  ALTER COLUMN deactivated_at TYPE timestamptz USING deactivated_at::timestamptz,
  ALTER COLUMN redacted_at TYPE timestamptz USING redacted_at::timestamptz,
  ALTER COLUMN catch_up_sent_at TYPE timestamptz USING catch_up_sent_at::timestamptz,
  ALTER COLUMN created_at TYPE timestamptz USING created_at::timestamptz,
  ALTER COLUMN updated_at TYPE timestamptz USING updated_at::timestamptz;
ALTER TABLE groups
  ALTER COLUMN enabled DROP DEFAULT, ALTER COLUMN enabled TYPE boolean USING enabled <> 0, ALTER COLUMN enabled SET DEFAULT true,
  ALTER COLUMN is_visible_to_public DROP DEFAULT, ALTER COLUMN is_visible_to_public TYPE boolean USING is_visible_to_public <> 0,
  ALTER COLUMN is_visible_to_public SET DEFAULT false,
  ALTER COLUMN is_visible_to_parent_members DROP DEFAULT,
  ALTER COLUMN is_visible_to_parent_members TYPE boolean USING is_visible_to_parent_members <> 0,
  ALTER COLUMN is_visible_to_parent_members SET DEFAULT false,
  ALTER COLUMN parent_members_can_see_discussions DROP DEFAULT,
  ALTER COLUMN parent_members_can_see_discussions TYPE boolean USING parent_members_can_see_discussions <> 0,
  ALTER COLUMN parent_members_can_see_discussions SET DEFAULT false,
  ALTER COLUMN members_can_start_discussions DROP DEFAULT,
  ALTER COLUMN members_can_start_discussions TYPE boolean USING members_can_start_discussions <> 0,
  ALTER COLUMN members_can_start_discussions SET DEFAULT true,
  ALTER COLUMN members_can_edit_discussions DROP DEFAULT,
  ALTER COLUMN members_can_edit_discussions TYPE boolean USING members_can_edit_discussions <> 0,
  ALTER COLUMN members_can_edit_discussions SET DEFAULT true,
  ALTER COLUMN members_can_edit_comments DROP DEFAULT,
  ALTER COLUMN members_can_edit_comments TYPE boolean USING members_can_edit_comments <> 0,
  ALTER COLUMN members_can_edit_comments SET DEFAULT true,
  ALTER COLUMN members_can_raise_motions DROP DEFAULT,
  ALTER COLUMN members_can_raise_motions TYPE boolean USING members_can_raise_motions <> 0,
  ALTER COLUMN members_can_raise_motions SET DEFAULT true,
  ALTER COLUMN members_can_vote DROP DEFAULT, ALTER COLUMN members_can_vote TYPE boolean USING members_can_vote <> 0,
  ALTER COLUMN members_can_vote SET DEFAULT true,
  ALTER COLUMN members_can_add_members DROP DEFAULT, ALTER COLUMN members_can_add_members TYPE boolean USING members_can_add_members <> 0,
  ALTER COLUMN members_can_add_members SET DEFAULT false,
  ALTER COLUMN admins_can_edit_user_content DROP DEFAULT,
  ALTER COLUMN admins_can_edit_user_content TYPE boolean USING admins_can_edit_user_content <> 0,
  ALTER COLUMN admins_can_edit_user_content SET DEFAULT true,
  ALTER COLUMN created_at TYPE timestamptz USING created_at::timestamptz,
  ALTER COLUMN updated_at TYPE timestamptz USING updated_at::timestamptz;
ALTER TABLE memberships
  ALTER COLUMN admin DROP DEFAULT, ALTER COLUMN admin TYPE boolean USING admin <> 0, ALTER COLUMN admin SET DEFAULT false,
  ALTER COLUMN delegate DROP DEFAULT, ALTER COLUMN delegate TYPE boolean USING delegate <> 0, ALTER COLUMN delegate SET DEFAULT false,
  ALTER COLUMN accepted_at TYPE timestamptz USING accepted_at::timestamptz,
  ALTER COLUMN revoked_at TYPE timestamptz USING revoked_at::timestamptz,
  ALTER COLUMN created_at TYPE timestamptz USING created_at::timestamptz,
  ALTER COLUMN updated_at TYPE timestamptz USING updated_at::timestamptz;
ALTER TABLE mail_outbox
  ALTER COLUMN created_at TYPE timestamptz USING created_at::timestamptz,
  ALTER COLUMN sent_at TYPE timestamptz USING sent_at::timestamptz,
  ALTER COLUMN next_attempt_at TYPE timestamptz USING next_attempt_at::timestamptz,
  ALTER COLUMN claimed_until TYPE timestamptz USING claimed_until::timestamptz;
ALTER TABLE topics
  ALTER COLUMN private DROP DEFAULT, ALTER COLUMN private TYPE boolean USING private <> 0, ALTER COLUMN private SET DEFAULT true,
  ALTER COLUMN tags DROP DEFAULT, ALTER COLUMN tags TYPE jsonb USING tags::jsonb, ALTER COLUMN tags SET DEFAULT '[]'::jsonb,
  ALTER COLUMN last_activity_at TYPE timestamptz USING last_activity_at::timestamptz,
  ALTER COLUMN closed_at TYPE timestamptz USING closed_at::timestamptz,
  ALTER COLUMN discarded_at TYPE timestamptz USING discarded_at::timestamptz,
  ALTER COLUMN created_at TYPE timestamptz USING created_at::timestamptz,
  ALTER COLUMN updated_at TYPE timestamptz USING updated_at::timestamptz;
ALTER TABLE discussions
  ALTER COLUMN discarded_at TYPE timestamptz USING discarded_at::timestamptz,
  ALTER COLUMN created_at TYPE timestamptz USING created_at::timestamptz,
  ALTER COLUMN updated_at TYPE timestamptz USING updated_at::timestamptz;
ALTER TABLE comments
  ALTER COLUMN edited_at TYPE timestamptz USING edited_at::timestamptz,
  ALTER COLUMN discarded_at TYPE timestamptz USING discarded_at::timestamptz,
  ALTER COLUMN created_at TYPE timestamptz USING created_at::timestamptz,
  ALTER COLUMN updated_at TYPE timestamptz USING updated_at::timestamptz;
ALTER TABLE topic_items ALTER COLUMN created_at TYPE timestamptz USING created_at::timestamptz;
ALTER TABLE reactions ALTER COLUMN created_at TYPE timestamptz USING created_at::timestamptz;
ALTER TABLE topic_readers
  ALTER COLUMN guest DROP DEFAULT, ALTER COLUMN guest TYPE boolean USING guest <> 0, ALTER COLUMN guest SET DEFAULT false,
  ALTER COLUMN revoked_at TYPE timestamptz USING revoked_at::timestamptz,
  ALTER COLUMN created_at TYPE timestamptz USING created_at::timestamptz;
ALTER TABLE chatbots
  ALTER COLUMN event_kinds DROP DEFAULT, ALTER COLUMN event_kinds TYPE jsonb USING event_kinds::jsonb,
  ALTER COLUMN event_kinds SET DEFAULT '[]'::jsonb,
  ALTER COLUMN notification_only DROP DEFAULT, ALTER COLUMN notification_only TYPE boolean USING notification_only <> 0,
  ALTER COLUMN notification_only SET DEFAULT false,
  ALTER COLUMN created_at TYPE timestamptz USING created_at::timestamptz,
  ALTER COLUMN updated_at TYPE timestamptz USING updated_at::timestamptz;
ALTER TABLE webhook_events
  ALTER COLUMN message TYPE jsonb USING message::jsonb,
  ALTER COLUMN created_at TYPE timestamptz USING created_at::timestamptz;
ALTER TABLE webhook_deliveries
  ALTER COLUMN next_attempt_at TYPE timestamptz USING next_attempt_at::timestamptz,
  ALTER COLUMN claimed_until TYPE timestamptz USING claimed_until::timestamptz,
  ALTER COLUMN delivered_at TYPE timestamptz USING delivered_at::timestamptz,
  ALTER COLUMN created_at TYPE timestamptz USING created_at::timestamptz;
ALTER TABLE polls
  ALTER COLUMN closing_at TYPE timestamptz USING closing_at::timestamptz,
  ALTER COLUMN opened_at TYPE timestamptz USING opened_at::timestamptz,
  ALTER COLUMN closed_at TYPE timestamptz USING closed_at::timestamptz,
  ALTER COLUMN discarded_at TYPE timestamptz USING discarded_at::timestamptz,
  ALTER COLUMN specified_voters_only DROP DEFAULT, ALTER COLUMN specified_voters_only TYPE boolean USING specified_voters_only <> 0,
  ALTER COLUMN specified_voters_only SET DEFAULT false,
  ALTER COLUMN shuffle_options DROP DEFAULT, ALTER COLUMN shuffle_options TYPE boolean USING shuffle_options <> 0,
  ALTER COLUMN shuffle_options SET DEFAULT false,
  ALTER COLUMN anonymous DROP DEFAULT, ALTER COLUMN anonymous TYPE boolean USING anonymous <> 0, ALTER COLUMN anonymous SET DEFAULT false,
  ALTER COLUMN can_respond_maybe TYPE boolean USING can_respond_maybe <> 0,
  ALTER COLUMN closing_soon_sent_at TYPE timestamptz USING closing_soon_sent_at::timestamptz,
  ALTER COLUMN created_at TYPE timestamptz USING created_at::timestamptz,
  ALTER COLUMN updated_at TYPE timestamptz USING updated_at::timestamptz;
ALTER TABLE stances
  ALTER COLUMN latest DROP DEFAULT, ALTER COLUMN latest TYPE boolean USING latest <> 0, ALTER COLUMN latest SET DEFAULT true,
  ALTER COLUMN cast_at TYPE timestamptz USING cast_at::timestamptz,
  ALTER COLUMN revoked_at TYPE timestamptz USING revoked_at::timestamptz,
  ALTER COLUMN created_at TYPE timestamptz USING created_at::timestamptz,
  ALTER COLUMN updated_at TYPE timestamptz USING updated_at::timestamptz;
ALTER TABLE stance_choices
  ALTER COLUMN counted DROP DEFAULT, ALTER COLUMN counted TYPE boolean USING counted <> 0, ALTER COLUMN counted SET DEFAULT false;
ALTER TABLE outcomes
  ALTER COLUMN review_on TYPE date USING review_on::date,
  ALTER COLUMN latest DROP DEFAULT, ALTER COLUMN latest TYPE boolean USING latest <> 0, ALTER COLUMN latest SET DEFAULT true,
  ALTER COLUMN review_sent_at TYPE timestamptz USING review_sent_at::timestamptz,
  ALTER COLUMN created_at TYPE timestamptz USING created_at::timestamptz,
  ALTER COLUMN updated_at TYPE timestamptz USING updated_at::timestamptz;
ALTER TABLE search_documents ALTER COLUMN authored_at TYPE timestamptz USING authored_at::timestamptz;
ALTER TABLE invitation_tokens
  ALTER COLUMN created_at TYPE timestamptz USING created_at::timestamptz,
  ALTER COLUMN expires_at TYPE timestamptz USING expires_at::timestamptz,
  ALTER COLUMN used_at TYPE timestamptz USING used_at::timestamptz;
ALTER TABLE login_codes
  ALTER COLUMN created_at TYPE timestamptz USING created_at::timestamptz,
  ALTER COLUMN expires_at TYPE timestamptz USING expires_at::timestamptz,
  ALTER COLUMN used_at TYPE timestamptz USING used_at::timestamptz;
ALTER TABLE sessions
  ALTER COLUMN created_at TYPE timestamptz USING created_at::timestamptz,
  ALTER COLUMN last_seen_at TYPE timestamptz USING last_seen_at::timestamptz,
  ALTER COLUMN expires_at TYPE timestamptz USING expires_at::timestamptz;
ALTER TABLE rate_events ALTER COLUMN at TYPE timestamptz USING at::timestamptz;
ALTER TABLE unsubscribe_tokens ALTER COLUMN created_at TYPE timestamptz USING created_at::timestamptz;
ALTER TABLE imports
  ALTER COLUMN counts TYPE jsonb USING counts::jsonb,
  ALTER COLUMN created_at TYPE timestamptz USING created_at::timestamptz;
ALTER TABLE reply_tokens ALTER COLUMN created_at TYPE timestamptz USING created_at::timestamptz;
ALTER TABLE inbound_messages ALTER COLUMN received_at TYPE timestamptz USING received_at::timestamptz;
ALTER TABLE group_volumes ALTER COLUMN updated_at TYPE timestamptz USING updated_at::timestamptz;
ALTER TABLE thread_volumes ALTER COLUMN updated_at TYPE timestamptz USING updated_at::timestamptz;

CREATE UNIQUE INDEX stances_latest ON stances(poll_id, participant_id) WHERE latest;
CREATE INDEX stances_report ON stances(poll_id, created_at, participant_id, cast_at) WHERE latest AND revoked_at IS NULL;
CREATE INDEX stance_choices_counted ON stance_choices(poll_option_id, stance_id, score) WHERE counted;

CREATE OR REPLACE FUNCTION convene_membership_counts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.revoked_at IS NULL THEN
    UPDATE groups SET
      memberships_count = memberships_count - 1,
      accepted_memberships_count = accepted_memberships_count - (OLD.accepted_at IS NOT NULL)::int,
      pending_memberships_count = pending_memberships_count - (OLD.accepted_at IS NULL)::int,
      admin_memberships_count = admin_memberships_count - OLD.admin::int,
      delegates_count = delegates_count - OLD.delegate::int
    WHERE id = OLD.group_id;
  END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') AND NEW.revoked_at IS NULL THEN
    UPDATE groups SET
      memberships_count = memberships_count + 1,
      accepted_memberships_count = accepted_memberships_count + (NEW.accepted_at IS NOT NULL)::int,
      pending_memberships_count = pending_memberships_count + (NEW.accepted_at IS NULL)::int,
      admin_memberships_count = admin_memberships_count + NEW.admin::int,
      delegates_count = delegates_count + NEW.delegate::int
    WHERE id = NEW.group_id;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER memberships_counts AFTER INSERT OR DELETE OR UPDATE OF revoked_at, accepted_at, admin, delegate, group_id
  ON memberships FOR EACH ROW EXECUTE FUNCTION convene_membership_counts();

CREATE TRIGGER topics_counts_write AFTER INSERT OR UPDATE OF group_id, topicable_type, discarded_at ON topics
  FOR EACH ROW EXECUTE FUNCTION convene_topic_counts();
DROP FUNCTION convene_topic_uncount(bigint, bigint, text, text);
CREATE FUNCTION convene_topic_uncount(topic bigint, grp bigint, kind text, discarded timestamptz) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF kind = 'Discussion' AND discarded IS NULL THEN
    UPDATE groups SET discussions_count = discussions_count - 1 WHERE id = grp;
  END IF;
  UPDATE groups SET polls_count = polls_count - (SELECT count(*) FROM polls p WHERE p.topic_id = topic AND p.discarded_at IS NULL)
    WHERE id = grp;
END $$;
CREATE TRIGGER polls_group_counts AFTER INSERT OR DELETE OR UPDATE OF topic_id, discarded_at ON polls
  FOR EACH ROW EXECUTE FUNCTION convene_poll_group_counts();

CREATE OR REPLACE FUNCTION convene_stance_counts() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  old_live boolean := TG_OP <> 'INSERT' AND OLD.latest AND OLD.revoked_at IS NULL;
  new_live boolean := TG_OP <> 'DELETE' AND NEW.latest AND NEW.revoked_at IS NULL;
  old_cast boolean := TG_OP <> 'INSERT' AND OLD.latest AND OLD.revoked_at IS NULL AND OLD.cast_at IS NOT NULL;
  new_cast boolean := TG_OP <> 'DELETE' AND NEW.latest AND NEW.revoked_at IS NULL AND NEW.cast_at IS NOT NULL;
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    UPDATE polls SET voters_count = voters_count - old_live::int, cast_count = cast_count - old_cast::int WHERE id = OLD.poll_id;
  END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') THEN
    UPDATE polls SET voters_count = voters_count + new_live::int, cast_count = cast_count + new_cast::int WHERE id = NEW.poll_id;
  END IF;
  IF TG_OP = 'UPDATE' AND old_cast <> new_cast THEN
    PERFORM convene_option_counts(NEW.id, CASE WHEN new_cast THEN 1 ELSE -1 END);
    UPDATE stance_choices SET counted = new_cast WHERE stance_id = NEW.id;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER stances_counts AFTER INSERT OR DELETE OR UPDATE OF latest, revoked_at, cast_at ON stances
  FOR EACH ROW EXECUTE FUNCTION convene_stance_counts();

CREATE OR REPLACE FUNCTION convene_choice_counts() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  row stance_choices := CASE WHEN TG_OP = 'INSERT' THEN NEW ELSE OLD END;
  sign integer := CASE WHEN TG_OP = 'INSERT' THEN 1 ELSE -1 END;
BEGIN
  IF EXISTS (SELECT 1 FROM stances s WHERE s.id = row.stance_id AND s.latest AND s.revoked_at IS NULL AND s.cast_at IS NOT NULL) THEN
    UPDATE poll_options SET
      total_score = poll_options.total_score + sign * row.score,
      voter_count = poll_options.voter_count + sign * (row.score > 0 OR p.poll_type = 'meeting')::int,
      yes_count = poll_options.yes_count + sign * (row.score = 2)::int,
      maybe_count = poll_options.maybe_count + sign * (row.score = 1)::int,
      no_count = poll_options.no_count + sign * (row.score = 0)::int
    FROM polls p WHERE poll_options.id = row.poll_option_id AND p.id = poll_options.poll_id;
    IF TG_OP = 'INSERT' THEN
      UPDATE stance_choices SET counted = true WHERE stance_id = NEW.stance_id AND poll_option_id = NEW.poll_option_id;
    END IF;
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION convene_search_index() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  kind text := CASE TG_TABLE_NAME WHEN 'discussions' THEN 'Discussion' WHEN 'comments' THEN 'Comment'
    WHEN 'polls' THEN 'Poll' WHEN 'stances' THEN 'Stance' ELSE 'Outcome' END;
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    DELETE FROM search_documents WHERE searchable_type = kind AND searchable_id = OLD.id;
  END IF;
  IF TG_OP = 'DELETE' THEN RETURN NULL; END IF;
  IF kind = 'Discussion' THEN
    INSERT INTO search_documents (searchable_type, searchable_id, topic_id, poll_id, author_id, authored_at, content)
    SELECT kind, NEW.id, NEW.topic_id, NULL, NEW.author_id, NEW.created_at, NEW.title || chr(10) || convene_plain(NEW.description, NEW.description_format)
    WHERE NEW.discarded_at IS NULL;
  ELSIF kind = 'Comment' THEN
    INSERT INTO search_documents (searchable_type, searchable_id, topic_id, poll_id, author_id, authored_at, content)
    SELECT kind, NEW.id, d.topic_id, NULL, NEW.author_id, NEW.created_at, convene_plain(NEW.body, NEW.body_format)
    FROM discussions d WHERE d.id = NEW.discussion_id AND NEW.discarded_at IS NULL;
  ELSIF kind = 'Poll' THEN
    INSERT INTO search_documents (searchable_type, searchable_id, topic_id, poll_id, author_id, authored_at, content)
    SELECT kind, NEW.id, NEW.topic_id, NEW.id, NEW.author_id, NEW.created_at, NEW.title || chr(10) || convene_plain(NEW.details, NEW.details_format)
    WHERE NEW.discarded_at IS NULL;
    IF TG_OP = 'UPDATE' AND OLD.anonymous IS DISTINCT FROM NEW.anonymous THEN
      DELETE FROM search_documents WHERE searchable_type = 'Stance' AND poll_id = NEW.id;
      INSERT INTO search_documents (searchable_type, searchable_id, topic_id, poll_id, author_id, authored_at, content)
      SELECT 'Stance', s.id, NEW.topic_id, NEW.id, s.participant_id, s.cast_at, convene_plain(s.reason, s.reason_format)
      FROM stances s WHERE s.poll_id = NEW.id AND s.latest AND s.revoked_at IS NULL AND s.cast_at IS NOT NULL AND NOT NEW.anonymous;
    END IF;
  ELSIF kind = 'Stance' THEN
    INSERT INTO search_documents (searchable_type, searchable_id, topic_id, poll_id, author_id, authored_at, content)
    SELECT kind, NEW.id, p.topic_id, p.id, NEW.participant_id, NEW.cast_at, convene_plain(NEW.reason, NEW.reason_format)
    FROM polls p WHERE p.id = NEW.poll_id AND NEW.latest AND NEW.revoked_at IS NULL AND NEW.cast_at IS NOT NULL AND NOT p.anonymous;
  ELSE
    INSERT INTO search_documents (searchable_type, searchable_id, topic_id, poll_id, author_id, authored_at, content)
    SELECT kind, NEW.id, p.topic_id, p.id, NEW.author_id, NEW.created_at, convene_plain(NEW.statement, NEW.statement_format)
    FROM polls p WHERE p.id = NEW.poll_id;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER discussions_search AFTER INSERT OR DELETE OR UPDATE OF title, description, description_format, discarded_at, author_id, created_at
  ON discussions FOR EACH ROW EXECUTE FUNCTION convene_search_index();
CREATE TRIGGER comments_search AFTER INSERT OR DELETE OR UPDATE OF body, body_format, discarded_at, author_id, created_at
  ON comments FOR EACH ROW EXECUTE FUNCTION convene_search_index();
CREATE TRIGGER polls_search AFTER INSERT OR DELETE OR UPDATE OF title, details, details_format, discarded_at, author_id, created_at, anonymous
  ON polls FOR EACH ROW EXECUTE FUNCTION convene_search_index();
CREATE TRIGGER stances_search AFTER INSERT OR DELETE OR UPDATE OF latest, cast_at, reason, reason_format, revoked_at
  ON stances FOR EACH ROW EXECUTE FUNCTION convene_search_index();
CREATE TRIGGER outcomes_search AFTER INSERT OR DELETE OR UPDATE OF statement, statement_format, author_id, created_at
  ON outcomes FOR EACH ROW EXECUTE FUNCTION convene_search_index();
`
