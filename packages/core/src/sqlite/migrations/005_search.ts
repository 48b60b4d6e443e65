/**
 * Full-text search (issue 6). One row per searchable record in `search_documents` (discussions, comments,
 * polls, cast votes with their reasons, outcomes), indexed twice:
 *
 * - `search_fts`: FTS5, porter stemming over unicode61 (diacritics folded), external content, for words;
 * - `search_trigrams`: FTS5 trigram index over the vocabulary (`search_words`, every word of 4–64 characters
 *   ever indexed, padded like pg_trgm: "  word "), for fuzzy matching: a word one letter off still shares
 *   most trigrams with the word meant.
 *
 * Triggers on the source tables keep everything in step inside the writing transaction, whatever the
 * write path (service, CLI, a raw SQL update): a soft-deleted record, a superseded or revoked vote and
 * a vote of an anonymous poll have no document. What depends on the reader (thread visibility, hidden
 * results) is decided at query time. The triggers are plain SQL (no application functions), so any
 * connection may write to the file. The vocabulary only grows: a word no longer used finds nothing.
 *
 * Frozen SQL text: a released migration never changes (test: migration checksums).
 */
export const m005_search = String.raw`
CREATE TABLE search_documents (
  id INTEGER PRIMARY KEY,
  searchable_type TEXT NOT NULL CHECK (searchable_type IN ('Discussion', 'Comment', 'Poll', 'Stance', 'Outcome')),
  searchable_id INTEGER NOT NULL,
  topic_id INTEGER NOT NULL,
  poll_id INTEGER,
  author_id INTEGER,
  authored_at TEXT NOT NULL,
  content TEXT NOT NULL,
  UNIQUE (searchable_type, searchable_id)
);
CREATE INDEX search_documents_topic ON search_documents(topic_id);
CREATE INDEX search_documents_author ON search_documents(author_id, authored_at);
CREATE INDEX search_documents_authored ON search_documents(authored_at);

CREATE VIRTUAL TABLE search_fts USING fts5(
  content, content = 'search_documents', content_rowid = 'id', tokenize = 'porter unicode61 remove_diacritics 2'
);

CREATE TABLE search_words (
  id INTEGER PRIMARY KEY,
  word TEXT NOT NULL UNIQUE
);
CREATE VIRTUAL TABLE search_trigrams USING fts5(word, content = '', tokenize = 'trigram');

CREATE TRIGGER search_documents_index AFTER INSERT ON search_documents
BEGIN
  INSERT INTO search_fts (rowid, content) VALUES (NEW.id, NEW.content);
  INSERT OR IGNORE INTO search_words (word) SELECT value FROM json_each('[' || replace(json_quote(lower(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(NEW.content, '	', ' '), '
', ' '), '${"\r"}', ' '), '.', ' '), ',', ' '), ';', ' '), ':', ' '), '!', ' '), '?', ' '), '"', ' '), '''', ' '), '${"`"}', ' '), '(', ' '), ')', ' '), '[', ' '), ']', ' '), '{', ' '), '}', ' '), '<', ' '), '>', ' '), '/', ' '), '${"\\"}', ' '), '|', ' '), '*', ' '), '_', ' '), '~', ' '), '#', ' '), '+', ' '), '=', ' '), '&', ' '), '%', ' '), '$', ' '), '@', ' '), '^', ' '), '-', ' '), ' ', ' '), '“', ' '), '”', ' '), '‘', ' '), '’', ' '), '«', ' '), '»', ' '), '–', ' '), '—', ' '), '…', ' '), '·', ' '), '•', ' '), '¿', ' '), '¡', ' '))), ' ', '","') || ']') WHERE length(value) BETWEEN 4 AND 64;
END;
CREATE TRIGGER search_documents_unindex AFTER DELETE ON search_documents
BEGIN
  INSERT INTO search_fts (search_fts, rowid, content) VALUES ('delete', OLD.id, OLD.content);
END;
CREATE TRIGGER search_words_index AFTER INSERT ON search_words
BEGIN
  INSERT INTO search_trigrams (rowid, word) VALUES (NEW.id, '  ' || NEW.word || ' ');
END;

