import { describe, expect, it } from 'vitest';
import { NetworkError } from '../../src/errors.js';
import {
  MAX_CONSECUTIVE_FAILURES,
  selectRows,
  sendRows,
  tally,
  type SendEvent,
  type SendRow,
} from '../../src/reach/rows.js';
import type { Delivery } from '../../src/api/deliver.js';
import { Journal } from '../../src/store/row-journal.js';
import { pushDestination } from '../../src/store/destination.js';
import { FileJournals } from '../../src/store/files/journal.js';
import { tempDir } from './helpers.js';

const rows: SendRow<string>[] = Array.from({ length: 8 }, (_, i) => ({
  row: i + 1,
  line: i + 2,
  who: `c${i + 1}`,
  person: `+62800000000${i + 1}`,
  body: `b${i + 1}`,
}));

/** A fake clock: sleeping and each request move time forward; nothing really waits. */
async function harness(answer: (body: string) => Delivery, options: { rate?: number; stopAfter?: number } = {}) {
  let t = 1_000_000;
  const starts: number[] = [];
  const sent: string[] = [];
  const events: SendEvent[] = [];
  const journal = await Journal.open(
    new FileJournals(tempDir(), '.jsonl'),
    { command: 'push', destination: pushDestination('http://t', 'live'), sha256: 's' },
    {},
    () => t,
  );
  const run = (selection = selectRows(rows, journal.states, { resendUncertain: false, retryFailed: false })) =>
    sendRows(
      rows,
      selection,
      journal,
      {
        prepare: async (row) => ({ url: 'u', endpoint: 'e', headers: {}, body: Buffer.from(row.body) }),
        deliver: async (req) => {
          starts.push(t);
          sent.push(req.body.toString());
          t += 3;
          return answer(req.body.toString());
        },
      },
      {
        rate: options.rate ?? 100,
        resendUncertain: false,
        retryFailed: false,
        now: () => t,
        sleep: async (ms) => {
          t += ms;
        },
        stopRequested: () => options.stopAfter !== undefined && sent.length >= options.stopAfter,
      },
      (e) => events.push(e),
    );
  return { journal, run, starts, sent, events };
}

const ok = (body: string): Delivery => ({
  outcome: 'sent',
  httpStatus: 200,
  code: 200,
  message: 'success',
  id: `id-${body}`,
  answer: {},
});
const refused: Delivery = { outcome: 'failed', httpStatus: 200, code: 400, message: 'code 400: bad' };
const dropped: Delivery = {
  outcome: 'uncertain',
  error: new NetworkError('connection closed', { mayHaveBeenSent: true }),
};
const refusedConnection: Delivery = {
  outcome: 'not-sent',
  error: new NetworkError('connection refused', { mayHaveBeenSent: false }),
};

describe('batch sender', () => {
  it('sends every row once, spaced 1000/rate ms apart, journaling each before and after', async () => {
    const h = await harness(ok, { rate: 50 });
    const { results } = await h.run();
    expect(h.sent).toEqual(rows.map((r) => r.body));
    const gaps = h.starts.slice(1).map((s, i) => s - h.starts[i]!);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(20);
    expect(tally(results)).toEqual({ sent: 8, failed: 0, uncertain: 0, skipped: 0 });
    expect(results[0]).toMatchObject({ row: 1, line: 2, who: 'c1', outcome: 'sent', id: 'id-b1', earlier: false });
    expect(h.events.filter((e) => e.type === 'row')).toHaveLength(8);
    await h.journal.close();
  });

  it('a connection dropped after sending stops the batch; that row is uncertain, later rows skipped', async () => {
    const h = await harness((b) => (b === 'b3' ? dropped : ok(b)));
    const { results, stopped } = await h.run();
    expect(stopped?.reason).toBe('network');
    expect(h.sent).toEqual(['b1', 'b2', 'b3']);
    expect(results.map((r) => r.outcome)).toEqual([
      'sent',
      'sent',
      'uncertain',
      'skipped',
      'skipped',
      'skipped',
      'skipped',
      'skipped',
    ]);
    // The next run sends the skipped rows and leaves the uncertain one alone.
    const selection = selectRows(rows, h.journal.states, { resendUncertain: false, retryFailed: false });
    expect(selection).toMatchObject({ toSend: [4, 5, 6, 7, 8], sentEarlier: 2, uncertain: [3] });
    expect(selectRows(rows, h.journal.states, { resendUncertain: true, retryFailed: false }).toSend).toEqual([
      3, 4, 5, 6, 7, 8,
    ]);
    await h.journal.close();
  });

  it('a refused connection stops the batch, and that row is sent again next time (nothing went out)', async () => {
    const h = await harness((b) => (b === 'b2' ? refusedConnection : ok(b)));
    const { results, stopped } = await h.run();
    expect(stopped?.reason).toBe('network');
    expect(results[1]).toMatchObject({ outcome: 'skipped' });
    expect(selectRows(rows, h.journal.states, { resendUncertain: false, retryFailed: false }).toSend).toEqual([
      2, 3, 4, 5, 6, 7, 8,
    ]);
    await h.journal.close();
  });

  it(`stops after ${MAX_CONSECUTIVE_FAILURES} refusals in a row; refused rows are sent again only with retryFailed`, async () => {
    const h = await harness(() => refused);
    const { results, stopped } = await h.run();
    expect(stopped?.reason).toBe('failures');
    expect(h.sent).toHaveLength(MAX_CONSECUTIVE_FAILURES);
    expect(tally(results)).toMatchObject({
      failed: MAX_CONSECUTIVE_FAILURES,
      skipped: rows.length - MAX_CONSECUTIVE_FAILURES,
    });
    expect(selectRows(rows, h.journal.states, { resendUncertain: false, retryFailed: false }).toSend).toEqual([
      6, 7, 8,
    ]);
    expect(selectRows(rows, h.journal.states, { resendUncertain: false, retryFailed: true }).toSend).toEqual([
      1, 2, 3, 4, 5, 6, 7, 8,
    ]);
    await h.journal.close();
  });

  it('a stop request (Ctrl-C) ends the batch before the next row, never in the middle of one', async () => {
    const h = await harness(ok, { stopAfter: 3 });
    const { results, stopped } = await h.run();
    expect(stopped?.reason).toBe('interrupted');
    expect(tally(results)).toMatchObject({ sent: 3, skipped: 5, uncertain: 0 });
    await h.journal.close();
  });
});
