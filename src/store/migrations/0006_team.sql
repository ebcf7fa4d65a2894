-- 0006: team review: the assignment plan (`spanreview assign`) and claims on records.
--
-- Migrations are append-only: never edit this file once released; add 0007_*.sql instead.

-- The plan: which reviewers review which record. Rows are never changed: each `assign` run
-- writes a whole new generation of the dataset's plan, and the latest generation stands (so a
-- re-assignment keeps the plan it replaced, for the record).
CREATE TABLE assignment (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    dataset     TEXT    NOT NULL,
    generation  INTEGER NOT NULL CHECK (generation >= 1),
    record_id   TEXT    NOT NULL,
    reviewer    TEXT    NOT NULL,
    -- RFC 3339, UTC: when the generation was written.
    time        TEXT    NOT NULL,
    UNIQUE (dataset, generation, record_id, reviewer)
);

CREATE INDEX assignment_plan ON assignment (dataset, generation, id);

CREATE TRIGGER assignment_no_update BEFORE UPDATE ON assignment
BEGIN
    SELECT RAISE(ABORT, 'an assignment plan is never changed (assign again to write a new one)');
END;

CREATE TRIGGER assignment_no_delete BEFORE DELETE ON assignment
BEGIN
    SELECT RAISE(ABORT, 'an assignment plan is never deleted (assign again to write a new one)');
END;

-- A record on a reviewer's screen, so that two reviewers sharing a database are not served the
-- same unreviewed record at once. One row per record; a claim past `expires` is void and may be
-- taken over. Claims are working state, not the record of what was decided: they are updated
-- and deleted, and `merge-db` does not carry them.
CREATE TABLE claim (
    dataset     TEXT    NOT NULL,
    record_id   TEXT    NOT NULL,
    reviewer    TEXT    NOT NULL,
    -- RFC 3339, UTC.
    expires     TEXT    NOT NULL,
    PRIMARY KEY (dataset, record_id)
);
