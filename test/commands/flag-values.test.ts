import { beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox } from '../../src/sandbox/server.js';
import { intervalMs, TIMER_MAX_MS } from '../../src/timers.js';
import { durationMs, MAX_TIMER_SECONDS, rate, seconds, timeoutSeconds } from '../../src/commands/flag-values.js';
import { Transport } from '../../src/api/transport.js';
import { runCli } from '../helpers/cli.js';
import { pushCsv, tempDir, writeIn } from '../reach/helpers.js';
import { useSandbox } from '../helpers/sandbox.js';

let sandbox: Sandbox;
let env: Record<string, string>;

const fixture = useSandbox();
beforeEach(() => {
  sandbox = fixture.sandbox;
  env = {
    ...fixture.env,
    CALLCTL_FLEX_URL: sandbox.flexUrl,
    CALLCTL_PUSH_TOKEN: sandbox.pushToken,
    CALLCTL_SIGN_KEY: sandbox.signKey,
    CALLCTL_SIGN_SECRET: sandbox.signSecret,
  };
});

describe('numeric flag values are checked against what the runtime can do (exit 2, the allowed range)', () => {
  const csv = () => writeIn(tempDir(), 'rows.csv', pushCsv(2));
  it.each([
    // --timeout: a fraction of a millisecond made AbortSignal.timeout throw ERR_OUT_OF_RANGE on every
    // request (a push then said the call MAY HAVE BEEN PLACED); past 2147483 s Node's timer overflows.
    [['--timeout', '2.3333', 'push', '--caller-id', '+6281234567001', '--yes'], '--timeout', /0\.001 to 2147483/],
    [['--timeout', '2147484', 'robots'], '--timeout', /0\.001 to 2147483/],
    [['--timeout', '0', 'robots'], '--timeout', /0\.001 to 2147483/],
    [['--timeout', 'Infinity', 'robots'], '--timeout', /0\.001 to 2147483/],
    [['--timeout', '0x10', 'robots'], '--timeout', /0\.001 to 2147483/],
    // --rate: 1e-9 per second is a 31-year wait that Node clamps to 1 ms: the rate was ignored.
    [['push', '--csv', '@CSV', '--rate', '1e-9', '--yes'], '--rate', /0\.001 to 1000/],
    [['push', '--csv', '@CSV', '--rate', '0.0005', '--yes'], '--rate', /0\.001 to 1000/],
    [['push', '--csv', '@CSV', '--rate', '5000', '--yes'], '--rate', /0\.001 to 1000/],
    [
      ['template', 'send', '--csv', '@CSV', '--template-id', '1', '--rate', '1e-9', '--yes'],
      '--rate',
      /0\.001 to 1000/,
    ],
    [['template', 'send', '--template-id', '1.5', '--yes'], '--template-id', /whole number/],
    [['sandbox', '--delay', '2.5'], '--delay', /whole number of milliseconds from 0 to 2147483647/],
    [['sandbox', '--delay', '2147483648'], '--delay', /0 to 2147483647/],
    [['sandbox', '--token-ttl', '1e10'], '--token-ttl', /1 to 2147483/],
    [['serve-hooks', '--port', '65536'], '--port', /0 to 65535/],
    [['workflow', 'update', '--max-invalid', '-1'], '--max-invalid', /whole number/],
  ])('%j', async (argv, flag, range) => {
    const r = await runCli(
      argv.map((a) => (a === '@CSV' ? csv() : a)),
      { env },
    );
    expect(r.code, r.err).toBe(2);
    expect(r.err).toContain(flag);
    expect(r.err).toMatch(range);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(sandbox.requests).toHaveLength(0);
  });

  it('--timeout with millisecond precision and the largest timer-safe value both work', async () => {
    const a = await runCli(['--timeout', '2.333', 'push', '--caller-id', '+6281234567001', '--yes'], { env });
    expect(a.code, a.err).toBe(0);
    expect(sandbox.state.received.pushes).toHaveLength(1);
    const b = await runCli(['--timeout', String(MAX_TIMER_SECONDS), 'robots', '--json'], { env });
    expect(b.code, b.err).toBe(0);
  });

  it('--rate 0.001 and 1000 are accepted, and a CSV send at the highest rate finishes', async () => {
    const r = await runCli(['push', '--csv', csv(), '--rate', '1000', '--yes'], { env });
    expect(r.code, r.err).toBe(0);
    expect(sandbox.state.received.pushes).toHaveLength(2);
    expect(rate()('0.001')).toBe(0.001);
  });
});

describe('the parsers', () => {
  it('seconds: range and millisecond precision; what they return is a valid timer delay', () => {
    for (const ok of ['0.001', '1', '2.5', '30', '1e3', '2147483', '.5', '2.333']) {
      const s = timeoutSeconds(ok);
      const ms = Math.round(s * 1000);
      expect(Number.isInteger(ms) && ms >= 1 && ms <= TIMER_MAX_MS).toBe(true);
    }
    for (const bad of ['', ' ', '-1', '0', '0.0001', '2.3333', '2147484', 'NaN', '1,5', '1_000', '1s'])
      expect(() => timeoutSeconds(bad)).toThrow(/expected/);
    expect(() => seconds({ min: 1, max: 10 })('11')).toThrow(/1 to 10/);
  });

  it('a rate gives an interval in whole milliseconds within the timer range, for every allowed rate', () => {
    for (const r of [0.001, 0.003, 0.7, 1, 3, 333.333, 999.999, 1000]) {
      const ms = intervalMs(r);
      expect(Number.isInteger(ms) && ms >= 1 && ms <= TIMER_MAX_MS).toBe(true);
      expect(Math.abs(ms - 1000 / r)).toBeLessThanOrEqual(0.5);
    }
  });

  it('durations with units, in whole milliseconds, bounded', () => {
    expect(durationMs('15m')).toBe(900_000);
    expect(durationMs('500ms')).toBe(500);
    expect(durationMs('1.5s')).toBe(1500);
    expect(durationMs('2026-01-01')).toBeUndefined();
    expect(() => durationMs('25d')).toThrow(/up to 24d/);
    expect(() => durationMs('0.5ms')).toThrow(/whole milliseconds/);
  });

  it('the transport refuses a timeout no timer honours (a bug, caught before any request)', () => {
    const base = { userAgent: 'x', sleep: async () => {}, secrets: () => [] };
    expect(() => new Transport({ ...base, timeoutMs: 2333.3 })).toThrow(RangeError);
    expect(() => new Transport({ ...base, timeoutMs: 2_147_484_000 })).toThrow(RangeError);
    expect(() => new Transport({ ...base, timeoutMs: 2333 })).not.toThrow();
  });
});