CREATE TRIGGER discussions_search_insert AFTER INSERT ON discussions
BEGIN
  
    INSERT INTO search_documents (searchable_type, searchable_id, topic_id, poll_id, author_id, authored_at, content)
    SELECT 'Discussion', d.id, d.topic_id, NULL, d.author_id, d.created_at, d.title || char(10) || CASE WHEN d.description_format = 'html' THEN replace(replace(replace(replace(replace(replace(coalesce((SELECT group_concat(value, ' ') FROM json_each('[' || replace(replace(json_quote(d.description), '<', '","<'), '>', '","') || ']')
     WHERE value NOT LIKE '<%'), ''), '&nbsp;', ' '), '&lt;', '<'), '&gt;', '>'), '&quot;', '"'), '&#39;', ''''), '&amp;', '&') ELSE coalesce(d.description, '') END
    FROM discussions d WHERE d.id = NEW.id AND d.discarded_at IS NULL;
END;
CREATE TRIGGER discussions_search_update AFTER UPDATE OF title, description, description_format, discarded_at, author_id, created_at ON discussions
BEGIN
  DELETE FROM search_documents WHERE searchable_type = 'Discussion' AND searchable_id = OLD.id;
  
    INSERT INTO search_documents (searchable_type, searchable_id, topic_id, poll_id, author_id, authored_at, content)
    SELECT 'Discussion', d.id, d.topic_id, NULL, d.author_id, d.created_at, d.title || char(10) || CASE WHEN d.description_format = 'html' THEN replace(replace(replace(replace(replace(replace(coalesce((SELECT group_concat(value, ' ') FROM json_each('[' || replace(replace(json_quote(d.description), '<', '","<'), '>', '","') || ']')
     WHERE value NOT LIKE '<%'), ''), '&nbsp;', ' '), '&lt;', '<'), '&gt;', '>'), '&quot;', '"'), '&#39;', ''''), '&amp;', '&') ELSE coalesce(d.description, '') END
    FROM discussions d WHERE d.id = NEW.id AND d.discarded_at IS NULL;
END;
CREATE TRIGGER discussions_search_delete AFTER DELETE ON discussions
BEGIN
  DELETE FROM search_documents WHERE searchable_type = 'Discussion' AND searchable_id = OLD.id;
END;

CREATE TRIGGER comments_search_insert AFTER INSERT ON comments
BEGIN
  
    INSERT INTO search_documents (searchable_type, searchable_id, topic_id, poll_id, author_id, authored_at, content)
    SELECT 'Comment', c.id, d.topic_id, NULL, c.author_id, c.created_at, CASE WHEN c.body_format = 'html' THEN replace(replace(replace(replace(replace(replace(coalesce((SELECT group_concat(value, ' ') FROM json_each('[' || replace(replace(json_quote(c.body), '<', '","<'), '>', '","') || ']')
     WHERE value NOT LIKE '<%'), ''), '&nbsp;', ' '), '&lt;', '<'), '&gt;', '>'), '&quot;', '"'), '&#39;', ''''), '&amp;', '&') ELSE coalesce(c.body, '') END
    FROM comments c JOIN discussions d ON d.id = c.discussion_id WHERE c.id = NEW.id AND c.discarded_at IS NULL;
END;
CREATE TRIGGER comments_search_update AFTER UPDATE OF body, body_format, discarded_at, author_id, created_at ON comments
BEGIN
  DELETE FROM search_documents WHERE searchable_type = 'Comment' AND searchable_id = OLD.id;
  
    INSERT INTO search_documents (searchable_type, searchable_id, topic_id, poll_id, author_id, authored_at, content)
    SELECT 'Comment', c.id, d.topic_id, NULL, c.author_id, c.created_at, CASE WHEN c.body_format = 'html' THEN replace(replace(replace(replace(replace(replace(coalesce((SELECT group_concat(value, ' ') FROM json_each('[' || replace(replace(json_quote(c.body), '<', '","<'), '>', '","') || ']')
     WHERE value NOT LIKE '<%'), ''), '&nbsp;', ' '), '&lt;', '<'), '&gt;', '>'), '&quot;', '"'), '&#39;', ''''), '&amp;', '&') ELSE coalesce(c.body, '') END
    FROM comments c JOIN discussions d ON d.id = c.discussion_id WHERE c.id = NEW.id AND c.discarded_at IS NULL;
END;
CREATE TRIGGER comments_search_delete AFTER DELETE ON comments
BEGIN
  DELETE FROM search_documents WHERE searchable_type = 'Comment' AND searchable_id = OLD.id;
END;

CREATE TRIGGER polls_search_insert AFTER INSERT ON polls
BEGIN
  
    INSERT INTO search_documents (searchable_type, searchable_id, topic_id, poll_id, author_id, authored_at, content)
    SELECT 'Poll', p.id, p.topic_id, p.id, p.author_id, p.created_at, p.title || char(10) || CASE WHEN p.details_format = 'html' THEN replace(replace(replace(replace(replace(replace(coalesce((SELECT group_concat(value, ' ') FROM json_each('[' || replace(replace(json_quote(p.details), '<', '","<'), '>', '","') || ']')
     WHERE value NOT LIKE '<%'), ''), '&nbsp;', ' '), '&lt;', '<'), '&gt;', '>'), '&quot;', '"'), '&#39;', ''''), '&amp;', '&') ELSE coalesce(p.details, '') END
    FROM polls p WHERE p.id = NEW.id AND p.discarded_at IS NULL;
END;
CREATE TRIGGER polls_search_update AFTER UPDATE OF title, details, details_format, discarded_at, author_id, created_at ON polls
BEGIN
  DELETE FROM search_documents WHERE searchable_type = 'Poll' AND searchable_id = OLD.id;
  
    INSERT INTO search_documents (searchable_type, searchable_id, topic_id, poll_id, author_id, authored_at, content)
    SELECT 'Poll', p.id, p.topic_id, p.id, p.author_id, p.created_at, p.title || char(10) || CASE WHEN p.details_format = 'html' THEN replace(replace(replace(replace(replace(replace(coalesce((SELECT group_concat(value, ' ') FROM json_each('[' || replace(replace(json_quote(p.details), '<', '","<'), '>', '","') || ']')
     WHERE value NOT LIKE '<%'), ''), '&nbsp;', ' '), '&lt;', '<'), '&gt;', '>'), '&quot;', '"'), '&#39;', ''''), '&amp;', '&') ELSE coalesce(p.details, '') END
    FROM polls p WHERE p.id = NEW.id AND p.discarded_at IS NULL;
END;
CREATE TRIGGER polls_search_delete AFTER DELETE ON polls
BEGIN
  DELETE FROM search_documents WHERE searchable_type = 'Poll' AND searchable_id = OLD.id;
END;

CREATE TRIGGER stances_search_insert AFTER INSERT ON stances
BEGIN
  
    INSERT INTO search_documents (searchable_type, searchable_id, topic_id, poll_id, author_id, authored_at, content)
    SELECT 'Stance', s.id, p.topic_id, p.id, s.participant_id, s.cast_at, CASE WHEN s.reason_format = 'html' THEN replace(replace(replace(replace(replace(replace(coalesce((SELECT group_concat(value, ' ') FROM json_each('[' || replace(replace(json_quote(s.reason), '<', '","<'), '>', '","') || ']')
     WHERE value NOT LIKE '<%'), ''), '&nbsp;', ' '), '&lt;', '<'), '&gt;', '>'), '&quot;', '"'), '&#39;', ''''), '&amp;', '&') ELSE coalesce(s.reason, '') END
    FROM stances s JOIN polls p ON p.id = s.poll_id
    WHERE s.id = NEW.id AND s.latest = 1 AND s.revoked_at IS NULL AND s.cast_at IS NOT NULL AND p.anonymous = 0;
END;
CREATE TRIGGER stances_search_update AFTER UPDATE OF latest, cast_at, reason, reason_format, revoked_at ON stances
BEGIN
  DELETE FROM search_documents WHERE searchable_type = 'Stance' AND searchable_id = OLD.id;
  
    INSERT INTO search_documents (searchable_type, searchable_id, topic_id, poll_id, author_id, authored_at, content)
    SELECT 'Stance', s.id, p.topic_id, p.id, s.participant_id, s.cast_at, CASE WHEN s.reason_format = 'html' THEN replace(replace(replace(replace(replace(replace(coalesce((SELECT group_concat(value, ' ') FROM json_each('[' || replace(replace(json_quote(s.reason), '<', '","<'), '>', '","') || ']')
     WHERE value NOT LIKE '<%'), ''), '&nbsp;', ' '), '&lt;', '<'), '&gt;', '>'), '&quot;', '"'), '&#39;', ''''), '&amp;', '&') ELSE coalesce(s.reason, '') END
    FROM stances s JOIN polls p ON p.id = s.poll_id
    WHERE s.id = NEW.id AND s.latest = 1 AND s.revoked_at IS NULL AND s.cast_at IS NOT NULL AND p.anonymous = 0;
END;
CREATE TRIGGER stances_search_delete AFTER DELETE ON stances
BEGIN
  DELETE FROM search_documents WHERE searchable_type = 'Stance' AND searchable_id = OLD.id;
END;

CREATE TRIGGER outcomes_search_insert AFTER INSERT ON outcomes
BEGIN
  
    INSERT INTO search_documents (searchable_type, searchable_id, topic_id, poll_id, author_id, authored_at, content)
    SELECT 'Outcome', o.id, p.topic_id, p.id, o.author_id, o.created_at, CASE WHEN o.statement_format = 'html' THEN replace(replace(replace(replace(replace(replace(coalesce((SELECT group_concat(value, ' ') FROM json_each('[' || replace(replace(json_quote(o.statement), '<', '","<'), '>', '","') || ']')
     WHERE value NOT LIKE '<%'), ''), '&nbsp;', ' '), '&lt;', '<'), '&gt;', '>'), '&quot;', '"'), '&#39;', ''''), '&amp;', '&') ELSE coalesce(o.statement, '') END
    FROM outcomes o JOIN polls p ON p.id = o.poll_id WHERE o.id = NEW.id;
END;
CREATE TRIGGER outcomes_search_update AFTER UPDATE OF statement, statement_format, author_id, created_at ON outcomes
BEGIN
  DELETE FROM search_documents WHERE searchable_type = 'Outcome' AND searchable_id = OLD.id;
  
    INSERT INTO search_documents (searchable_type, searchable_id, topic_id, poll_id, author_id, authored_at, content)
    SELECT 'Outcome', o.id, p.topic_id, p.id, o.author_id, o.created_at, CASE WHEN o.statement_format = 'html' THEN replace(replace(replace(replace(replace(replace(coalesce((SELECT group_concat(value, ' ') FROM json_each('[' || replace(replace(json_quote(o.statement), '<', '","<'), '>', '","') || ']')
     WHERE value NOT LIKE '<%'), ''), '&nbsp;', ' '), '&lt;', '<'), '&gt;', '>'), '&quot;', '"'), '&#39;', ''''), '&amp;', '&') ELSE coalesce(o.statement, '') END
    FROM outcomes o JOIN polls p ON p.id = o.poll_id WHERE o.id = NEW.id;
END;
CREATE TRIGGER outcomes_search_delete AFTER DELETE ON outcomes
BEGIN
  DELETE FROM search_documents WHERE searchable_type = 'Outcome' AND searchable_id = OLD.id;
END;
-- a poll made anonymous (or not) takes its votes out of (or back into) the index
CREATE TRIGGER polls_search_anonymous AFTER UPDATE OF anonymous ON polls
BEGIN
  DELETE FROM search_documents WHERE searchable_type = 'Stance' AND poll_id = NEW.id;
  
    INSERT INTO search_documents (searchable_type, searchable_id, topic_id, poll_id, author_id, authored_at, content)
    SELECT 'Stance', s.id, p.topic_id, p.id, s.participant_id, s.cast_at, CASE WHEN s.reason_format = 'html' THEN replace(replace(replace(replace(replace(replace(coalesce((SELECT group_concat(value, ' ') FROM json_each('[' || replace(replace(json_quote(s.reason), '<', '","<'), '>', '","') || ']')
     WHERE value NOT LIKE '<%'), ''), '&nbsp;', ' '), '&lt;', '<'), '&gt;', '>'), '&quot;', '"'), '&#39;', ''''), '&amp;', '&') ELSE coalesce(s.reason, '') END
    FROM stances s JOIN polls p ON p.id = s.poll_id
    WHERE s.poll_id = NEW.id AND s.latest = 1 AND s.revoked_at IS NULL AND s.cast_at IS NOT NULL AND p.anonymous = 0;
END;

-- what was written before search existed

    INSERT INTO search_documents (searchable_type, searchable_id, topic_id, poll_id, author_id, authored_at, content)
    SELECT 'Discussion', d.id, d.topic_id, NULL, d.author_id, d.created_at, d.title || char(10) || CASE WHEN d.description_format = 'html' THEN replace(replace(replace(replace(replace(replace(coalesce((SELECT group_concat(value, ' ') FROM json_each('[' || replace(replace(json_quote(d.description), '<', '","<'), '>', '","') || ']')
     WHERE value NOT LIKE '<%'), ''), '&nbsp;', ' '), '&lt;', '<'), '&gt;', '>'), '&quot;', '"'), '&#39;', ''''), '&amp;', '&') ELSE coalesce(d.description, '') END
    FROM discussions d WHERE 1 AND d.discarded_at IS NULL;

    INSERT INTO search_documents (searchable_type, searchable_id, topic_id, poll_id, author_id, authored_at, content)
    SELECT 'Comment', c.id, d.topic_id, NULL, c.author_id, c.created_at, CASE WHEN c.body_format = 'html' THEN replace(replace(replace(replace(replace(replace(coalesce((SELECT group_concat(value, ' ') FROM json_each('[' || replace(replace(json_quote(c.body), '<', '","<'), '>', '","') || ']')
     WHERE value NOT LIKE '<%'), ''), '&nbsp;', ' '), '&lt;', '<'), '&gt;', '>'), '&quot;', '"'), '&#39;', ''''), '&amp;', '&') ELSE coalesce(c.body, '') END
    FROM comments c JOIN discussions d ON d.id = c.discussion_id WHERE 1 AND c.discarded_at IS NULL;

    INSERT INTO search_documents (searchable_type, searchable_id, topic_id, poll_id, author_id, authored_at, content)
    SELECT 'Poll', p.id, p.topic_id, p.id, p.author_id, p.created_at, p.title || char(10) || CASE WHEN p.details_format = 'html' THEN replace(replace(replace(replace(replace(replace(coalesce((SELECT group_concat(value, ' ') FROM json_each('[' || replace(replace(json_quote(p.details), '<', '","<'), '>', '","') || ']')
     WHERE value NOT LIKE '<%'), ''), '&nbsp;', ' '), '&lt;', '<'), '&gt;', '>'), '&quot;', '"'), '&#39;', ''''), '&amp;', '&') ELSE coalesce(p.details, '') END
    FROM polls p WHERE 1 AND p.discarded_at IS NULL;

    INSERT INTO search_documents (searchable_type, searchable_id, topic_id, poll_id, author_id, authored_at, content)
    SELECT 'Stance', s.id, p.topic_id, p.id, s.participant_id, s.cast_at, CASE WHEN s.reason_format = 'html' THEN replace(replace(replace(replace(replace(replace(coalesce((SELECT group_concat(value, ' ') FROM json_each('[' || replace(replace(json_quote(s.reason), '<', '","<'), '>', '","') || ']')
     WHERE value NOT LIKE '<%'), ''), '&nbsp;', ' '), '&lt;', '<'), '&gt;', '>'), '&quot;', '"'), '&#39;', ''''), '&amp;', '&') ELSE coalesce(s.reason, '') END
    FROM stances s JOIN polls p ON p.id = s.poll_id
    WHERE 1 AND s.latest = 1 AND s.revoked_at IS NULL AND s.cast_at IS NOT NULL AND p.anonymous = 0;

    INSERT INTO search_documents (searchable_type, searchable_id, topic_id, poll_id, author_id, authored_at, content)
    SELECT 'Outcome', o.id, p.topic_id, p.id, o.author_id, o.created_at, CASE WHEN o.statement_format = 'html' THEN replace(replace(replace(replace(replace(replace(coalesce((SELECT group_concat(value, ' ') FROM json_each('[' || replace(replace(json_quote(o.statement), '<', '","<'), '>', '","') || ']')
     WHERE value NOT LIKE '<%'), ''), '&nbsp;', ' '), '&lt;', '<'), '&gt;', '>'), '&quot;', '"'), '&#39;', ''''), '&amp;', '&') ELSE coalesce(o.statement, '') END
    FROM outcomes o JOIN polls p ON p.id = o.poll_id WHERE 1;
`
