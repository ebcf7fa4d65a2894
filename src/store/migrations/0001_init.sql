-- 0001: the append-only decision log and the per-record summary.
--
-- Migrations are append-only: never edit this file once released; add 0002_*.sql instead.

-- One row per reviewer decision. Rows are never updated or deleted (see the triggers below):
-- an undo is a new row whose `target` names the decision it reverts.
CREATE TABLE decision (
    id                  INTEGER PRIMARY KEY AUTOINCREMENT,
    -- Globally unique id of the row (128 random bits, hex), kept when databases are merged so
    -- that merging the same database twice adds nothing.
    origin              TEXT    NOT NULL UNIQUE,
    reviewer            TEXT    NOT NULL,
    -- RFC 3339, UTC.
    time                TEXT    NOT NULL,
    dataset             TEXT    NOT NULL,
    record_id           TEXT    NOT NULL,
    -- Hash of the record content the decision was made on (stale when it differs).
    record_hash         TEXT    NOT NULL,
    action              TEXT    NOT NULL CHECK (action IN (
                            'accept', 'accept_all', 'drop', 'adjust', 'relabel', 'add', 'clean',
                            'remove', 'flag', 'note', 'undo', 'redo', 'resolve')),
    -- `gold:<i>` or `added:<uid>`, for span actions.
    span_key            TEXT,
    -- The span before the decision (all NULL when there is none); offsets in code points.
    start_before        INTEGER,
    end_before          INTEGER,
    label_before        TEXT,
    category_before     TEXT,
    subcategory_before  TEXT,
    -- The span after the decision (all NULL when there is none).
    start_after         INTEGER,
    end_after           INTEGER,
    label_after         TEXT,
    category_after      TEXT,
    subcategory_after   TEXT,
    reason              TEXT,
    note                TEXT,
    -- The decision an undo or redo acts on.
    target              INTEGER REFERENCES decision (id),
    -- JSON arrays of source names (arbitration).
    upheld              TEXT    NOT NULL DEFAULT '[]' CHECK (json_valid(upheld) AND json_type(upheld) = 'array'),
    dismissed           TEXT    NOT NULL DEFAULT '[]' CHECK (json_valid(dismissed) AND json_type(dismissed) = 'array'),
    CHECK ((start_before IS NULL) = (end_before IS NULL)
       AND (start_before IS NULL) = (label_before IS NULL)),
    CHECK ((start_after IS NULL) = (end_after IS NULL)
       AND (start_after IS NULL) = (label_after IS NULL)),
    CHECK (start_before IS NULL OR (start_before >= 0 AND end_before >= start_before)),
    CHECK (start_after IS NULL OR (start_after >= 0 AND end_after >= start_after)),
    -- Undo and redo always name their target; other decisions never do.
    CHECK ((action IN ('undo', 'redo')) = (target IS NOT NULL))
);

CREATE INDEX decision_record ON decision (dataset, record_id, id);
CREATE INDEX decision_reviewer ON decision (dataset, reviewer, id);

CREATE TRIGGER decision_no_update BEFORE UPDATE ON decision
BEGIN
    SELECT RAISE(ABORT, 'the decision log is append-only: a decision cannot be changed (append an undo instead)');
END;

CREATE TRIGGER decision_no_delete BEFORE DELETE ON decision
BEGIN
    SELECT RAISE(ABORT, 'the decision log is append-only: a decision cannot be deleted (append an undo instead)');
END;

-- The derived summary of each record, upserted in the same transaction as the decision that
-- changed it. It can always be recomputed by replaying the log.
CREATE TABLE record_state (
    dataset       TEXT    NOT NULL,
    record_id     TEXT    NOT NULL,
    reviewed      INTEGER NOT NULL DEFAULT 0 CHECK (reviewed IN (0, 1)),
    flagged       INTEGER NOT NULL DEFAULT 0 CHECK (flagged IN (0, 1)),
    outcome       TEXT    NOT NULL DEFAULT 'open' CHECK (outcome IN ('open', 'clean', 'removed')),
    stale         INTEGER NOT NULL DEFAULT 0 CHECK (stale IN (0, 1)),
    -- The decision that last set this state.
    decision_id   INTEGER REFERENCES decision (id),
    PRIMARY KEY (dataset, record_id)
) WITHOUT ROWID;
