-- 0002: annotation sources imported once (`--judge NAME=FILE`), keyed by the file's content hash.
--
-- Migrations are append-only: never edit this file once released; add 0003_*.sql instead.

-- One row per imported source. A file that holds several sources (a Mu-SHROOM file: one per
-- annotator) has one row each, all with the file's hash. Reopening with the same file finds its
-- rows by hash and reads the spans from here instead of the file; a changed file has another
-- hash and is imported anew (the old rows stay: decisions made against them remain explained).
CREATE TABLE source (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    -- Source name as the records carry it (`ensemble`, `judge`, `mushroom/annotator_x`).
    name      TEXT    NOT NULL,
    role      TEXT    NOT NULL CHECK (role IN ('gold', 'detector', 'annotator', 'judge')),
    -- The file as given on the command line when it was imported.
    path      TEXT    NOT NULL,
    -- SHA-256 of the file's bytes, 64 hex digits (for a database: of its file and its WAL).
    hash      TEXT    NOT NULL CHECK (length(hash) = 64),
    -- `predictions`, `decisions`, `mushroom`, `ragtruth`, `lettuce` or `database`.
    format    TEXT    NOT NULL,
    -- RFC 3339, UTC.
    imported  TEXT    NOT NULL,
    -- Records the source has an opinion on (rows in source_span).
    records   INTEGER NOT NULL DEFAULT 0 CHECK (records >= 0),
    UNIQUE (hash, name)
);

CREATE INDEX source_by_hash ON source (hash);

-- A source's spans on one record: a JSON array of span objects
-- (`{start, end, text, label, category?, subcategory?, confidence?, raw?}`, offsets in code
-- points; `raw` is the span object as read, e.g. a judge's whole decision line). A record the
-- source has no row for is one it says nothing about; `[]` says "no span here".
CREATE TABLE source_span (
    source_id  INTEGER NOT NULL REFERENCES source (id),
    record_id  TEXT    NOT NULL,
    spans      TEXT    NOT NULL CHECK (json_valid(spans) AND json_type(spans) = 'array'),
    PRIMARY KEY (source_id, record_id)
) WITHOUT ROWID;
