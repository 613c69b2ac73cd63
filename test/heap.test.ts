import { describe, expect, it } from 'vitest';
import { collectYoung } from '../src/heap.js';

describe('collectYoung', () => {
  it("frees the dead Buffers of a young generation now (a large --json's socket reads), not 64 MB later", async () => {
    const arrayBuffers = () => process.memoryUsage().arrayBuffers;
    const before = arrayBuffers();
    // 200 socket-sized reads, each dead once read (as a chunk copied into a worker's slot).
    let sum = 0;
    for (let i = 0; i < 200; i++) sum += Buffer.allocUnsafeSlow(64 << 10).length;
    expect(sum).toBe(200 * 65536);
    expect(arrayBuffers() - before).toBeGreaterThan(10 << 20);
    collectYoung();
    // V8 may free the memory of dead buffers on a helper thread just after the collection.
    for (let i = 0; i < 50 && arrayBuffers() - before > 2 << 20; i++) await new Promise((r) => setTimeout(r, 10));
    expect(arrayBuffers() - before).toBeLessThan(2 << 20);
  });
});
