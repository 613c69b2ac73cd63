import { describe, expect, it } from 'vitest';
import { timeOf } from '../../src/report/reading.js';

describe('timeOf', () => {
  it('reads both spellings as UTC', () => {
    expect(timeOf('2026-11-20T08:00:30Z')).toBe(Date.UTC(2026, 10, 20, 8, 0, 30));
    expect(timeOf('2026-11-20 08:00:30')).toBe(Date.UTC(2026, 10, 20, 8, 0, 30));
    expect(timeOf(' 2026-11-20 08:00:30 ')).toBe(Date.UTC(2026, 10, 20, 8, 0, 30));
    expect(timeOf('2026-11-20T08:00:30+07:00')).toBeUndefined();
    expect(timeOf('2026-11-20T08:00:30ZZ')).toBeUndefined();
    expect(timeOf(20261120)).toBeUndefined();
  });
});
