-- The park aligns each enterprise's buckets of readings to the zone that enterprise pushed: its
-- name as TZ takes it, an offset like +08:00 or an IANA name. PostgreSQL reads a bare offset given
-- as text as a POSIX zone (west of Greenwich positive), so an offset is taken as an interval here,
-- as enterprise_date does.
CREATE FUNCTION zone_local(zone text, instant timestamptz) RETURNS timestamp LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE
    WHEN zone ~ '^[+-][0-9]{2}:[0-9]{2}$' THEN instant AT TIME ZONE zone::interval
    WHEN zone = 'Z' THEN instant AT TIME ZONE 'UTC'
    ELSE instant AT TIME ZONE zone
  END
$$;
CREATE FUNCTION zone_instant(zone text, local timestamp) RETURNS timestamptz LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE
    WHEN zone ~ '^[+-][0-9]{2}:[0-9]{2}$' THEN local AT TIME ZONE zone::interval
    WHEN zone = 'Z' THEN local AT TIME ZONE 'UTC'
    ELSE local AT TIME ZONE zone
  END
$$;
