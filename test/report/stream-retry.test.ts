import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { fixtureServer } from './fixture-server.js';
import { tempDir } from '../helpers/temp.js';

// A connection lost half-way through a streamed answer: reads are retried, and what was already
// taken from the first attempt must not count twice (reports, files) or be written twice (stdout).

const records = Array.from({ length: 40 }, (_, i) => ({
  id: i + 1,
  CalleeNumber: `+55119000000${String(i).padStart(2, '0')}`,
  RingType: i % 4 ? 'normal' : 'busy',
  HangupType: 'ByRobot',
  TalkRound: i % 4 ? 2 : 0,
  CallStartTime: '2026-11-20T10:00:00Z',
  CallEndTime: '2026-11-20T10:00:30Z',
  CallTimes: 1,
  Intention: 'A',
  intention_description: 'x'.repeat(200),
}));
const task = {
  TaskID: 'T-CUT',
  TaskName: 'cut',
  RobotMethod: 'single',
  RobotID: 'r',
  SIPLine: 's',
  Status: 'finished',
  ScheduleStartTime: '2026-11-20T09:00:00Z',
  ScheduleEndTime: '2026-11-20T10:00:00Z',
  RepeatInterval: 1,
  RepeatNumber: 1,
  detail: records,
};
const body = JSON.stringify({ data: task, status: 'OK', code: 200 });

let server: Awaited<ReturnType<typeof fixtureServer>> | undefined;
afterEach(() => server?.close());
const start = async () => {
  server = await fixtureServer({ '/service/cloud/detail': () => body }, { cutFirst: 1 });
  return { CALLCTL_BASE_URL: server.url, CALLCTL_TOKEN: 'tok', CALLCTL_CONFIG_DIR: tempConfigDir() };
};

describe('a connection lost mid-body', () => {
  it('report: retried from the start, nothing counted twice', async () => {
    const env = await start();
    const r = await runCli(['task', 'report', 'T-CUT', '--json'], { env });
    expect(r.code).toBe(0);
    expect(server!.hits).toHaveLength(2);
    expect(JSON.parse(r.out).totals).toMatchObject({ records: 40, connected: 30, busy: 10 });
  });

  it('--output: the file starts over; it holds every record once', async () => {
    const env = await start();
    const dir = tempDir('callctl-cut-');
    const file = join(dir, 'cut.ndjson');
    const r = await runCli(['task', 'detail', 'T-CUT', '-o', file], { env });
    expect(r.code).toBe(0);
    expect(server!.hits).toHaveLength(2);
    const ids = readFileSync(file, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l).id);
    expect(ids).toEqual(records.map((x) => x.id));
    expect(readdirSync(dir)).toEqual(['cut.ndjson']);
  });

  it('stdout: records already written cannot be taken back, so no retry: exit 5 saying how many', async () => {
    const env = await start();
    const r = await runCli(['task', 'detail', 'T-CUT', '--format', 'ndjson'], { env });
    expect(r.code).toBe(5);
    const written = r.out.trimEnd().split('\n').filter(Boolean);
    expect(written.length).toBeGreaterThan(0);
    expect(written.length).toBeLessThan(records.length);
    expect(new Set(written).size).toBe(written.length);
    expect(r.err).toContain('the connection was lost in the middle of the answer');
    expect(r.err).toContain(`${written.length} record${written.length === 1 ? '' : 's'} had been written before it`);
    expect(r.err.match(/had been written/g)).toHaveLength(1); // told once, not again by the caller
    expect(r.err.trim().split('\n')).toHaveLength(1);
    // No second request whose answer would be dropped.
    expect(server!.hits).toHaveLength(1);
  });
});

describe('a streamed body slower than --timeout', () => {
  it('an export and --json go on while bytes keep coming; a whole-answer read still times out', async () => {
    const small = JSON.stringify({ data: { ...task, detail: records.slice(0, 12) }, status: 'OK', code: 200 });
    // About 40 pieces 60 ms apart: 2.4 s in all, never 1 s without a byte.
    server = await fixtureServer({ '/service/cloud/detail': () => small }, { pieceDelayMs: 60 });
    const env = { CALLCTL_BASE_URL: server.url, CALLCTL_TOKEN: 'tok', CALLCTL_CONFIG_DIR: tempConfigDir() };
    const exported = await runCli(['task', 'detail', 'T-CUT', '--format', 'ndjson', '--timeout', '1'], { env });
    expect(exported.err).toBe('');
    expect(exported.code).toBe(0);
    expect(exported.out.trimEnd().split('\n')).toHaveLength(12);
    const json = await runCli(['task', 'detail', 'T-CUT', '--json', '--timeout', '1'], { env });
    expect(json.code).toBe(0);
    expect(JSON.parse(json.out).detail).toHaveLength(12);
    const whole = await runCli(['task', 'detail', 'T-CUT', '--timeout', '1'], { env });
    expect(whole.code).toBe(5);
    expect(whole.err).toContain('timed out after 1 s');
  }, 30_000);
});

