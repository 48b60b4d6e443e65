/**
 * A meeting's calendar invitation (decisions §15): the outcome of a meeting poll names the chosen time, and its mail
 * carries `meeting.ics` (RFC 5545, made with ical-generator) to those who answered Yes or Maybe for that time. A
 * date-time option is an event of `MEETING_MINUTES`, in UTC (each calendar shows it in its person's zone); a date
 * alone is a day-long event.
 */
import ical, { ICalAttendeeRole, ICalAttendeeStatus, ICalCalendarMethod } from "ical-generator"

/** How long a meeting lasts where its poll says nothing else. */
export const MEETING_MINUTES = 60

export interface MeetingInvitation {
  /** stable for the outcome: a calendar updates the same event when it is sent again */
  readonly uid: string
  /** the chosen option's name: `YYYY-MM-DD` or an ISO 8601 date-time */
  readonly slot: string
  readonly summary: string
  readonly location: string | null
  readonly description: string
  /** the outcome's author, where they have an address */
  readonly organizer: { readonly name: string; readonly email: string } | undefined
  readonly attendees: ReadonlyArray<{ readonly name: string; readonly email: string; readonly maybe: boolean }>
}

/** The answers that make someone an attendee of the chosen time: Yes (2) or Maybe (1). */
export const attends = (score: number | undefined): boolean => score !== undefined && score >= 1

export const meetingCalendar = (m: MeetingInvitation): string => {
  const calendar = ical({ name: m.summary, method: ICalCalendarMethod.REQUEST, prodId: { company: "convene", product: "convene" } })
  const allDay = /^\d{4}-\d{2}-\d{2}$/.test(m.slot)
  const start = allDay ? new Date(`${m.slot}T00:00:00.000Z`) : new Date(m.slot)
  calendar.createEvent({
    id: m.uid,
    start,
    end: allDay ? new Date(start.getTime() + 86_400_000) : new Date(start.getTime() + MEETING_MINUTES * 60_000),
    allDay,
    summary: m.summary,
    ...(m.location === null ? {} : { location: m.location }),
    description: m.description,
    ...(m.organizer === undefined ? {} : { organizer: { name: m.organizer.name, email: m.organizer.email } }),
    attendees: m.attendees.map((a) => ({
      name: a.name, email: a.email, rsvp: true, role: a.maybe ? ICalAttendeeRole.OPT : ICalAttendeeRole.REQ, status: ICalAttendeeStatus.NEEDSACTION
    }))
  })
  return calendar.toString()
}
