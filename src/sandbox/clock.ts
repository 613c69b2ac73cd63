/**
 * Simulated time. The sandbox's clock runs `timeScale` times faster than the wall clock (1 = real
 * time; tests use e.g. 1000) and can be pushed forward with `advance` without waiting.
 */
export class SimClock {
  private readonly realStart = Date.now();
  private offset = 0;

  constructor(
    /** Simulated time (epoch ms) at the moment the clock was made. */
    readonly start: number,
    readonly timeScale: number,
  ) {}

  /** Simulated now, epoch milliseconds. */
  now(): number {
    return this.start + (Date.now() - this.realStart) * this.timeScale + this.offset;
  }

  /** Jumps simulated time forward by `ms` (simulated milliseconds). */
  advance(ms: number): void {
    if (ms > 0) this.offset += ms;
  }

  /** Real milliseconds until simulated time `at`, 0 when it is already past. */
  realDelayUntil(at: number): number {
    return Math.max(0, (at - this.now()) / this.timeScale);
  }
}

const pad = (n: number) => String(n).padStart(2, '0');

/** `YYYY-MM-DDTHH:MM:SSZ`, the spec's time format. */
export function isoSeconds(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19) + 'Z';
}

/** `YYYY-MM-DD HH:MM:SS` (UTC), the workflow call-task detail's call-time format. */
export function spaceSeconds(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
}

/** `YYYY-MM-DD` (UTC). */
export function isoDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** Elapsed seconds as `HH:MM:SS`, as in ASR result lines. */
export function elapsed(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  return `${pad(Math.floor(s / 3600))}:${pad(Math.floor((s % 3600) / 60))}:${pad(s % 60)}`;
}

export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;
