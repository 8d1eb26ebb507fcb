-- The service's own instants are kept to the second, as they are written back and as callers'
-- instants are kept (statements write date_trunc('second', now()), src/store/sql-text.ts NOW).
-- Kept to the millisecond before, a record was not `eq` to the `updateTime` its reads show, and
-- records written within one second were listed by the hidden fraction instead of by `id`.
-- Rows written before are cut to the second here (a history entry's time is its version's
-- updateTime). Only rows holding a fraction are rewritten: nothing on a new database.
DO $$
DECLARE
  target text;
BEGIN
  FOR target IN
    SELECT table_name FROM information_schema.columns
    WHERE table_schema = current_schema() AND column_name = 'sync_time' ORDER BY table_name
  LOOP
    EXECUTE format(
      'UPDATE %I SET "createTime" = date_trunc(''second'', "createTime"), "updateTime" = date_trunc(''second'', "updateTime"), '
      '"deleteTime" = date_trunc(''second'', "deleteTime"), sync_time = date_trunc(''second'', sync_time) '
      'WHERE "createTime" <> date_trunc(''second'', "createTime") OR "updateTime" <> date_trunc(''second'', "updateTime") '
      'OR "deleteTime" <> date_trunc(''second'', "deleteTime") OR sync_time <> date_trunc(''second'', sync_time)',
      target);
  END LOOP;
END $$;

UPDATE record_history SET time = date_trunc('second', time) WHERE time <> date_trunc('second', time);
