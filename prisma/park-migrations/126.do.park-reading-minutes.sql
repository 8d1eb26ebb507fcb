-- Park edition only. Readings arrive as one-minute aggregates per point (/system/push/readings): a
-- pushed minute replaces the one held. hazard/monitorData/aggregate and latest are answered from
-- them. Values as the enterprise sent them (text); `sum` exact, so that wider buckets average exactly.
CREATE TABLE park_reading_minute (
  "companyCode"     text NOT NULL,
  "monitorEquipId"  text NOT NULL,
  minute            timestamptz(0) NOT NULL,
  min               text NOT NULL,
  max               text NOT NULL,
  avg               text NOT NULL,
  sum               numeric NOT NULL,
  last              text NOT NULL,
  "lastQuality"     smallint NOT NULL,
  count             integer NOT NULL,
  "pushTime"        timestamptz(3) NOT NULL,
  PRIMARY KEY ("companyCode", "monitorEquipId", minute)
);

-- Every (enterprise, point) with pushed minutes, found by point id: which enterprises hold a point
-- id, and the points the live board lists beside the pushed equipment.
CREATE TABLE park_reading_point (
  "companyCode"     text NOT NULL,
  "monitorEquipId"  text NOT NULL,
  PRIMARY KEY ("companyCode", "monitorEquipId")
);
CREATE INDEX park_reading_point_id ON park_reading_point ("monitorEquipId");
