import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { defaultServiceSign } from '../../src/signing/sign.js';
import type { Sandbox } from '../../src/sandbox/server.js';
import { runCli, type RunOptions } from '../helpers/cli.js';
import { received, tempDir, useSendSandbox, writeIn } from '../reach/helpers.js';
import { TEMPLATE_CSV_FLAGS } from '../helpers/template-send.js';

let sandbox: Sandbox;
let env: Record<string, string>;
let dir: string;
const PATH = '/api/v1/template/unitcast';
const SIGNER = fileURLToPath(new URL('../../fixtures/send/hmac-sign.mjs', import.meta.url));
const FLAGS = TEMPLATE_CSV_FLAGS;
const CSV =
  'channel_id,user_id,name,reply_url\n+6281000000001,u1,Ani,\n+6281000000002,,Budi,https://example.com/other\n+6281000000003,u3,Citra,\n';

useSendSandbox('template', (s, e) => {
  sandbox = s;
  env = e;
  dir = tempDir();
});

const cli = (argv: string[], options: RunOptions = {}) =>
  runCli(['template', 'send', ...FLAGS, ...argv], { ...options, env: { ...env, ...options.env } });

describe('template send --csv', () => {
  it('a dry run counts in the right form: "1 of 1 row", "2 of 2 rows"', async () => {
    const lines = CSV.trimEnd().split('\n');
    for (const [n, rows] of [
      [1, 'row'],
      [2, 'rows'],
    ] as const) {
      const file = writeIn(dir, `count-${n}.csv`, `${lines.slice(0, n + 1).join('\n')}\n`);
      const dry = await cli(['--csv', file, '--dry-run']);
      expect(dry.code, dry.err).toBe(0);
      expect(dry.err).toContain(`${n} of ${n} ${rows} would be sent`);
    }
    expect(received(sandbox, PATH)).toHaveLength(0);
  });

  it('one signed message per row, columns over flags, task ids in the results; a re-run sends nothing twice', async () => {
    const file = writeIn(dir, 'people.csv', CSV);
    const r = await cli(['--csv', file, '--yes', '--rate', '50']);
    expect(r.code, r.err).toBe(0);
    const got = sandbox.state.received.templates;
    expect(got.map((m) => [m.template_id, m.channel, m.channel_id, m.user_id, m.variable, m.reply_url])).toEqual([
      [9, 'whatsapp', '+6281000000001', 'u1', { date: '2026-12-01', name: 'Ani' }, 'https://example.com/replies'],
      [9, 'whatsapp', '+6281000000002', '', { date: '2026-12-01', name: 'Budi' }, 'https://example.com/other'],
      [9, 'whatsapp', '+6281000000003', 'u3', { date: '2026-12-01', name: 'Citra' }, 'https://example.com/replies'],
    ]);
    for (const q of received(sandbox, PATH))
      expect(q.headers['x-service-sign']).toBe(defaultServiceSign(q.body, sandbox.signSecret));
    const lines = readFileSync(`${dir}/people.results.csv`, 'utf8').trim().split('\n');
    expect(lines[0]).toBe('row,line,recipient,outcome,task_id,error');
    expect(lines.slice(1)).toEqual(
      got.map(
        (m, i) => `${i + 1},${i + 2},whatsapp:${m.channel_id}${m.user_id ? `/${m.user_id}` : ''},sent,${m.task_id},`,
      ),
    );
    const again = await cli(['--csv', file, '--yes', '--json']);
    expect(JSON.parse(again.out)).toMatchObject({ total: 3, sent: 3, thisRun: { sent: 0 } });
    expect(got).toHaveLength(3);
    // Another template is another batch: the same file goes out again, on purpose.
    const other = await runCli(
      ['template', 'send', ...FLAGS.map((f) => (f === '9' ? '10' : f)), '--csv', file, '--yes', '--json'],
      { env },
    );
    expect(JSON.parse(other.out)).toMatchObject({ thisRun: { sent: 3 } });
  });

  it('each row is signed by --sign-command with its own body', async () => {
    const file = writeIn(dir, 'people.csv', CSV);
    const secretFile = writeIn(dir, 'secret', sandbox.signSecret);
    const r = await cli(
      ['--csv', file, '--yes', '--sign-command', `"${process.execPath}" "${SIGNER}" "${secretFile}"`],
      { env: { CALLCTL_SIGN_SECRET: '' } },
    );
    expect(r.code, r.err).toBe(0);
    expect(sandbox.state.received.templates).toHaveLength(3);
  });

  it('a failing --sign-command ends the batch (2) before anything is sent; the results file says so', async () => {
    const file = writeIn(dir, 'people.csv', CSV);
    const r = await cli(['--csv', file, '--yes', '--sign-command', 'exit 4']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('--sign-command exited with code 4');
    expect(sandbox.requests).toHaveLength(0);
    const lines = readFileSync(`${dir}/people.results.csv`, 'utf8').trim().split('\n').slice(1);
    expect(lines.map((l) => l.split(',')[3])).toEqual(['skipped', 'skipped', 'skipped']);
  });

  it('checks every row first (3); --signature does not go with --csv (2)', async () => {
    const file = writeIn(
      dir,
      'bad.csv',
      'channel_id,name\n+6281000000001,Ani\n+6281000000002,\n,Citra\n+6281000000001,Ani\n',
    );
    const r = await cli(['--csv', file, '--yes']);
    expect(r.code).toBe(3);
    expect(r.err).toContain('line 3: variable name is required');
    expect(r.err).toContain('line 4: channel_id is required');
    expect(r.err).toContain('line 5: whatsapp:+6281000000001 is also on line 2');
    const sig = await cli(['--csv', writeIn(dir, 'ok.csv', CSV), '--signature', 'abc', '--yes']);
    expect(sig.code).toBe(2);
    expect(sig.err).toContain('--signature does not go with --csv');
    // No reply URL in the row nor on the command line: the problem says where one is given.
    const noReply = await runCli(
      [
        'template',
        'send',
        ...FLAGS.filter((f, i) => f !== '--reply-url' && FLAGS[i - 1] !== '--reply-url'),
        '--csv',
        writeIn(dir, 'no-reply.csv', 'channel_id,name\n+6281000000001,Ani\n'),
        '--yes',
      ],
      { env },
    );
    expect(noReply.code).toBe(3);
    expect(noReply.err).toContain('line 2: reply_url is required (a reply_url column or --reply-url URL)');
    const single = await runCli(
      [
        'template',
        'send',
        '--template-id',
        '9',
        '--channel',
        'whatsapp',
        '--channel-id',
        '+6281000000001',
        '--var',
        'name=Ani',
        '--yes',
      ],
      { env },
    );
    expect(single.code).toBe(3);
    expect(single.err).toContain('reply_url is required (--reply-url URL)');
    expect(sandbox.requests).toHaveLength(0);
  });

  it('never twice: a connection dropped after the body stops the batch (5), and the re-run leaves that row alone', async () => {
    const file = writeIn(dir, 'people.csv', CSV);
    sandbox.setFaults({ dropAfterBody: 1 });
    const r = await cli(['--csv', file, '--yes', '--json']);
    expect(r.code).toBe(5);
    expect(JSON.parse(r.out)).toMatchObject({ sent: 0, uncertain: 1, skipped: 2, uncertainRows: [1] });
    expect(r.err).toContain('row 1 (line 2) whatsapp:+6281000000001/u1: uncertain');
    expect(received(sandbox, PATH)).toHaveLength(1);
    const again = await cli(['--csv', file, '--yes', '--json']);
    expect(again.code).toBe(5);
    expect(again.err).toMatch(/error: 1 row may have reached people/);
    expect(JSON.parse(again.out)).toMatchObject({ sent: 2, uncertain: 1, uncertainRows: [1] });
    expect(received(sandbox, PATH).map((q) => JSON.parse(q.body).channel_id)).toEqual([
      '+6281000000001',
      '+6281000000002',
      '+6281000000003',
    ]);
  });
});
