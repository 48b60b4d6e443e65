/**
 * A group's membership counters kept on the group by triggers in the writing transaction (measured: recounting
 * a 10,000-member group took about half of GET /api/b2/groups and a third of every poll document). Triggers
 * see every write (invitations, revocations, deactivation and reactivation, deletions by cascade), so the
 * counters cannot drift; packages/core/test/group-counters.test.ts holds them equal to a recount.
 *
 * Frozen SQL text: a released migration never changes (test: migration checksums).
 */
export const m010_group_counters = String.raw`
ALTER TABLE groups ADD COLUMN memberships_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE groups ADD COLUMN accepted_memberships_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE groups ADD COLUMN pending_memberships_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE groups ADD COLUMN admin_memberships_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE groups ADD COLUMN delegates_count INTEGER NOT NULL DEFAULT 0;

UPDATE groups SET
  memberships_count = (SELECT count(*) FROM memberships m WHERE m.group_id = groups.id AND m.revoked_at IS NULL),
  accepted_memberships_count = (SELECT count(*) FROM memberships m WHERE m.group_id = groups.id AND m.revoked_at IS NULL AND m.accepted_at IS NOT NULL),
  pending_memberships_count = (SELECT count(*) FROM memberships m WHERE m.group_id = groups.id AND m.revoked_at IS NULL AND m.accepted_at IS NULL),
  admin_memberships_count = (SELECT count(*) FROM memberships m WHERE m.group_id = groups.id AND m.revoked_at IS NULL AND m.admin = 1),
  delegates_count = (SELECT count(*) FROM memberships m WHERE m.group_id = groups.id AND m.revoked_at IS NULL AND m.delegate = 1);

CREATE TRIGGER memberships_count_insert AFTER INSERT ON memberships WHEN NEW.revoked_at IS NULL
BEGIN 
  UPDATE groups SET
    memberships_count = memberships_count + 1,
    accepted_memberships_count = accepted_memberships_count + 1 * (NEW.accepted_at IS NOT NULL),
    pending_memberships_count = pending_memberships_count + 1 * (NEW.accepted_at IS NULL),
    admin_memberships_count = admin_memberships_count + 1 * NEW.admin,
    delegates_count = delegates_count + 1 * NEW.delegate
  WHERE id = NEW.group_id; END;

CREATE TRIGGER memberships_count_delete AFTER DELETE ON memberships WHEN OLD.revoked_at IS NULL
BEGIN 
  UPDATE groups SET
    memberships_count = memberships_count + -1,
    accepted_memberships_count = accepted_memberships_count + -1 * (OLD.accepted_at IS NOT NULL),
    pending_memberships_count = pending_memberships_count + -1 * (OLD.accepted_at IS NULL),
    admin_memberships_count = admin_memberships_count + -1 * OLD.admin,
    delegates_count = delegates_count + -1 * OLD.delegate
  WHERE id = OLD.group_id; END;

CREATE TRIGGER memberships_count_leave AFTER UPDATE OF revoked_at, accepted_at, admin, delegate, group_id ON memberships
WHEN OLD.revoked_at IS NULL
BEGIN 
  UPDATE groups SET
    memberships_count = memberships_count + -1,
    accepted_memberships_count = accepted_memberships_count + -1 * (OLD.accepted_at IS NOT NULL),
    pending_memberships_count = pending_memberships_count + -1 * (OLD.accepted_at IS NULL),
    admin_memberships_count = admin_memberships_count + -1 * OLD.admin,
    delegates_count = delegates_count + -1 * OLD.delegate
  WHERE id = OLD.group_id; END;

CREATE TRIGGER memberships_count_enter AFTER UPDATE OF revoked_at, accepted_at, admin, delegate, group_id ON memberships
WHEN NEW.revoked_at IS NULL
BEGIN 
  UPDATE groups SET
    memberships_count = memberships_count + 1,
    accepted_memberships_count = accepted_memberships_count + 1 * (NEW.accepted_at IS NOT NULL),
    pending_memberships_count = pending_memberships_count + 1 * (NEW.accepted_at IS NULL),
    admin_memberships_count = admin_memberships_count + 1 * NEW.admin,
    delegates_count = delegates_count + 1 * NEW.delegate
  WHERE id = NEW.group_id; END;
`
