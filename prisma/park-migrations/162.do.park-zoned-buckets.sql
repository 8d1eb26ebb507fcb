-- The park aligns each enterprise's buckets of readings to the zone that enterprise pushed, as TZ
-- takes it: an offset like +08:00, Z, or an IANA name. PostgreSQL reads a bare offset given as text
-- as a POSIX zone, positive west of Greenwich: zone_name gives the name AT TIME ZONE reads as meant.
CREATE FUNCTION zone_name(zone text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE
    WHEN zone ~ '^[+-][0-9]{2}:[0-9]{2}$' THEN translate(left(zone, 1), '+-', '-+') || substr(zone, 2)
    WHEN zone = 'Z' THEN 'UTC'
    ELSE zone
  END
$$;
