-- 0003: the answer text each imported source's spans were made on.
--
-- Migrations are append-only: never edit this file once released; add 0004_*.sql instead.

-- Per record of a source read from a file that carries answer text (every format but judge
-- decisions): `answer` is the SHA-256 of that text, the first 12 bytes as 24 hex digits, and
-- `line` the file's line the record was read from. Spans made on another answer text than the
-- record's sit at the wrong offsets, so such a source is not attached to the record (it is
-- named in a warning instead). NULL: not known (a database source, a decisions file, or an
-- import made before this migration, filled in when the file is next given).
ALTER TABLE source_span ADD COLUMN answer TEXT CHECK (answer IS NULL OR length(answer) = 24);
ALTER TABLE source_span ADD COLUMN line INTEGER CHECK (line IS NULL OR line >= 1);
