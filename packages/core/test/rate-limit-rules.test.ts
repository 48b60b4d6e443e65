/** The sign-in rate limits' one function (decisions §5), at its boundaries: the end-to-end tests only see whole windows. */
import t from "tap"
import { rateLimitWait, REINVITE_LIMIT, SIGN_IN_LIMITS, WRONG_CODES } from "../src/rules/people.js"

const HOUR = 3_600_000
const now = 10 * HOUR
const rule = { limit: 3, windowMs: HOUR }

t.test("under the limit: allowed now", async (t) => {
  t.equal(rateLimitWait([], rule, now), 0, "no event")
  t.equal(rateLimitWait([now - 2, now - 1], rule, now), 0, "one short of the limit")
})

t.test("at the limit: wait until the oldest event in the window leaves it, to the millisecond", async (t) => {
  t.equal(rateLimitWait([now - 30 * 60_000, now - 2, now - 1], rule, now), 30 * 60_000, "the oldest leaves in half an hour")
  t.equal(rateLimitWait([now - HOUR + 1, now - 2, now - 1], rule, now), 1, "one millisecond inside the window: 1 ms to wait")
  t.equal(rateLimitWait([now, now, now], rule, now), HOUR, "three at once, now: a whole window")
  t.equal(rateLimitWait([now - 1, now - HOUR + 5, now - 2], rule, now), 5, "the times in any order")
})

t.test("an event exactly one window old is out of it; older ones never count", async (t) => {
  t.equal(rateLimitWait([now - HOUR, now - 2, now - 1], rule, now), 0, "the window is (now - window, now]")
  t.equal(rateLimitWait([now - 5 * HOUR, now - 4 * HOUR, now - 3 * HOUR, now - 2, now - 1], rule, now), 0)
})

t.test("over the limit: the wait is until enough events leave for one more", async (t) => {
  // five in the window, limit three: three must leave before one more fits, so the third oldest decides
  const times = [now - 50 * 60_000, now - 40 * 60_000, now - 30 * 60_000, now - 20 * 60_000, now - 10 * 60_000]
  t.equal(rateLimitWait(times, rule, now), 30 * 60_000)
})

t.test("the limits as decided", async (t) => {
  t.same(SIGN_IN_LIMITS, { perAddress: { limit: 5, windowMs: HOUR }, perIp: { limit: 30, windowMs: HOUR } })
  t.same(WRONG_CODES, { perCode: 10, perAddress: { limit: 20, windowMs: 24 * HOUR }, perClient: { limit: 60, windowMs: HOUR } })
  t.same(REINVITE_LIMIT, { limit: 1, windowMs: 24 * HOUR })
  const fifth = [1, 2, 3, 4].map((i) => now - i * 60_000)
  t.equal(rateLimitWait(fifth, SIGN_IN_LIMITS.perAddress, now), 0, "the fifth code in an hour is sent")
  t.equal(rateLimitWait([...fifth, now - 5 * 60_000], SIGN_IN_LIMITS.perAddress, now), 55 * 60_000, "the sixth waits for the first to be an hour old")
})
