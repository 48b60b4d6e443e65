/** Frozen SQL text: a released migration never changes (test: migration checksums). */
export const m003_webhooks = String.raw`
CREATE TABLE chatbots (
  id INTEGER PRIMARY KEY,
  group_id INTEGER NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
  author_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
  name TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('webhook', 'matrix')),
  webhook_kind TEXT CHECK (webhook_kind IN ('markdown', 'slack', 'discord', 'microsoft', 'webex')),
  server TEXT NOT NULL,
  event_kinds TEXT NOT NULL DEFAULT '[]',
  notification_only INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX chatbots_group ON chatbots(group_id);

-- the outbox: one row per event, written in the transaction of the change that caused it
CREATE TABLE webhook_events (
  id INTEGER PRIMARY KEY,
  kind TEXT NOT NULL,
  group_id INTEGER NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
  actor_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
  eventable_type TEXT NOT NULL,
  eventable_id INTEGER NOT NULL,
  message TEXT NOT NULL,
  created_at TEXT NOT NULL
);

-- one row per (event, subscribed chatbot); the delivery worker works through these
CREATE TABLE webhook_deliveries (
  id INTEGER PRIMARY KEY,
  event_id INTEGER NOT NULL REFERENCES webhook_events(id) ON DELETE CASCADE,
  chatbot_id INTEGER NOT NULL REFERENCES chatbots(id) ON DELETE CASCADE,
  status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'failed', 'dead', 'done')),
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at TEXT NOT NULL,
  claimed_until TEXT,
  last_status INTEGER,
  last_error TEXT,
  delivered_at TEXT,
  created_at TEXT NOT NULL
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries(status, next_attempt_at);
CREATE INDEX webhook_deliveries_chatbot ON webhook_deliveries(chatbot_id);
`
