/**
 * Finds rows that repeat an earlier row's callee and caseid, without keeping the rows: each key
 * is kept as a 64-bit hash with the line it was first seen on, in typed arrays (12 bytes a slot,
 * at most half full), so a million rows take about 24 MB and no garbage. Two different keys
 * share a 64-bit hash with a probability near 1e-8 for a million rows.
 */
export class DuplicateIndex {
  private hi: Uint32Array;
  private lo: Uint32Array;
  /** 0 is an empty slot (line numbers start at 1). */
  private lines: Uint32Array;
  private mask: number;
  private count = 0;

  constructor(initialCapacity = 1 << 16) {
    let capacity = 1;
    while (capacity < initialCapacity) capacity <<= 1;
    this.hi = new Uint32Array(capacity);
    this.lo = new Uint32Array(capacity);
    this.lines = new Uint32Array(capacity);
    this.mask = capacity - 1;
  }

  get size(): number {
    return this.count;
  }

  /**
   * Records the row's key and returns undefined, or returns the line of the earlier row with the
   * same key. Duplicates are defined by callee AND caseid; a missing caseid is its own value.
   */
  add(callee: string, caseid: string | undefined, line: number): number | undefined {
    const key = caseid === undefined ? callee : `${callee}\u0000${caseid}`;
    // cyrb53-style: two 32-bit multiply-xorshift hashes of the UTF-16 units.
    let h1 = 0xdeadbeef ^ key.length;
    let h2 = 0x41c6ce57 ^ (caseid === undefined ? 0 : 0x9e3779b9);
    for (let i = 0; i < key.length; i++) {
      const ch = key.charCodeAt(i);
      h1 = Math.imul(h1 ^ ch, 2654435761);
      h2 = Math.imul(h2 ^ ch, 1597334677);
    }
    h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
    h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
    h1 >>>= 0;
    h2 >>>= 0;
    for (let slot = h1 & this.mask; ; slot = (slot + 1) & this.mask) {
      const at = this.lines[slot]!;
      if (at === 0) {
        this.hi[slot] = h1;
        this.lo[slot] = h2;
        this.lines[slot] = line;
        if (++this.count * 2 > this.lines.length) this.grow();
        return undefined;
      }
      if (this.hi[slot] === h1 && this.lo[slot] === h2) return at;
    }
  }

  private grow(): void {
    const { hi, lo, lines } = this;
    const capacity = lines.length * 2;
    this.hi = new Uint32Array(capacity);
    this.lo = new Uint32Array(capacity);
    this.lines = new Uint32Array(capacity);
    this.mask = capacity - 1;
    for (let i = 0; i < lines.length; i++) {
      if (lines[i] === 0) continue;
      let slot = hi[i]! & this.mask;
      while (this.lines[slot] !== 0) slot = (slot + 1) & this.mask;
      this.hi[slot] = hi[i]!;
      this.lo[slot] = lo[i]!;
      this.lines[slot] = lines[i]!;
    }
  }
}
