// When a hidden danger or a work ticket is overdue, as of a moment: the rules behind the computed,
// read-only `overdue` of their reads and searches, and the indicators' overdue counts.

/** Not yet accepted (state other than `9`) and the enterprise's date past the deadline day (the day itself is not overdue). */
export function isDangerOverdue(danger: { dangerState: string | null; dangerManageDeadline: string | null }, today: string): boolean {
  return danger.dangerState !== '9' && danger.dangerManageDeadline !== null && today > danger.dangerManageDeadline
}

/** Issued or in progress (`1`, `2`) after its planned end. */
export function isTicketOverdue(ticket: { ticketStatus: string | null; planEndTime: number | null }, now: number): boolean {
  return (ticket.ticketStatus === '1' || ticket.ticketStatus === '2') && ticket.planEndTime !== null && now > ticket.planEndTime
}

/** Ticket statuses that can be overdue. */
export const TICKET_STATUSES_RUNNING = ['1', '2'] as const
/** The hidden-danger state that is never overdue (accepted). */
export const DANGER_STATE_ACCEPTED = '9'
