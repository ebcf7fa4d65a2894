-- 0004: what a decision means, in columns instead of prefixes of `reason` and `note`, and the
-- `retype` action.
--
-- Migrations are append-only: never edit this file once released; add 0005_*.sql instead.
--
-- Until 0003 the log kept part of its meaning in text: a resolution's rows shared the note
-- `resolution <uid>` and their reason began `cluster S-E:` or `claim N:`, a flag with the
-- reason `off` took the flag off, and an accept-all with the reason `auto: unanimous` was made
-- by the screen on its own. The text stays (it is what a human reads in `decisions`), but
-- nothing reads meaning from it any more: these columns hold it.
--
-- SQLite cannot change a CHECK constraint, and the `action` CHECK must allow `retype`, so the
-- table is rebuilt: a new table with every old column and the new ones, every row copied with
-- its id and origin and the new columns filled from the old text, then the old table dropped and
-- the new one renamed, its indexes and append-only triggers recreated. (Dropping the triggers
-- for a one-time UPDATE would not allow the new action.) Ids are kept, so `target` and
-- `record_state.decision_id` still point at the same rows; the whole migration runs in one
-- transaction with foreign key checks deferred to its commit, when every reference resolves
-- again.

PRAGMA defer_foreign_keys = ON;

-- The old text, read once here and never again. A resolution's reason `cluster S-E: how` (S and
-- E digits) gives the cluster, `claim N: how` the claim; its note `resolution <uid>` the group.
-- A flag's reason `off` took the flag off; an accept-all's `auto: unanimous` was automatic.
CREATE TEMP TABLE decision_0004 AS
SELECT
    id, origin, reviewer, time, dataset, record_id, record_hash, action, span_key,
    start_before, end_before, label_before, category_before, subcategory_before,
    start_after, end_after, label_after, category_after, subcategory_after,
    reason, note, target, upheld, dismissed,
    CASE WHEN action = 'resolve' AND note GLOB 'resolution ?*' THEN substr(note, 12) END AS group_id,
    CASE WHEN is_cluster THEN CAST(cs AS INTEGER) END AS cluster_start,
    CASE WHEN is_cluster THEN CAST(ce AS INTEGER) END AS cluster_end,
    CASE WHEN is_claim THEN CAST(cn AS INTEGER) END AS claim,
    CASE WHEN action = 'flag' THEN (reason IS NOT 'off') END AS flag_on,
    NULL AS record_type,
    (action = 'accept_all' AND reason IS 'auto: unanimous') AS auto
FROM (
    SELECT *,
        action = 'resolve' AND cs <> '' AND ce <> ''
            AND cs NOT GLOB '*[^0-9]*' AND ce NOT GLOB '*[^0-9]*'
            AND CAST(cs AS INTEGER) <= CAST(ce AS INTEGER) AS is_cluster,
        action = 'resolve' AND cn <> '' AND cn NOT GLOB '*[^0-9]*' AS is_claim
    FROM (
        SELECT *,
            -- `cluster S-E: ...`: S between the space and the first '-', E up to the first ':'.
            CASE WHEN reason GLOB 'cluster [0-9]*-[0-9]*:*' THEN
                substr(reason, 9, instr(reason, '-') - 9) ELSE '' END AS cs,
            CASE WHEN reason GLOB 'cluster [0-9]*-[0-9]*:*' THEN
                substr(reason, instr(reason, '-') + 1, instr(reason, ':') - instr(reason, '-') - 1)
                ELSE '' END AS ce,
            CASE WHEN reason GLOB 'claim [0-9]*:*' THEN
                substr(reason, 7, instr(reason, ':') - 7) ELSE '' END AS cn
        FROM decision
    )
)
ORDER BY id;

CREATE TEMP TABLE decision_0004_seq AS
    SELECT seq FROM sqlite_sequence WHERE name = 'decision';

DROP TABLE decision;

