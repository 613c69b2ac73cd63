/** The most of its slots the table fills before it doubles (linear probing stays short below it). */
const LOAD = 0.8;

/**
 * Finds rows that repeat an earlier row's callee and caseid, without keeping the rows: each key
 * is kept as a 64-bit hash with the line it was first seen on, in a typed array (12 bytes a slot,
 * at most 80% full), so a million rows take about 16 MB and no garbage. Two different keys
 * share a 64-bit hash with a probability near 1e-8 for a million rows.
 */
export class DuplicateIndex {
  /**
   * Slot i is `table[3i]` (high hash), `table[3i + 1]` (low hash) and `table[3i + 2]` (line; 0
   * is an empty slot, as line numbers start at 1): interleaved, a probe of a table far larger
   * than the CPU's caches reads one cache line rather than three.
   */
  private table: Uint32Array;
  private capacity: number;
  /** A key's first slot is its high hash scaled to the capacity (any capacity, not only powers of 2). */
  private scale: number;
  private count = 0;

  constructor(capacity = 1 << 16) {
    this.capacity = Math.max(2, Math.ceil(capacity));
    this.table = new Uint32Array(this.capacity * 3);
    this.scale = this.capacity / 2 ** 32;
  }

  get size(): number {
    return this.count;
  }

  /**
   * Records the row's key and returns undefined, or returns the line of the earlier row with the
   * same key. Duplicates are defined by callee AND caseid; a missing caseid is its own value.
   */
  add(callee: string, caseid: string | undefined, line: number): number | undefined {
    // cyrb53-style: two 32-bit multiply-xorshift hashes of the UTF-16 units of the key
    // `callee NUL caseid`, read from the two strings (concatenating them costs more than hashing).
    let h1 = 0xdeadbeef ^ (caseid === undefined ? callee.length : callee.length + 1 + caseid.length);
    let h2 = 0x41c6ce57 ^ (caseid === undefined ? 0 : 0x9e3779b9);
    for (let i = 0; i < callee.length; i++) {
      const ch = callee.charCodeAt(i);
      h1 = Math.imul(h1 ^ ch, 2654435761);
      h2 = Math.imul(h2 ^ ch, 1597334677);
    }
    if (caseid !== undefined) {
      h1 = Math.imul(h1, 2654435761); // the NUL between the two
      h2 = Math.imul(h2, 1597334677);
      for (let i = 0; i < caseid.length; i++) {
        const ch = caseid.charCodeAt(i);
        h1 = Math.imul(h1 ^ ch, 2654435761);
        h2 = Math.imul(h2 ^ ch, 1597334677);
      }
    }
    h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
    h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
    h1 >>>= 0;
    h2 >>>= 0;
    const table = this.table;
    for (let slot = this.home(h1); ; slot = this.next(slot)) {
      const at = table[slot * 3 + 2]!;
      if (at === 0) {
        table[slot * 3] = h1;
        table[slot * 3 + 1] = h2;
        table[slot * 3 + 2] = line;
        if (++this.count > this.capacity * LOAD) this.grow();
        return undefined;
      }
      if (table[slot * 3] === h1 && table[slot * 3 + 1] === h2) return at;
    }
  }

  private home(h1: number): number {
    return Math.min(Math.floor(h1 * this.scale), this.capacity - 1);
  }

  private next(slot: number): number {
    return slot + 1 === this.capacity ? 0 : slot + 1;
  }

  private grow(): void {
    const old = this.table;
    this.capacity *= 2;
    this.scale = this.capacity / 2 ** 32;
    const table = (this.table = new Uint32Array(this.capacity * 3));
    for (let i = 0; i < old.length; i += 3) {
      if (old[i + 2] === 0) continue;
      let slot = this.home(old[i]!);
      while (table[slot * 3 + 2] !== 0) slot = this.next(slot);
      table[slot * 3] = old[i]!;
      table[slot * 3 + 1] = old[i + 1]!;
      table[slot * 3 + 2] = old[i + 2]!;
    }
  }
}