describe('--output where no file can be made', () => {
  it.each(['json', 'ndjson', 'csv'])(
    '%s: a body in many pieces into a missing folder is one error line and exit 6, not a silent 0',
    async (format) => {
      // A write stream that failed to open never drains: a writer waiting for it waited forever,
      // and the process ended with exit 0 and no file.
      server = await fixtureServer({ '/service/cloud/detail': () => body });
      const env = { CALLCTL_BASE_URL: server.url, CALLCTL_TOKEN: 'tok', CALLCTL_CONFIG_DIR: tempConfigDir() };
      const dir = tempDir('callctl-nodir-');
      const file = join(dir, 'missing', 'x.out');
      const r = await runCli(['task', 'detail', 'T-CUT', '--format', format, '-o', file], { env });
      expect(r.err.trim()).toMatch(new RegExp(`^error: cannot write ${file.replace(/[.]/g, '\\.')}: ENOENT`));
      expect(r.err.trim().split('\n')).toHaveLength(1);
      expect(r.code).toBe(6);
      expect(readdirSync(dir)).toEqual([]);
    },
  );
});

describe('an error code after the records', () => {
  const failing = JSON.stringify({ data: task, status: 'internal trouble', code: 500 });
  it.each([['--json'], ['--format', 'ndjson']])(
    '%s on stdout: not asked again once records are out; the service own words, with how many were written',
    async (...flags) => {
      server = await fixtureServer({ '/service/cloud/detail': () => failing });
      const env = { CALLCTL_BASE_URL: server.url, CALLCTL_TOKEN: 'tok', CALLCTL_CONFIG_DIR: tempConfigDir() };
      const r = await runCli(['task', 'detail', 'T-CUT', ...flags], { env });
      expect(r.code).toBe(5);
      // It said "the connection was lost" after asking again, which nothing had lost.
      expect(server.hits).toHaveLength(1);
      const said = `GET /service/cloud/detail: code 500: internal trouble; ${records.length} records had been written before it; this may pass by itself: run again later`;
      if (flags[0] === '--json') {
        expect(r.err).toContain(`error: ${said}`);
        const { error } = JSON.parse(r.err.trim().split('\n').at(-1)!);
        expect(error).toMatchObject({ message: said, serviceCode: 500, written: records.length, exitCode: 5 });
        expect(r.out.trimEnd().endsWith(']')).toBe(false);
        expect(() => JSON.parse(r.out)).toThrow();
      } else {
        expect(r.err.trim()).toBe(`error: ${said}`);
        expect(r.out.trimEnd().split('\n')).toHaveLength(records.length);
      }
    },
  );

  it('--output: asked again, as nothing was shown; the file is not made', async () => {
    server = await fixtureServer({ '/service/cloud/detail': () => failing });
    const env = { CALLCTL_BASE_URL: server.url, CALLCTL_TOKEN: 'tok', CALLCTL_CONFIG_DIR: tempConfigDir() };
    const dir = tempDir('callctl-500-');
    const r = await runCli(['task', 'detail', 'T-CUT', '-o', join(dir, 'x.ndjson'), '--format', 'ndjson'], { env });
    expect(r.code).toBe(5);
    expect(server.hits.length).toBeGreaterThan(1);
    expect(r.err).toContain('code 500: internal trouble after');
    expect(r.err).not.toContain('had been written');
    expect(readdirSync(dir)).toEqual([]);
  }, 30_000);
});

describe('a token refused after the records', () => {
  it('--json on stdout: a new token is got, but the answer is not asked again once records are out', async () => {
    const refused = JSON.stringify({ data: task, status: 'token expired', code: 401 });
    server = await fixtureServer({
      '/service/cloud/detail': () => refused,
      '/service/cloud/auth': () => JSON.stringify({ data: { token: 'fresh' }, status: 'OK', code: 200 }),
    });
    const env = {
      CALLCTL_BASE_URL: server.url,
      CALLCTL_APP_KEY: 'key',
      CALLCTL_APP_SECRET: 'app-secret-1',
      CALLCTL_CONFIG_DIR: tempConfigDir(),
    };
    const r = await runCli(['task', 'detail', 'T-CUT', '--json'], { env });
    // It asked again, and said "the connection was lost ... (attempt 0)" of a refused token.
    expect(server.hits.map((h) => h.split('?')[0])).toEqual([
      'POST /service/cloud/auth',
      'GET /service/cloud/detail',
      'POST /service/cloud/auth',
    ]);
    expect(r.code).toBe(4);
    expect(r.err).toContain(
      `error: GET /service/cloud/detail: code 401: token expired: the token was rejected once part of the answer was shown; a new one is in use now: run the command again; ${records.length} records had been written before it`,
    );
  });
});
