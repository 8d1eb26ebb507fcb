-- Every constraint a caller can run into is named after the registry (src/store/constraints.ts):
-- `<table>_<field>_ref` for a reference, `<table>_<field>_unique` for a unique field. The
-- references were named so from the start; the two unique indexes are renamed to match.
ALTER INDEX monitor_equip_code_live RENAME TO "monitor_equip_monitorCode_unique";
ALTER INDEX ticket_base_info_no_live RENAME TO "ticket_base_info_ticketNo_unique";
