/**
 * The typo vocabulary from FTS5's own tokenizer. Migration 005 split words with SQL string surgery (178
 * nested replace() calls in a trigger): it split differently from FTS5, left non-ASCII capitals
 * (SQLite's lower() folds ASCII only), and made the schema unparseable for the sqlite3 shell and Python's
 * sqlite3 ("parser stack overflow"). Now each new document passes through `search_tokenizer`, an FTS5
 * table with the same unicode61 tokenizer (diacritics folded, no stemming), holding only that document
 * while the trigger runs; its words are read back from `search_tokens` (fts5vocab) into the vocabulary.
 * The vocabulary is rebuilt from every document the same way.
 *
 * Frozen SQL text: a released migration never changes (test: migration checksums).
 */
export const m011_search_vocabulary = String.raw`
DROP TRIGGER search_documents_index;

CREATE VIRTUAL TABLE search_tokenizer USING fts5(content, tokenize = 'unicode61 remove_diacritics 2');
CREATE VIRTUAL TABLE search_tokens USING fts5vocab(search_tokenizer, 'row');

CREATE TRIGGER search_documents_index AFTER INSERT ON search_documents
BEGIN
  INSERT INTO search_fts (rowid, content) VALUES (NEW.id, NEW.content);
  INSERT INTO search_tokenizer (rowid, content) VALUES (NEW.id, NEW.content);
  INSERT OR IGNORE INTO search_words (word) SELECT term FROM search_tokens WHERE length(term) BETWEEN 4 AND 64;
  DELETE FROM search_tokenizer WHERE rowid = NEW.id;
END;

INSERT INTO search_trigrams (search_trigrams) VALUES ('delete-all');
DELETE FROM search_words;
INSERT INTO search_tokenizer (rowid, content) SELECT id, content FROM search_documents;
INSERT INTO search_words (word) SELECT term FROM search_tokens WHERE length(term) BETWEEN 4 AND 64;
DELETE FROM search_tokenizer;
INSERT INTO search_tokenizer (search_tokenizer) VALUES ('optimize');
`
