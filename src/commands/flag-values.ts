import { InvalidArgumentError } from './commander.js';
import { TIMER_MAX_MS } from '../timers.js';
import { DEFAULT_TIMEOUT_SECONDS } from '../limits.js';

/*
 * The one parser of numeric flag values: durations, rates, counts and ports. A value is checked for
 * range and precision when it is parsed, so that the number a command hands to a timer is one Node
 * honours as given (a whole number of milliseconds up to TIMER_MAX_MS). A bad value is a usage error
 * (exit 2) that names the flag (commander adds it) and the allowed range.
 */

/** The longest delay a timer honours, in whole seconds (24.8 days). */
export const MAX_TIMER_SECONDS = Math.floor(TIMER_MAX_MS / 1000);

/** Default and range of `--timeout` (seconds). */
export const TIMEOUT = { default: DEFAULT_TIMEOUT_SECONDS, min: 0.001, max: MAX_TIMER_SECONDS } as const;
/** Range of `--rate` (requests per second): at the slowest one per 1000 s, at the fastest one per ms. */
export const RATE = { min: 0.001, max: 1000 } as const;

/**
 * Formats a bound without exponent notation (1e-3 reads worse than 0.001), at most 3 decimals.
 * Not toLocaleString: its first call loads ICU's number formatting, ~10 ms of every start
 * (the bounds are formatted when the command tree is declared).
 */
function show(n: number): string {
  return n.toFixed(3).replace(/\.?0+$/, '');
}

/** A decimal number as written by a person: digits, an optional fraction, an optional exponent. */
function decimal(value: string, expected: string): number {
  const text = value.trim();
  if (!/^[+]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(text))
    throw new InvalidArgumentError(`expected ${expected}, got "${value}"`);
  return Number(text);
}

/** True when n has at most `places` decimal places (tolerating binary floating-point noise). */
function hasPlaces(n: number, places: number): boolean {
  const scaled = n * 10 ** places;
  return Math.abs(scaled - Math.round(scaled)) < 1e-6 * Math.max(1, Math.abs(scaled));
}

interface Range {
  min: number;
  max: number;
}

/** A decimal number within `range`, with at most `places` decimals when given; `expected` names it in errors. */
function decimalIn(expected: string, range: Range, places?: number): (value: string) => number {
  return (value) => {
    const n = decimal(value, expected);
    if (!(n >= range.min && n <= range.max) || (places !== undefined && !hasPlaces(n, places)))
      throw new InvalidArgumentError(`expected ${expected}, got "${value}"`);
    return n;
  };
}

/**
 * Seconds with at most millisecond precision, from `min` to `max` (default: what a timer honours).
 * Returns seconds; `Math.round(s * 1000)` is then a valid timer delay.
 */
export function seconds(range: Partial<Range> = {}): (value: string) => number {
  const min = range.min ?? 0.001;
  const max = Math.min(range.max ?? MAX_TIMER_SECONDS, MAX_TIMER_SECONDS);
  const read = decimalIn(`seconds from ${show(min)} to ${show(max)}, at most 3 decimals`, { min, max }, 3);
  return (value) => Math.round(read(value) * 1000) / 1000;
}

/** Whole milliseconds from `min` to `max` (default 0 to what a timer honours). */
export function milliseconds(range: Partial<Range> = {}): (value: string) => number {
  const min = range.min ?? 0;
  const max = Math.min(range.max ?? TIMER_MAX_MS, TIMER_MAX_MS);
  return wholeNumber({ min, max }, 'milliseconds');
}

/** `--timeout <seconds>`: a request's time limit. */
export const timeoutSeconds = seconds(TIMEOUT);

/** Per-second rates (`--rate`), at most 3 decimals: 1000/rate ms between sends is a delay a timer honours. */
export function rate(range: Range = RATE): (value: string) => number {
  return decimalIn(`a rate per second from ${show(range.min)} to ${show(range.max)}, at most 3 decimals`, range, 3);
}

/** A whole number from `min` to `max` (both within Number.MAX_SAFE_INTEGER); `what` names it in errors. */
export function wholeNumber(
  range: Partial<Range> = {},
  unit = '',
  what = `a whole number${unit ? ` of ${unit}` : ''}`,
): (value: string) => number {
  const min = range.min ?? 0;
  const max = range.max ?? Number.MAX_SAFE_INTEGER;
  const expected = `${what} from ${min} to ${max}`;
  return (value) => {
    const text = value.trim();
    const n = Number(text);
    if (!/^[+]?\d+$/.test(text) || !(n >= min && n <= max))
      throw new InvalidArgumentError(`expected ${expected}, got "${value}"`);
    return n;
  };
}

/** A positive number of no particular unit (a speed-up factor): finite, from `min` to `max`. */
export function number(range: Range): (value: string) => number {
  return decimalIn(`a positive number from ${show(range.min)} to ${show(range.max)}`, range);
}

export const positiveInt = wholeNumber({ min: 1 });
export const nonNegativeInt = wholeNumber({ min: 0 });
/** A TCP port, 0 (pick a free one) to 65535. */
export const port = wholeNumber({ min: 0, max: 65535 }, '', 'a port');

const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/**
 * A duration written with its unit (`500ms`, `30s`, `15m`, `2h`, `1d`), in whole milliseconds, up to
 * `maxMs` (default: what a timer honours). Returns undefined for text of another form, so a caller
 * can also accept a time.
 */
export function durationMs(value: string, maxMs = TIMER_MAX_MS): number | undefined {
  const d = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/.exec(value.trim());
  if (!d) return undefined;
  const ms = Number(d[1]) * UNIT_MS[d[2] as keyof typeof UNIT_MS];
  if (!Number.isInteger(ms) || ms > maxMs)
    throw new InvalidArgumentError(
      `expected a duration of whole milliseconds up to ${maxMs / 86_400_000 >= 1 ? `${Math.floor(maxMs / 86_400_000)}d` : `${maxMs}ms`}, got "${value}"`,
    );
  return ms;
}

/** `--recall-window`: a duration with its unit (`24h`, `90m`, `2d`) or `0` (no ledger check), in milliseconds. */
export function recallWindow(value: string): number {
  if (value.trim() === '0') return 0;
  const ms = durationMs(value, 366 * 86_400_000);
  if (ms === undefined)
    throw new InvalidArgumentError(`expected a duration such as 24h, 90m or 2d (or 0), got "${value}"`);
  return ms;
}
