-- Every batch of readings rewrites the evaluation state of each point it holds. Room left in each
-- page of monitor_point lets PostgreSQL write the new version beside the old one without touching
-- the indexes (a heap-only update), as long as no indexed column changes: the ingest therefore
-- leaves "offlineDue" as it is while it is not later than the new deadline. "offlineDue" is now the
-- earliest moment offline can be due; the sweep reads the state and moves it to the deadline itself
-- when it has not come yet.
ALTER TABLE monitor_point SET (fillfactor = 25);
