-- Record history: one entry per business write, written by the write's own statement
-- (a data-modifying CTE), so it commits with the write and a write stays one round trip.
--
-- One table for every resource, keyed by (resource, id, companyCode, version): the read of one
-- record's history walks that key newest first. `changes` maps each changed business field to
-- [old, new] as stored (instants are turned into the wire form when read). Entries of deleted
-- records stay. Pruning by age (HISTORY_RETENTION_DAYS) scans `time` through a BRIN index, which
-- costs the writes next to nothing (entries arrive in time order).
CREATE TABLE record_history (
  resource      text NOT NULL,
  id            text NOT NULL,
  "companyCode" text NOT NULL,
  version       bigint NOT NULL,
  action        text NOT NULL CHECK (action IN ('add', 'update', 'delete')),
  time          timestamptz(3) NOT NULL,
  "userName"    text NOT NULL,
  changes       jsonb NOT NULL,
  PRIMARY KEY (resource, id, "companyCode", version)
);
CREATE INDEX record_history_time ON record_history USING brin (time);

-- The changed fields between two rows (as jsonb) over the given field names: {field: [old, new]}.
-- A field missing from a row counts as null; on an add (old NULL) every field set appears as
-- [null, value]. The same function serves the enterprise's writes and the park's applied pushes.
CREATE FUNCTION history_changes(old jsonb, new jsonb, fields text[]) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce(jsonb_object_agg(f, jsonb_build_array(coalesce(old -> f, 'null'), coalesce(new -> f, 'null'))), '{}'::jsonb)
  FROM unnest(fields) AS f
  WHERE coalesce(old -> f, 'null') IS DISTINCT FROM coalesce(new -> f, 'null')
$$;
