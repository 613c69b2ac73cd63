/**
 * Every record knows its destination, and a person is known by their number (issue 21): the same
 * file to the same workflow id on another service or account is uploaded there too; re-runs send
 * nothing; pushes and template messages reach each person once however files spell them, single
 * sends included. Counted from what the sandboxes received.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';
import { runCli } from '../helpers/cli.js';
import { useSandbox } from '../helpers/sandbox.js';
import { tempDir } from '../helpers/temp.js';
import { templateMessage } from '../helpers/template-send.js';
import { received, WORKFLOW, writeContacts } from '../upload/helpers.js';

const fixture = useSandbox();
let other: Sandbox;
beforeAll(async () => {
  other = await startSandbox();
});
afterAll(() => other.close());

let dir: string;
/** One machine: its own config and state folders, for the whole test. */
let folders: Record<string, string>;
beforeEach(() => {
  dir = tempDir();
  folders = {
    CALLCTL_CONFIG_DIR: join(dir, 'config'),
    XDG_STATE_HOME: join(dir, 'state'),
    XDG_CACHE_HOME: join(dir, 'cache'),
  };
});

const cloud = (sb: Sandbox, appKey = sb.appKey) => ({
  ...folders,
  CALLCTL_BASE_URL: sb.url,
  CALLCTL_TOKEN: sb.issueToken(),
  CALLCTL_APP_KEY: appKey,
});
const update = (file: string, env: Record<string, string>, ...extra: string[]) =>
  runCli(['workflow', 'update', '--workflow-id', WORKFLOW, '--csv', file, '--yes', '--json', ...extra], { env });

describe('uploads are keyed by service and account', () => {
  it('the same file to one workflow id on two services: both get it, and a re-run sends nothing to either', async () => {
    const sandbox = fixture.sandbox;
    const file = writeContacts(join(dir, 'contacts.csv'), 7);
    const before = received(other).length;
    expect((await update(file, cloud(sandbox))).code).toBe(0);
    expect(received(sandbox)).toHaveLength(7);
    // Production after staging: a new upload there, not "already acknowledged".
    const second = await update(file, cloud(other));
    expect(second.code, second.err).toBe(0);
    expect(JSON.parse(second.out)).toMatchObject({ entriesAcknowledged: 7, entriesResumed: 0 });
    expect(received(other).length - before).toBe(7);
    for (const sb of [sandbox, other]) {
      const again = await update(file, cloud(sb));
      expect(again.code, again.err).toBe(0);
      expect(JSON.parse(again.out)).toMatchObject({ sent: 0, entriesResumed: 7 });
    }
    expect(received(sandbox)).toHaveLength(7);
    expect(received(other).length - before).toBe(7);
  });

  it('two accounts (APPKeys) on one service are two destinations', async () => {
    const sandbox = fixture.sandbox;
    const file = writeContacts(join(dir, 'contacts.csv'), 4);
    expect((await update(file, cloud(sandbox, 'account-a'))).code).toBe(0);
    expect((await update(file, cloud(sandbox, 'account-b'))).code).toBe(0);
    expect((await update(file, cloud(sandbox, 'account-a'))).code).toBe(0);
    expect(received(sandbox)).toHaveLength(8);
    // Without an APPKey the account is not known: refused before anything is read or sent.
    const unknown = await update(file, { ...cloud(sandbox), CALLCTL_APP_KEY: '' });
    expect(unknown.code).toBe(2);
    expect(unknown.err).toMatch(/account \(APPKey\) is not known: set CALLCTL_APP_KEY/);
    expect(received(sandbox)).toHaveLength(8);
  });
});

