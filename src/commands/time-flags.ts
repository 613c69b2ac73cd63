import { InvalidArgumentError } from './commander.js';
import { UsageError } from '../errors.js';
import { durationMs } from './flag-values.js';
import { said } from '../said.js';

/*
 * The one reading of time flags (`workflow list --from/--to`, `hooks events --since/--until`,
 * `hooks replay --since`): each accepts the same three forms, and a range that holds nothing is a
 * usage error instead of an empty answer.
 *   - an RFC 3339 time with any offset: 2026-11-01T09:00:00Z, 2026-11-01T16:00:00+07:00 (a space
 *     for the T and a fraction of a second are allowed);
 *   - a date: 2026-11-01, the start of that day in UTC (the service's times are UTC);
 *   - a duration ago: 90s, 15m, 2h, 3d.
 */

const EXPECTED =
  'a time such as 2026-11-01T09:00:00Z or 2026-11-01T16:00:00+07:00, a date such as 2026-11-01 (00:00 UTC), or a duration ago such as 15m, 2h or 3d';

const RFC3339 = /^(\d{4})-(\d\d)-(\d\d)(?:[Tt ](\d\d):(\d\d):(\d\d)(\.\d+)?([Zz]|[+-](\d\d):(\d\d)))?$/;

/** Milliseconds since the epoch of an RFC 3339 time or a date; undefined for text of another form. */
function absolute(value: string): number | undefined {
  const m = RFC3339.exec(value.trim());
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = [1, 2, 3, 4, 5, 6].map((i) => Number(m[i] ?? 0)) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const date = new Date(Date.UTC(y, mo - 1, d, h, mi, s));
  // Date.UTC rolls 2026-02-30 over into March: a field out of its range is no time.
  const fits =
    date.getUTCFullYear() === y &&
    date.getUTCMonth() === mo - 1 &&
    date.getUTCDate() === d &&
    date.getUTCHours() === h &&
    date.getUTCMinutes() === mi &&
    date.getUTCSeconds() === s &&
    Number(m[9] ?? 0) <= 23 &&
    Number(m[10] ?? 0) <= 59;
  if (!fits) return undefined;
  const sign = m[8]?.startsWith('-') ? -1 : 1;
  const offsetMinutes = m[9] === undefined ? 0 : sign * (Number(m[9]) * 60 + Number(m[10]));
  const fraction = m[7] ? Math.floor(Number(`0${m[7]}`) * 1000) : 0;
  return date.getTime() + fraction - offsetMinutes * 60_000;
}

/** For commander: a usage error (exit 2) at once when the text is none of the three forms. */
export function timeText(value: string): string {
  let ago: number | undefined;
  try {
    ago = durationMs(value, Number.MAX_SAFE_INTEGER);
  } catch {
    ago = undefined;
  }
  if (ago === undefined && absolute(value) === undefined)
    throw new InvalidArgumentError(`expected ${EXPECTED}, got "${value}"`);
  return value;
}

/** A time flag's value in milliseconds since the epoch; `now` for a duration ago. */
export function timeOf(value: string, now: number, flag: string): number {
  let ago: number | undefined;
  try {
    ago = durationMs(value, Number.MAX_SAFE_INTEGER);
  } catch (error) {
    throw new UsageError(said`${flag}: ${(error as Error).message}`);
  }
  if (ago !== undefined) return now - ago;
  const t = absolute(value);
  if (t === undefined) throw new UsageError(said`${flag}: expected ${EXPECTED}, got "${value}"`);
  return t;
}

/**
 * The start and end of a range given by two time flags, each optional; a start not before the
 * end holds nothing, and is a usage error naming both.
 */
export function timeRange(
  start: { flag: string; value: string | undefined },
  end: { flag: string; value: string | undefined },
  now: number,
): { start?: number; end?: number } {
  const s = start.value === undefined ? undefined : timeOf(start.value, now, start.flag);
  const e = end.value === undefined ? undefined : timeOf(end.value, now, end.flag);
  if (s !== undefined && e !== undefined && s >= e)
    throw new UsageError(
      said`${start.flag} ${start.value} is ${s === e ? 'the same time as' : 'after'} ${end.flag} ${end.value}: the range holds nothing (${start.flag} is the earlier end)`,
    );
  return { ...(s !== undefined ? { start: s } : {}), ...(e !== undefined ? { end: e } : {}) };
}

/** The service's time format, `YYYY-MM-DDTHH:MM:SSZ` (UTC, whole seconds). */
export function serviceTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}Z`;
}
