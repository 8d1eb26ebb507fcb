-- A point's "offlineDue" is counted from its equipment's offlineAfterSeconds when a reading is
-- judged. When that setting changes, the deadline counted from the old one may be too late (or
-- missing, when offline was off): the point is made due at once, whatever the clock, so that the
-- sweep judges it against the new setting at its next run and moves the deadline where it belongs.
CREATE FUNCTION monitor_equip_offline_setting_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE monitor_point SET "offlineDue" = '-infinity' WHERE "monitorEquipId" = NEW.id;
  RETURN NULL;
END
$$;
CREATE TRIGGER monitor_equip_offline_setting_changed AFTER UPDATE OF "offlineAfterSeconds" ON monitor_equip
  FOR EACH ROW WHEN (NEW."offlineAfterSeconds" IS DISTINCT FROM OLD."offlineAfterSeconds")
  EXECUTE FUNCTION monitor_equip_offline_setting_changed();