describe('pushes and template messages reach each person once, however spelled', () => {
  const pushEnv = () => ({
    ...folders,
    CALLCTL_FLEX_URL: fixture.sandbox.flexUrl,
    CALLCTL_PUSH_TOKEN: fixture.sandbox.pushToken,
  });
  const pushed = () => fixture.sandbox.state.received.pushes.map((p) => p.caller_id);
  const push = (args: string[]) => runCli(['push', '--yes', '--json', '--rate', '1000', ...args], { env: pushEnv() });

  it('seven one-row files spelling one number seven ways call it once; the others are skipped by the ledger', async () => {
    const spellings = [
      '+15557771234',
      '+1 555 777 1234',
      '+1-555-777-1234',
      '0015557771234',
      '＋１ ５５５ ７７７ １２３４',
      '(555) 777-1234',
      '+1.555.777.1234',
    ];
    const codes: number[] = [];
    for (const [i, s] of spellings.entries()) {
      const file = join(dir, `one-${i}.csv`);
      writeFileSync(file, `caller_id,client_name\n"${s}",Budi\n`);
      codes.push((await push(['--csv', file, '--region', 'US'])).code);
    }
    expect(codes).toEqual([0, 0, 0, 0, 0, 0, 0]);
    expect(pushed()).toEqual(['+15557771234']);
    // Without a region the national spelling is a rejected row (3), never a guess.
    const national = join(dir, 'national.csv');
    writeFileSync(national, 'caller_id\n(555) 777-1235\n');
    const refused = await push(['--csv', national]);
    expect(refused.code).toBe(3);
    expect(refused.err).toMatch(
      /line 2, column caller_id: "\(555\) 777-1235" reads as a national phone number: give its region/,
    );
    // Two spellings in one file are one person: a duplicate row (3), unless --allow-duplicates.
    const twice = join(dir, 'twice.csv');
    writeFileSync(twice, 'caller_id\n+15557770001\n+1 (555) 777-0001\n');
    const dup = await push(['--csv', twice]);
    expect(dup.code).toBe(3);
    expect(dup.err).toContain('line 3: caller_id +1 (555) 777-0001 is +15557770001, also on line 2');
    expect(pushed()).toEqual(['+15557771234']);
  });

  it('a single push, then a CSV naming the same person: reached once; --call-again is the way past', async () => {
    const single = await push(['--caller-id', '+62 812-3456-7001']);
    expect(single.code, single.err).toBe(0);
    const file = join(dir, 'after.csv');
    writeFileSync(file, 'caller_id\n+6281234567001\n+6281234567002\n');
    const csv = await push(['--csv', file]);
    expect(csv.code, csv.err).toBe(0);
    expect(JSON.parse(csv.out)).toMatchObject({ sent: 1, skipped: 1 });
    expect(csv.err).toMatch(/row 1 \(line 2\) \+6281234567001: skipped: already reached through this destination at /);
    // A single push to someone a CSV reached: skipped (0), said on stderr and in --json.
    const again = await push(['--caller-id', '0062 81234567002']);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.out)).toMatchObject({ skipped: true, who: '0062 81234567002' });
    expect(again.err).toMatch(/nothing sent: 0062 81234567002 was already reached through push live http/);
    const dry = await push(['--caller-id', '+6281234567002', '--dry-run']);
    expect(JSON.parse(dry.out)).toMatchObject({ dryRun: true, requests: [], skipped: [{ who: '+6281234567002' }] });
    expect(pushed()).toEqual(['+62 812-3456-7001', '+6281234567002']);
    const forced = await push(['--caller-id', '+6281234567002', '--call-again']);
    expect(forced.code).toBe(0);
    expect(pushed()).toHaveLength(3);
    // --e164 sends the number as the ledger knows it.
    expect((await push(['--caller-id', '+62 812 3456 7009', '--e164'])).code).toBe(0);
    expect(pushed().at(-1)).toBe('+6281234567009');
  });

  it.each([
    ['hello world', 'is not a phone number'],
    ['<script>alert(1)</script>', 'is not a phone number'],
    ['+62812\u00003456', 'holds a control character'],
  ])('with --phone-only, refuses %j as a caller, single or in a CSV (3), sending nothing', async (caller, problem) => {
    const single = await push(['--caller-id', caller, '--phone-only']);
    expect(single.code).toBe(3);
    expect(single.err).toContain(problem);
    const file = join(dir, 'bad.csv');
    writeFileSync(file, `caller_id\n+6281234567001\n"${caller}"\n`);
    const csv = await push(['--csv', file, '--phone-only']);
    expect(csv.code).toBe(3);
    expect(csv.err).toMatch(new RegExp(`line 3, column caller_id: .*${problem}`));
    expect(pushed()).toEqual([]);
  });

  it('template messages: a channel id spelled three ways, and WhatsApp or whatsapp, is one person', async () => {
    const sandbox = fixture.sandbox;
    const env = {
      ...folders,
      CALLCTL_BASE_URL: sandbox.url,
      CALLCTL_SIGN_KEY: sandbox.signKey,
      CALLCTL_SIGN_SECRET: sandbox.signSecret,
    };
    const send = (args: string[]) =>
      runCli(['template', 'send', '--yes', '--json', '--rate', '1000', ...args], { env });
    expect((await send(templateMessage('+62 812 3456 7001'))).code).toBe(0);
    const file = join(dir, 'recipients.csv');
    writeFileSync(
      file,
      'channel,channel_id\nWhatsApp,+6281234567001\nWHATSAPP,006281234567001\nwhatsapp,+6281234567002\n',
    );
    const flags = [
      '--template-id',
      '7',
      '--var',
      'date=2026-12-01',
      '--var',
      'name=Budi',
      '--reply-url',
      'https://example.com/r',
    ];
    const dup = await send(['--csv', file, ...flags]);
    expect(dup.code).toBe(3);
    expect(dup.err).toContain('line 3: WHATSAPP:006281234567001 is whatsapp:+6281234567001, also on line 2');
    writeFileSync(file, 'channel,channel_id\nWhatsApp,+6281234567001\nwhatsapp,+6281234567002\n');
    const csv = await send(['--csv', file, ...flags]);
    expect(csv.code, csv.err).toBe(0);
    expect(JSON.parse(csv.out)).toMatchObject({ sent: 1, skipped: 1 });
    expect(sandbox.state.received.templates.map((t) => t.channel_id)).toEqual(['+62 812 3456 7001', '+6281234567002']);
  });

  it('template messages: four spellings of one number, a national one with --region, are one person', async () => {
    const sandbox = fixture.sandbox;
    const env = {
      ...folders,
      CALLCTL_BASE_URL: sandbox.url,
      CALLCTL_SIGN_KEY: sandbox.signKey,
      CALLCTL_SIGN_SECRET: sandbox.signSecret,
    };
    const codes: number[] = [];
    for (const id of ['+62 812-3450-0014', '+6281234500014', '0062 812 3450 0014', '0812-3450-0014']) {
      const r = await runCli(['template', 'send', '--yes', '--json', '--region', 'ID', ...templateMessage(id)], {
        env,
      });
      codes.push(r.code);
    }
    expect(codes).toEqual([0, 0, 0, 0]);
    expect(sandbox.state.received.templates.map((t) => t.channel_id)).toEqual(['+62 812-3450-0014']);
  });
});
