/**
 * What Node's timers accept. A delay above TIMER_MAX_MS is not honoured: Node warns and fires after
 * 1 ms; `AbortSignal.timeout` throws ERR_OUT_OF_RANGE for a fraction. Every delay callctl computes
 * from a user's value is checked against these when the flag is parsed (src/commands/flag-values.ts);
 * the transport asserts them again, so a bad value is a bug caught here, never a request that fails.
 */
export const TIMER_MAX_MS = 2 ** 31 - 1;

/** True when `ms` is a whole number of milliseconds that a timer honours as given. */
export function isTimerMs(ms: number): boolean {
  return Number.isInteger(ms) && ms >= 0 && ms <= TIMER_MAX_MS;
}

/** Throws a RangeError (a bug, not user input) unless `ms` is a delay Node would honour as given. */
export function assertTimerMs(ms: number, what: string): number {
  if (!isTimerMs(ms))
    throw new RangeError(`${what} must be a whole number of milliseconds from 0 to ${TIMER_MAX_MS}, got ${ms}`);
  return ms;
}

/** The whole milliseconds between two sends at `perSecond` (a rate `--rate` allows), within a timer's range. */
export function intervalMs(perSecond: number): number {
  return Math.min(TIMER_MAX_MS, Math.max(1, Math.round(1000 / perSecond)));
}
