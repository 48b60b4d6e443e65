/**
 * A group's membership counters kept on the group by triggers in the writing transaction (measured: recounting
 * a 10,000-member group took about half of GET /api/b2/groups and a third of every poll document). Triggers
 * see every write (invitations, revocations, deactivation and reactivation, deletions by cascade), so the
 * counters cannot drift; packages/core/test/group-counters.test.ts holds them equal to a recount.
 */
const apply = (sign: 1 | -1, r: "NEW" | "OLD") => `
  UPDATE groups SET
    memberships_count = memberships_count + ${sign},
    accepted_memberships_count = accepted_memberships_count + ${sign} * (${r}.accepted_at IS NOT NULL),
    pending_memberships_count = pending_memberships_count + ${sign} * (${r}.accepted_at IS NULL),
    admin_memberships_count = admin_memberships_count + ${sign} * ${r}.admin,
    delegates_count = delegates_count + ${sign} * ${r}.delegate
  WHERE id = ${r}.group_id;`

export const m010_group_counters = `
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
BEGIN ${apply(1, "NEW")} END;

CREATE TRIGGER memberships_count_delete AFTER DELETE ON memberships WHEN OLD.revoked_at IS NULL
BEGIN ${apply(-1, "OLD")} END;

CREATE TRIGGER memberships_count_leave AFTER UPDATE OF revoked_at, accepted_at, admin, delegate, group_id ON memberships
WHEN OLD.revoked_at IS NULL
BEGIN ${apply(-1, "OLD")} END;

CREATE TRIGGER memberships_count_enter AFTER UPDATE OF revoked_at, accepted_at, admin, delegate, group_id ON memberships
WHEN NEW.revoked_at IS NULL
BEGIN ${apply(1, "NEW")} END;
`
