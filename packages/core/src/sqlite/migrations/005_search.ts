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
 */

/** A SQL string literal. */
const lit = (s: string) => `'${s.replace(/'/g, "''")}'`

/** HTML bodies lose their tags (text between tags kept, separated by spaces) and common entities. */
const stripHtml = (col: string) => {
  const text = `(SELECT group_concat(value, ' ') FROM json_each('[' || replace(replace(json_quote(${col}), '<', '","<'), '>', '","') || ']')
     WHERE value NOT LIKE '<%')`
  const entities: Array<[string, string]> = [["&nbsp;", " "], ["&lt;", "<"], ["&gt;", ">"], ["&quot;", "\""], ["&#39;", "'"], ["&amp;", "&"]]
  return entities.reduce((e, [from, to]) => `replace(${e}, ${lit(from)}, ${lit(to)})`, `coalesce(${text}, '')`)
}

/** The searchable text of a body in its format. */
const plain = (col: string, format: string) => `CASE WHEN ${format} = 'html' THEN ${stripHtml(col)} ELSE coalesce(${col}, '') END`

/** Characters that separate words for the vocabulary (unicode61 treats every non-alphanumeric as one). */
const SEPARATORS = [
  "\t", "\n", "\r", ".", ",", ";", ":", "!", "?", "\"", "'", "`", "(", ")", "[", "]", "{", "}", "<", ">", "/", "\\", "|", "*",
  "_", "~", "#", "+", "=", "&", "%", "$", "@", "^", "-", "\u00a0", "\u201c", "\u201d", "\u2018", "\u2019", "\u00ab", "\u00bb",
  "\u2013", "\u2014", "\u2026", "\u00b7", "\u2022", "\u00bf", "\u00a1"
]
const separated = (col: string) => SEPARATORS.reduce((e, ch) => `replace(${e}, ${lit(ch)}, ' ')`, col)

/** The words of a text as a json_each source (split on spaces once separators became spaces). */
const wordsOf = (col: string) => `json_each('[' || replace(json_quote(lower(${separated(col)})), ' ', '","') || ']')`

const COLUMNS = "(searchable_type, searchable_id, topic_id, poll_id, author_id, authored_at, content)"

/** The document of each type, for the rows matching `where` (soft-deleted and non-searchable rows have none). */
const documents = {
  Discussion: (where: string) => `
    INSERT INTO search_documents ${COLUMNS}
    SELECT 'Discussion', d.id, d.topic_id, NULL, d.author_id, d.created_at, d.title || char(10) || ${plain("d.description", "d.description_format")}
    FROM discussions d WHERE ${where} AND d.discarded_at IS NULL;`,
  Comment: (where: string) => `
    INSERT INTO search_documents ${COLUMNS}
    SELECT 'Comment', c.id, d.topic_id, NULL, c.author_id, c.created_at, ${plain("c.body", "c.body_format")}
    FROM comments c JOIN discussions d ON d.id = c.discussion_id WHERE ${where} AND c.discarded_at IS NULL;`,
  Poll: (where: string) => `
    INSERT INTO search_documents ${COLUMNS}
    SELECT 'Poll', p.id, p.topic_id, p.id, p.author_id, p.created_at, p.title || char(10) || ${plain("p.details", "p.details_format")}
    FROM polls p WHERE ${where} AND p.discarded_at IS NULL;`,
  // cast, latest, un-revoked ballots of polls that are not anonymous; authored when cast
  Stance: (where: string) => `
    INSERT INTO search_documents ${COLUMNS}
    SELECT 'Stance', s.id, p.topic_id, p.id, s.participant_id, s.cast_at, ${plain("s.reason", "s.reason_format")}
    FROM stances s JOIN polls p ON p.id = s.poll_id
    WHERE ${where} AND s.latest = 1 AND s.revoked_at IS NULL AND s.cast_at IS NOT NULL AND p.anonymous = 0;`,
  Outcome: (where: string) => `
    INSERT INTO search_documents ${COLUMNS}
    SELECT 'Outcome', o.id, p.topic_id, p.id, o.author_id, o.created_at, ${plain("o.statement", "o.statement_format")}
    FROM outcomes o JOIN polls p ON p.id = o.poll_id WHERE ${where};`
}

const drop = (type: string, id: string) => `DELETE FROM search_documents WHERE searchable_type = '${type}' AND searchable_id = ${id};`

/** Insert, update of the listed columns (re-index) and delete triggers for one source table. */
const sync = (table: string, type: keyof typeof documents, alias: string, columns: ReadonlyArray<string>) => `
CREATE TRIGGER ${table}_search_insert AFTER INSERT ON ${table}
BEGIN
  ${documents[type](`${alias}.id = NEW.id`)}
END;
CREATE TRIGGER ${table}_search_update AFTER UPDATE OF ${columns.join(", ")} ON ${table}
BEGIN
  ${drop(type, "OLD.id")}
  ${documents[type](`${alias}.id = NEW.id`)}
END;
CREATE TRIGGER ${table}_search_delete AFTER DELETE ON ${table}
BEGIN
  ${drop(type, "OLD.id")}
END;`

export const m005_search = `
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
  INSERT OR IGNORE INTO search_words (word) SELECT value FROM ${wordsOf("NEW.content")} WHERE length(value) BETWEEN 4 AND 64;
END;
CREATE TRIGGER search_documents_unindex AFTER DELETE ON search_documents
BEGIN
  INSERT INTO search_fts (search_fts, rowid, content) VALUES ('delete', OLD.id, OLD.content);
END;
CREATE TRIGGER search_words_index AFTER INSERT ON search_words
BEGIN
  INSERT INTO search_trigrams (rowid, word) VALUES (NEW.id, '  ' || NEW.word || ' ');
END;
${sync("discussions", "Discussion", "d", ["title", "description", "description_format", "discarded_at", "author_id", "created_at"])}
${sync("comments", "Comment", "c", ["body", "body_format", "discarded_at", "author_id", "created_at"])}
${sync("polls", "Poll", "p", ["title", "details", "details_format", "discarded_at", "author_id", "created_at"])}
${sync("stances", "Stance", "s", ["latest", "cast_at", "reason", "reason_format", "revoked_at"])}
${sync("outcomes", "Outcome", "o", ["statement", "statement_format", "author_id", "created_at"])}
-- a poll made anonymous (or not) takes its votes out of (or back into) the index
CREATE TRIGGER polls_search_anonymous AFTER UPDATE OF anonymous ON polls
BEGIN
  DELETE FROM search_documents WHERE searchable_type = 'Stance' AND poll_id = NEW.id;
  ${documents.Stance("s.poll_id = NEW.id")}
END;

-- what was written before search existed
${documents.Discussion("1")}
${documents.Comment("1")}
${documents.Poll("1")}
${documents.Stance("1")}
${documents.Outcome("1")}
`