CREATE TABLE decision (
    id                  INTEGER PRIMARY KEY AUTOINCREMENT,
    origin              TEXT    NOT NULL UNIQUE,
    reviewer            TEXT    NOT NULL,
    time                TEXT    NOT NULL,
    dataset             TEXT    NOT NULL,
    record_id           TEXT    NOT NULL,
    record_hash         TEXT    NOT NULL,
    action              TEXT    NOT NULL CHECK (action IN (
                            'accept', 'accept_all', 'drop', 'adjust', 'relabel', 'add', 'clean',
                            'remove', 'flag', 'note', 'undo', 'redo', 'resolve', 'retype')),
    span_key            TEXT,
    start_before        INTEGER,
    end_before          INTEGER,
    label_before        TEXT,
    category_before     TEXT,
    subcategory_before  TEXT,
    start_after         INTEGER,
    end_after           INTEGER,
    label_after         TEXT,
    category_after      TEXT,
    subcategory_after   TEXT,
    -- For humans only: nothing reads meaning from `reason` or `note` (see the columns below),
    -- except a drop's or a remove's reason, which is the reason itself.
    reason              TEXT,
    note                TEXT,
    target              INTEGER REFERENCES decision (id),
    upheld              TEXT    NOT NULL DEFAULT '[]' CHECK (json_valid(upheld) AND json_type(upheld) = 'array'),
    dismissed           TEXT    NOT NULL DEFAULT '[]' CHECK (json_valid(dismissed) AND json_type(dismissed) = 'array'),
    -- Decisions committed together as one unit (the rows of one arbitration resolution): undo
    -- and redo take them together, and they are one vote per source. NULL: a decision alone.
    group_id            TEXT    CHECK (group_id IS NULL OR length(group_id) > 0),
    -- What a resolution settles: the disagreement cluster [cluster_start, cluster_end) of the
    -- answer (code points), or `claim`, the index of an unplaced judge claim (the judge's
    -- verdict). At most one of them; only on `resolve` rows; neither on an old hand-made one.
    cluster_start       INTEGER,
    cluster_end         INTEGER,
    claim               INTEGER CHECK (claim IS NULL OR claim >= 0),
    -- A flag puts the flag on (1) or takes it off (0); NULL on every other action.
    flag_on             INTEGER,
    -- A retype gives the record this type (the input's type field, e.g. `Fabrication`).
    record_type         TEXT    CHECK (record_type IS NULL OR length(record_type) > 0),
    -- 1: made by the review screen on its own (an accept-all of a record every source agrees
    -- on), not by a reviewer's key; undo passes over it unless its record is on screen.
    auto                INTEGER NOT NULL DEFAULT 0 CHECK (auto IN (0, 1)),
    CHECK ((start_before IS NULL) = (end_before IS NULL)
       AND (start_before IS NULL) = (label_before IS NULL)),
    CHECK ((start_after IS NULL) = (end_after IS NULL)
       AND (start_after IS NULL) = (label_after IS NULL)),
    CHECK (start_before IS NULL OR (start_before >= 0 AND end_before >= start_before)),
    CHECK (start_after IS NULL OR (start_after >= 0 AND end_after >= start_after)),
    CHECK ((action IN ('undo', 'redo')) = (target IS NOT NULL)),
    CHECK ((cluster_start IS NULL) = (cluster_end IS NULL)),
    CHECK (cluster_start IS NULL OR (cluster_start >= 0 AND cluster_end >= cluster_start)),
    CHECK (cluster_start IS NULL OR claim IS NULL),
    CHECK ((cluster_start IS NULL AND claim IS NULL) OR action = 'resolve'),
    CHECK ((action = 'flag') = (flag_on IS NOT NULL) AND (flag_on IS NULL OR flag_on IN (0, 1))),
    CHECK ((action = 'retype') = (record_type IS NOT NULL))
);

-- Back in id order, so that each undo's target is there before it. Inserting the rows again
-- also settles the deferred foreign key checks the DROP counted (`record_state.decision_id`).
INSERT INTO decision (
    id, origin, reviewer, time, dataset, record_id, record_hash, action, span_key,
    start_before, end_before, label_before, category_before, subcategory_before,
    start_after, end_after, label_after, category_after, subcategory_after,
    reason, note, target, upheld, dismissed,
    group_id, cluster_start, cluster_end, claim, flag_on, record_type, auto)
SELECT
    id, origin, reviewer, time, dataset, record_id, record_hash, action, span_key,
    start_before, end_before, label_before, category_before, subcategory_before,
    start_after, end_after, label_after, category_after, subcategory_after,
    reason, note, target, upheld, dismissed,
    group_id, cluster_start, cluster_end, claim, flag_on, record_type, auto
FROM temp.decision_0004 ORDER BY id;

-- The AUTOINCREMENT counter carries over, so a new row never reuses an id the log once gave.
UPDATE sqlite_sequence
   SET seq = max(seq, coalesce((SELECT max(seq) FROM temp.decision_0004_seq), 0))
 WHERE name = 'decision';

DROP TABLE temp.decision_0004;
DROP TABLE temp.decision_0004_seq;

CREATE INDEX decision_record ON decision (dataset, record_id, id);
CREATE INDEX decision_reviewer ON decision (dataset, reviewer, id);
CREATE INDEX decision_group ON decision (dataset, record_id, group_id) WHERE group_id IS NOT NULL;

CREATE TRIGGER decision_no_update BEFORE UPDATE ON decision
BEGIN
    SELECT RAISE(ABORT, 'the decision log is append-only: a decision cannot be changed (append an undo instead)');
END;

CREATE TRIGGER decision_no_delete BEFORE DELETE ON decision
BEGIN
    SELECT RAISE(ABORT, 'the decision log is append-only: a decision cannot be deleted (append an undo instead)');
END;
