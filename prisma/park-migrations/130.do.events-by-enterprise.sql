-- Park edition only. An enterprise account reads its own enterprise's events (docs/events.md):
-- walked from `after` in seq order through this index, whatever the other enterprises wrote.
CREATE INDEX event_company_seq ON event ("companyCode", seq);
