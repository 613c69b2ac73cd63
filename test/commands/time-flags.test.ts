import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { serviceTime, timeOf, timeRange, timeText } from '../../src/commands/time-flags.js';
import { runCli } from '../helpers/cli.js';
import { useSandbox } from '../helpers/sandbox.js';
import { tempDir } from '../helpers/temp.js';

const NOW = Date.parse('2026-11-23T12:00:00Z');

describe('time flags: one reading everywhere', () => {
  it.each([
    ['2026-11-01T09:00:00Z', '2026-11-01T09:00:00.000Z'],
    ['2026-11-01t09:00:00z', '2026-11-01T09:00:00.000Z'],
    ['2026-11-01 09:00:00Z', '2026-11-01T09:00:00.000Z'],
    ['2026-11-01T16:00:00+07:00', '2026-11-01T09:00:00.000Z'],
    ['2026-11-01T04:30:00-04:30', '2026-11-01T09:00:00.000Z'],
    ['2026-11-01T09:00:00.250Z', '2026-11-01T09:00:00.250Z'],
    ['2026-11-01', '2026-11-01T00:00:00.000Z'],
    ['2h', '2026-11-23T10:00:00.000Z'],
    ['3d', '2026-11-20T12:00:00.000Z'],
    ['15m', '2026-11-23T11:45:00.000Z'],
  ])('%s is %s', (text, iso) => {
    expect(timeText(text)).toBe(text);
    expect(new Date(timeOf(text, NOW, '--from')).toISOString()).toBe(iso);
  });

  it.each([
    'yesterday',
    '2026-02-30',
    '2026-11-01T24:00:00Z',
    '2026-11-01T09:00',
    '2026-11-01T09:00:00+25:00',
    '1y',
    '',
  ])('%j is refused, naming every accepted form', (text) => {
    expect(() => timeText(text)).toThrow(/expected a time such as .*a date .*a duration ago/);
    expect(() => timeOf(text, NOW, '--since')).toThrow(/^--since: expected a time/);
  });

  it('a range whose start is not before its end holds nothing: a usage error naming both flags', () => {
    const from = { flag: '--from', value: '2026-11-02' };
    expect(timeRange(from, { flag: '--to', value: '2026-11-03' }, NOW)).toEqual({
      start: Date.parse('2026-11-02T00:00:00Z'),
      end: Date.parse('2026-11-03T00:00:00Z'),
    });
    expect(() => timeRange(from, { flag: '--to', value: '2026-11-01' }, NOW)).toThrow(
      /^--from 2026-11-02 is after --to 2026-11-01: the range holds nothing/,
    );
    expect(() => timeRange({ flag: '--since', value: '2h' }, { flag: '--until', value: '2h' }, NOW)).toThrow(
      /is the same time as --until 2h/,
    );
    expect(timeRange({ flag: '--since', value: '3d' }, { flag: '--until', value: undefined }, NOW)).toEqual({
      start: Date.parse('2026-11-20T12:00:00Z'),
    });
    expect(serviceTime(Date.parse('2026-11-01T09:00:00.750Z'))).toBe('2026-11-01T09:00:00Z');
  });
});

describe('the commands that take time flags', () => {
  const fx = useSandbox();

  it('workflow list sends any accepted form in the service format, and refuses a reversed or empty range (exit 2)', async () => {
    const r = await runCli(['workflow', 'list', '--from', '2026-11-01T16:00:00+07:00', '--to', '2026-11-02'], {
      env: fx.env,
    });
    expect(r.code, r.err).toBe(0);
    const sent = fx.sandbox.requests.find((q) => q.path.startsWith('/service/cloud/workflow/instancelist'))!;
    const query = new URL(sent.path, 'http://x').searchParams;
    expect(query.get('start_time')).toBe('2026-11-01T09:00:00Z');
    expect(query.get('end_time')).toBe('2026-11-02T00:00:00Z');
    for (const argv of [
      ['--from', '2026-11-02', '--to', '2026-11-01'],
      ['--from', '1d', '--to', '2d'],
    ]) {
      fx.sandbox.requests.length = 0;
      const bad = await runCli(['workflow', 'list', ...argv], { env: fx.env });
      expect(bad.code, argv.join(' ')).toBe(2);
      expect(bad.err).toMatch(/^error: --from \S+ is after --to \S+: the range holds nothing/);
      expect(fx.sandbox.requests).toHaveLength(0);
    }
    const ago = await runCli(['workflow', 'list', '--from', '3d', '--json'], { env: fx.env });
    expect(ago.code, ago.err).toBe(0);
  });

  it('hooks events takes the same forms, and a reversed --since/--until is exit 2, not an empty list', async () => {
    const log = join(tempDir(), 'events.ndjson');
    writeFileSync(log, '');
    const ok = await runCli([
      'hooks',
      'events',
      '--log',
      log,
      '--since',
      '2026-11-01',
      '--until',
      '2026-11-02T00:00:00+07:00',
    ]);
    expect(ok.code, ok.err).toBe(0);
    const bad = await runCli(['hooks', 'events', '--log', log, '--since', '1h', '--until', '2h']);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/^error: --since 1h is after --until 2h: the range holds nothing/);
    const odd = await runCli(['hooks', 'replay', '--log', log, '--to', 'http://127.0.0.1:9', '--since', 'last week']);
    expect(odd.code).toBe(2);
    expect(odd.err).toMatch(/--since .*expected a time such as/);
  });
});
