import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';

// Nothing is contacted: the file is checked before anything is sent.
const env = () => ({
  CALLCTL_CONFIG_DIR: tempConfigDir(),
  CALLCTL_BASE_URL: 'http://127.0.0.1:9',
  CALLCTL_TOKEN: 'tok-12345',
  CALLCTL_APP_KEY: 'k',
  CALLCTL_FLEX_URL: 'http://127.0.0.1:9/flex',
  CALLCTL_PUSH_TOKEN: 'ptk-12345',
  CALLCTL_SIGN_KEY: 'sk-12345',
  CALLCTL_SIGN_SECRET: 'ss-12345',
});
const commands: Array<[string, (csv: string) => string[]]> = [
  ['push --csv', (csv) => ['push', '--csv', csv, '--yes']],
  [
    'template send --csv',
    (csv) => ['template', 'send', '--template-id', '7', '--csv', csv, '--reply-url', 'http://x/r', '--yes'],
  ],
  ['workflow update', (csv) => ['workflow', 'update', '--workflow-id', 'wf-1', '--csv', csv, '--yes']],
];

describe('an input CSV that cannot be read: exit 6 (README, exit codes), one line, nothing sent', () => {
  it.each(commands)('%s: a missing file', async (_name, argv) => {
    const csv = join(tempDir(), 'missing.csv');
    const r = await runCli(argv(csv), { env: env() });
    expect(r.code).toBe(6);
    expect(r.err).toMatch(new RegExp(`error: cannot read ${csv}: no such file or folder\\n$`));
  });

  it.each(commands)(
    '%s: a FIFO with no writer ends at once with a clear line, instead of hanging',
    async (_name, argv) => {
      const csv = join(tempDir(), 'rows.csv');
      execFileSync('mkfifo', [csv]);
      const r = await runCli(argv(csv), { env: env() });
      expect(r.code).toBe(6);
      expect(r.err).toMatch(
        /cannot read .*rows\.csv: not a regular file \(a pipe or device: save it to a file first\)\n$/,
      );
    },
  );
});

describe('hooks events on a log with corrupt lines', () => {
  it('lists what reads, numbered by line, and says how many lines it skipped', async () => {
    const log = join(tempDir(), 'events.ndjson');
    const record = (task: string) =>
      JSON.stringify({
        v: 1,
        time: '2026-11-20T10:00:00.000Z',
        method: 'POST',
        path: '/',
        headers: {},
        body: JSON.stringify({ TaskID: task }),
        bytes: 10,
        type: 'task.end',
        verdict: 'verified',
        duplicate: false,
        retry: 0,
        status: 200,
      });
    writeFileSync(log, `${record('T-1')}\n{"v":1,"time":"2026-11-2\n${record('T-3')}\nnot json at all\n`);
    const r = await runCli(['hooks', 'events', '--log', log, '--json'], {
      env: { CALLCTL_CONFIG_DIR: tempConfigDir() },
    });
    expect(r.code).toBe(0);
    const lines = r.out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; task?: string });
    expect(lines.map((l) => [l.id, l.task])).toEqual([
      ['1', 'T-1'],
      ['3', 'T-3'],
    ]);
    expect(r.err).toBe(`warning: 2 lines of ${log} could not be read (corrupt or cut short): skipped\n`);
  });
});
