import { z } from 'zod';
import type { Rng } from './random.js';

/**
 * Fault settings, switchable at start (`SandboxOptions.faults`), in-process (`sandbox.faults`,
 * a plain mutable object) and over HTTP (`POST /__sandbox/faults`). The `next N` counters count
 * down as they fire. Admin paths (`/__sandbox/`) are never faulted.
 */
export const faultSettingsSchema = z.strictObject({
  /** Only requests whose path starts with this prefix are faulted (default: all). */
  path: z.string().nullable(),
  /** Fraction (0..1) of requests answered HTTP 500, at random (seeded). */
  failRate: z.number().min(0).max(1),
  /** The next N requests answer HTTP 500. */
  fail500: z.number().int().min(0),
  /** The next N requests answer HTTP 429 with `Retry-After: retryAfter`. */
  fail429: z.number().int().min(0),
  /** Seconds sent in `Retry-After` with a 429. */
  retryAfter: z.number().min(0),
  /** The next N requests: the connection is destroyed before the body is read, nothing answered. */
  drop: z.number().int().min(0),
  /** The next N requests: the whole body is read (the service "got" it), then the connection is destroyed. */
  dropAfterBody: z.number().int().min(0),
  /**
   * The next N requests are handled as usual (a push places its call, a template send sends its
   * message, a list update keeps its entries), then the connection is destroyed instead of the
   * answer: done, and the client cannot know it.
   */
  dropAnswer: z.number().int().min(0),
  /** Every answer (faults included) is delayed this many real milliseconds. */
  delayMs: z.number().min(0),
  /** Overrides the token lifetime (real seconds) for every token, issued or not; null: the option's. */
  tokenTtlSeconds: z.number().min(0).nullable(),
  /**
   * updatedetails: fail the `index`-th valid batch (1-based, counted from when this value was set)
   * `once`, or `always` (every attempt at that batch). `envelope`: HTTP 200 with code 500;
   * `drop`: connection destroyed, nothing accepted; `drop-after-accept`: the entries are accepted
   * and kept, then the connection is destroyed (the client cannot know they arrived).
   */
  failBatch: z
    .strictObject({
      index: z.number().int().min(1),
      mode: z.enum(['envelope', 'drop', 'drop-after-accept']).default('envelope'),
      repeat: z.enum(['once', 'always']).default('once'),
    })
    .nullable(),
});

export type FaultSettings = z.infer<typeof faultSettingsSchema>;
export type FailBatch = NonNullable<FaultSettings['failBatch']>;
/** Partial settings, as given at start or posted to the admin endpoint. */
export const faultPatchSchema = faultSettingsSchema.partial();
export type FaultPatch = z.input<typeof faultPatchSchema>;

/** The request-level faults, in the order they are decided (one per request). */
const ORDER = ['drop', 'fail429', 'fail500', 'failRate', 'dropAfterBody', 'dropAnswer'] as const;

/** The names injected faults are counted under (`state.counters.faults`). */
export type FaultName = (typeof ORDER)[number] | 'failBatch';

export function defaultFaults(): FaultSettings {
  return {
    path: null,
    failRate: 0,
    fail500: 0,
    fail429: 0,
    retryAfter: 1,
    drop: 0,
    dropAfterBody: 0,
    dropAnswer: 0,
    delayMs: 0,
    tokenTtlSeconds: null,
    failBatch: null,
  };
}

/** The request-level fault a request gets; `retryAfter` is sent with a 429. */
export interface FaultAction {
  name: (typeof ORDER)[number];
  retryAfter: number;
}

/** Applies a patch (validated) to the live settings object, in place. */
export function applyFaultPatch(faults: FaultSettings, patch: unknown): FaultSettings {
  const parsed = faultPatchSchema.parse(patch);
  Object.assign(faults, parsed);
  return faults;
}

export function resetFaults(faults: FaultSettings): void {
  Object.assign(faults, defaultFaults());
}

/**
 * Decides the request-level fault for one request and counts down its counter (the fail rate is
 * a fraction, drawn from the seeded random numbers).
 */
export function decideFault(faults: FaultSettings, path: string, rng: Rng): FaultAction | undefined {
  if (faults.path && !path.startsWith(faults.path)) return undefined;
  for (const name of ORDER) {
    if (name === 'failRate' ? faults.failRate > 0 && rng.next() < faults.failRate : faults[name] > 0) {
      if (name !== 'failRate') faults[name]--;
      return { name, retryAfter: faults.retryAfter };
    }
  }
  return undefined;
}

/**
 * Tracks the updatedetails batch fault: counts valid batches since `faults.failBatch` was last
 * assigned (told by object identity, so `sandbox.faults.failBatch = {...}` restarts the count).
 */
export class BatchFaultTracker {
  private current: FailBatch | null = null;
  private accepted = 0;

  /** The fault to apply to the next valid batch, if it is the one to fail. */
  check(faults: FaultSettings): FailBatch | undefined {
    const fb = faults.failBatch;
    if (fb !== this.current) {
      this.current = fb;
      this.accepted = 0;
    }
    if (!fb || this.accepted + 1 !== fb.index) return undefined;
    if (fb.repeat === 'once') {
      faults.failBatch = null;
      this.current = null;
    }
    return fb;
  }

  /** A batch was accepted (counts toward the index). */
  accept(faults: FaultSettings): void {
    if (faults.failBatch === this.current) this.accepted++;
  }
}
