-- 0004 (PostgreSQL): what a decision means, in columns, and the `retype` action; the twin of
-- ../0004_decision_meaning.sql, whose comments say what each column holds.
--
-- SQLite had to rebuild the table to change a CHECK and fill the new columns from old text.
-- PostgreSQL changes the constraint in place, and has no old rows to fill: spanreview writes
-- PostgreSQL databases from schema 6 on, so no PostgreSQL log predates this migration.

ALTER TABLE decision DROP CONSTRAINT decision_action;
ALTER TABLE decision ADD CONSTRAINT decision_action CHECK (action IN (
    'accept', 'accept_all', 'drop', 'adjust', 'relabel', 'add', 'clean',
    'remove', 'flag', 'note', 'undo', 'redo', 'resolve', 'retype'));

ALTER TABLE decision
    ADD COLUMN group_id      TEXT    CHECK (group_id IS NULL OR length(group_id) > 0),
    ADD COLUMN cluster_start BIGINT,
    ADD COLUMN cluster_end   BIGINT,
    ADD COLUMN claim         BIGINT  CHECK (claim IS NULL OR claim >= 0),
    ADD COLUMN flag_on       BOOLEAN,
    ADD COLUMN record_type   TEXT    CHECK (record_type IS NULL OR length(record_type) > 0),
    ADD COLUMN auto          BOOLEAN NOT NULL DEFAULT false,
    ADD CHECK ((cluster_start IS NULL) = (cluster_end IS NULL)),
    ADD CHECK (cluster_start IS NULL OR (cluster_start >= 0 AND cluster_end >= cluster_start)),
    ADD CHECK (cluster_start IS NULL OR claim IS NULL),
    ADD CHECK ((cluster_start IS NULL AND claim IS NULL) OR action = 'resolve'),
    ADD CHECK ((action = 'flag') = (flag_on IS NOT NULL)),
    ADD CHECK ((action = 'retype') = (record_type IS NOT NULL));

CREATE INDEX decision_group ON decision (dataset, record_id, group_id) WHERE group_id IS NOT NULL;
