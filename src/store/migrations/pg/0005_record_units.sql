-- 0005 (PostgreSQL): on each `resolve` row, how many units the record had when it was made;
-- the twin of ../0005_record_units.sql.

ALTER TABLE decision ADD COLUMN record_units BIGINT
    CHECK (record_units IS NULL OR (action = 'resolve' AND record_units >= 0));
