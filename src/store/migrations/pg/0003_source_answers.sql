-- 0003 (PostgreSQL): the answer text each imported source's spans were made on; the twin of
-- ../0003_source_answers.sql.

ALTER TABLE source_span ADD COLUMN answer TEXT CHECK (answer IS NULL OR length(answer) = 24);
ALTER TABLE source_span ADD COLUMN line BIGINT CHECK (line IS NULL OR line >= 1);
