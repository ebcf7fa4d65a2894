-- The least a reviewer's role needs on a spanreview database (README, "Running a team server"):
-- the log (decision) and the plan (assignment) can only be read and appended to; the derived
-- tables a review keeps up to date (record states, claims, imported sources) can be written.
-- No UPDATE or DELETE on the log: the triggers refuse them anyway, and the role cannot even try.
GRANT SELECT ON schema_version TO reviewer;
GRANT SELECT, INSERT ON decision, assignment TO reviewer;
-- `apply` takes a file's ids from the log's sequence in one query before copying its rows in.
GRANT USAGE ON SEQUENCE decision_id_seq TO reviewer;
GRANT SELECT, INSERT, UPDATE ON record_state, source, source_span TO reviewer;
GRANT SELECT, INSERT, UPDATE, DELETE ON claim TO reviewer;
