import { DEDUP_WINDOW_MS, SHARED_PAIR_MS } from '../dedup.js';

/** The memories forget their oldest keys beyond this many, so a flood cannot exhaust memory. */
export const DEDUP_MAX_KEYS = 500_000;

/** Forgets the entries last seen over `windowMs` before `now` (insertion order is age order: only the front). */
function expire(map: Map<string, { last: number }>, now: number, windowMs: number): void {
  for (const [key, entry] of map) {
    if (now - entry.last <= windowMs) break;
    map.delete(key);
  }
}

interface Seen {
  count: number;
  last: number;
}

/**
 * Events seen recently, with how often. Insertion order of the Map is age order, so expiry and the
 * size cap only ever look at the front.
 */
export class DedupStore {
  private readonly seen = new Map<string, Seen>();

  constructor(
    private readonly windowMs = DEDUP_WINDOW_MS,
    private readonly maxKeys = DEDUP_MAX_KEYS,
  ) {}

  /**
   * Records one arrival of `key` at `now` and returns how many arrivals came before it within the
   * window: 0 for a new event, n for the service's retry n. Called only once the arrival is
   * durably recorded: an arrival answered 503 must not make its retry look like a duplicate.
   */
  hit(key: string, now: number): number {
    expire(this.seen, now, this.windowMs);
    const entry = this.seen.get(key);
    if (entry) {
      entry.count += 1;
      entry.last = now;
      // Move to the back: the window runs from the latest arrival.
      this.seen.delete(key);
      this.seen.set(key, entry);
      return entry.count - 1;
    }
    this.seen.set(key, { count: 1, last: now });
    if (this.seen.size > this.maxKeys) this.seen.delete(this.seen.keys().next().value!);
    return 0;
  }

  /** How many arrivals of `key` were recorded within the window, without recording one. */
  peek(key: string, now: number): number {
    expire(this.seen, now, this.windowMs);
    return this.seen.get(key)?.count ?? 0;
  }

  get size(): number {
    return this.seen.size;
  }
}

/**
 * Plan-end replay protection: which events (identities) each `Timestamp`+`Sign` pair was seen
 * with, and when first. The plan Sign covers only Timestamp + KEY, so one captured notification
 * would otherwise let anyone send any PlanName and PlanDetails under its pair. Pairs are
 * remembered for twice the freshness window (the span in which a Timestamp is accepted at all).
 */
export class SignPairs {
  private readonly owners = new Map<string, { keys: Set<string>; first: number; last: number }>();

  constructor(
    private readonly windowMs: number,
    private readonly maxKeys = DEDUP_MAX_KEYS,
    private readonly sharedMs = SHARED_PAIR_MS,
  ) {}

  /**
   * Whether `key` arriving under `pair` now is a replay: the pair was first seen more than
   * SHARED_PAIR_MS ago with other events only.
   */
  replay(pair: string, key: string, now: number): boolean {
    expire(this.owners, now, this.windowMs);
    const entry = this.owners.get(pair);
    return entry !== undefined && !entry.keys.has(key) && now - entry.first > this.sharedMs;
  }

  /** Records the pair for `key`; returns an undo for a record that could not be written. */
  claim(pair: string, key: string, now: number): () => void {
    let entry = this.owners.get(pair);
    const added = !entry?.keys.has(key);
    if (entry) {
      entry.keys.add(key);
      entry.last = now;
      this.owners.delete(pair);
    } else {
      entry = { keys: new Set([key]), first: now, last: now };
    }
    this.owners.set(pair, entry);
    if (this.owners.size > this.maxKeys) this.owners.delete(this.owners.keys().next().value!);
    return () => {
      const e = this.owners.get(pair);
      if (!added || !e) return;
      e.keys.delete(key);
      if (e.keys.size === 0) this.owners.delete(pair);
    };
  }
}
