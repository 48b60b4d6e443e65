/**
 * People, pure (decisions §5): how long invitations, codes and sessions live, the sign-in rate limits,
 * and what state an invitation is in.
 */
/** How long an invitation stays valid unless configured otherwise (INVITATION_TTL_DAYS). */
export const INVITATION_TTL_DAYS = 30

/** INVITATION_TTL_DAYS: a whole number of days from 1 to 3650; unset or empty, 30. Anything else is refused in words. */
export const invitationTtlDaysFrom = (value: string | undefined): number => {
  if (value === undefined || value.trim() === "") return INVITATION_TTL_DAYS
  const days = Number(value)
  if (!Number.isInteger(days) || days < 1 || days > 3650) throw new Error(`INVITATION_TTL_DAYS=${value} is not a whole number of days from 1 to 3650`)
  return days
}
export const LOGIN_CODE_TTL_MS = 15 * 60_000
export const SESSION_TTL_MS = 30 * 86_400_000
/** However much it is used, a session ends this long after the sign-in that made it (decisions §5, amended). */
export const SESSION_MAX_MS = 90 * 86_400_000
/** a session's expiry slides forward at most this often (one write an hour, not one per request) */
export const SESSION_TOUCH_MS = 3_600_000
/**
 * Wrong sign-in codes (decisions §5, amended), counted per normalised address whether or not it has an account
 * or a live code, so neither the answers nor their sequence tell which: 10 since the address's latest code
 * request (a code's worth), then 429 until a new code is asked for; 20 a day, then only the one-time link works;
 * and per client (an IPv4 address or an IPv6 /64), 60 an hour.
 */
export const WRONG_CODES = {
  perCode: 10,
  perAddress: { limit: 20, windowMs: 86_400_000 },
  perClient: { limit: 60, windowMs: 3_600_000 }
} as const

export interface RateLimit {
  readonly limit: number
  readonly windowMs: number
}

/** 5 codes an hour per address, 30 an hour per IP address. */
export const SIGN_IN_LIMITS = {
  perAddress: { limit: 5, windowMs: 3_600_000 },
  perIp: { limit: 30, windowMs: 3_600_000 }
} as const satisfies Record<string, RateLimit>

/** Milliseconds until one more event is allowed, given the times (ms) of the events in the window; 0: allowed now. */
export const rateLimitWait = (eventTimesMs: ReadonlyArray<number>, rule: RateLimit, nowMs: number): number => {
  const inWindow = eventTimesMs.filter((t) => t > nowMs - rule.windowMs).sort((a, b) => a - b)
  if (inWindow.length < rule.limit) return 0
  return inWindow[inWindow.length - rule.limit]! + rule.windowMs - nowMs
}

/** Inviting a pending member again re-sends their invitation with a fresh token, at most once a day. */
export const REINVITE_LIMIT: RateLimit = { limit: 1, windowMs: 86_400_000 }

export type InvitationState = "valid" | "used" | "expired"

export const invitationState = (t: { readonly used_at: string | null; readonly expires_at: string }, nowMs: number): InvitationState =>
  t.used_at !== null ? "used" : Date.parse(t.expires_at) <= nowMs ? "expired" : "valid"

/** A sign-in code or link: usable once, before it expires (wrong guesses are counted per address, not here). */
export const codeUsable = (c: { readonly used_at: string | null; readonly expires_at: string }, nowMs: number): boolean =>
  c.used_at === null && Date.parse(c.expires_at) > nowMs
