import { describe, expect, it } from 'vitest';
import { runSummary } from '../../bench/campaign/hosts.mjs';

describe("the campaign day's host runs", () => {
  it('tell why a run did not end well, in its own last line on stderr (a full day kept only exit codes)', () => {
    const held = {
      host: 'b',
      kind: 'push' as const,
      file: 'push-b.csv',
      code: 2,
      err: '2026-11-26T10:00:00.000Z sending 5000 people\n2026-11-26T10:00:01.000Z error: another send to push live is running (pid 42)\n\n',
    };
    expect(runSummary(held)).toBe('b push push-b.csv exit 2 (error: another send to push live is running (pid 42))');
    expect(runSummary({ ...held, code: 0 })).toBe('b push push-b.csv exit 0');
    expect(runSummary({ ...held, err: '' })).toBe('b push push-b.csv exit 2');
  });
});
