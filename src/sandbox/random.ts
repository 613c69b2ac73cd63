/** A small deterministic PRNG (mulberry32), so the seed data and the fail rate are reproducible. */
export interface Rng {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [min, max]. */
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
  digits(n: number): string;
  /** `n` random lowercase hex digits. */
  hex(n: number): string;
}

export function createRng(seed: number): Rng {
  let a = seed >>> 0 || 0x9e3779b9;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  return {
    next,
    int,
    pick: <T>(items: readonly T[]) => items[Math.floor(next() * items.length)] as T,
    digits: (n) => Array.from({ length: n }, () => String(int(0, 9))).join(''),
    hex: (n) => Array.from({ length: n }, () => int(0, 15).toString(16)).join(''),
  };
}
