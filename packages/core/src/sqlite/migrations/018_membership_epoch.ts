/**
 * A counter that moves whenever a membership row changes, comes or goes (a join, an invitation accepted, a
 * revocation, an admin or delegate flag, a group or user deleted): the memberships cache (sqlite/caches.ts)
 * trusts what it holds only while the counter stands still, whichever process made the change.
 *
 * Frozen SQL text: a released migration never changes (test: migration checksums).
 */
export const m018_membership_epoch = String.raw`
INSERT INTO cache_epochs (name, value) VALUES ('memberships', 0);
CREATE TRIGGER memberships_epoch_on_insert AFTER INSERT ON memberships BEGIN
  UPDATE cache_epochs SET value = value + 1 WHERE name = 'memberships';
END;
CREATE TRIGGER memberships_epoch_on_update AFTER UPDATE ON memberships BEGIN
  UPDATE cache_epochs SET value = value + 1 WHERE name = 'memberships';
END;
CREATE TRIGGER memberships_epoch_on_delete AFTER DELETE ON memberships BEGIN
  UPDATE cache_epochs SET value = value + 1 WHERE name = 'memberships';
END;
`
