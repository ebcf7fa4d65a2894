-- 0005: on each `resolve` row, how many units (disputed clusters and unplaced judge claims) the
-- record had when the resolution was made, so that replay knows a record is settled only once
-- every unit is (the log alone does not know the clusters no resolution named).
--
-- Migrations are append-only: never edit this file once released; add 0006_*.sql instead.
--
-- NULL on every other action, and on resolutions written before 0005 (replay keeps the old
-- rule for them). SQLite allows a CHECK in ADD COLUMN; it is checked on rows written from now
-- on (the existing rows all hold NULL).
ALTER TABLE decision ADD COLUMN record_units INTEGER
    CHECK (record_units IS NULL OR (action = 'resolve' AND record_units >= 0));
