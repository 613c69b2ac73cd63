/**
 * Push sends what the spec allows (issue 36 item 1): the spec types `caller_id` as a string and
 * nothing more, so a customer or case id is sent, single or --csv, and the never-twice ledger
 * knows it by its text (NFKC, trimmed); a phone number stays one person however it is spelled.
 * An operator who wants only phone numbers says so: `--phone-only`, or the profile's
 * `caller-id-phone-only`. Counted from what the sandbox received.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/server.js';
import { runCli } from '../helpers/cli.js';
import { tempDir, useSendSandbox } from '../reach/helpers.js';

let sandbox: Sandbox;
let env: Record<string, string>;
let dir: string;

useSendSandbox('push', (s, e) => {
  sandbox = s;
  env = e;
  dir = tempDir();
});

const push = (args: string[]) => runCli(['push', '--yes', '--json', '--rate', '1000', ...args], { env });
const pushed = () => sandbox.state.received.pushes.map((p) => p.caller_id);
const csv = (name: string, text: string) => {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
};

describe('push: any caller_id the spec allows', () => {
  it('a customer id is sent; a later CSV naming it (spaced, or its NFKC twin) is kept back by the ledger', async () => {
    const dry = await push(['--caller-id', 'CUST-1', '--client-name', 'Budi', '--dry-run']);
    expect(dry.code, dry.err).toBe(0);
    expect(JSON.parse(dry.out).requests[0].body).toMatchObject({ caller_id: 'CUST-1', client_name: 'Budi' });
    const single = await push(['--caller-id', 'CUST-1', '--client-name', 'Budi']);
    expect(single.code, single.err).toBe(0);
    expect(pushed()).toEqual(['CUST-1']);
    // As written, padded, and in full-width forms (NFKC makes them CUST-1): one person, reached once.
    for (const [i, spelled] of ['CUST-1', ' CUST-1 ', 'ＣＵＳＴ－１'].entries()) {
      const file = csv(`after-${i}.csv`, `caller_id,client_name\n"${spelled}",Budi\nCASE-${i},Ani\n`);
      const r = await push(['--csv', file]);
      expect(r.code, r.err).toBe(0);
      expect(JSON.parse(r.out)).toMatchObject({ sent: 1, skipped: 1 });
      expect(r.err).toContain(`row 1 (line 2) ${spelled.trim()}: skipped: already reached through this destination`);
    }
    expect(pushed()).toEqual(['CUST-1', 'CASE-0', 'CASE-1', 'CASE-2']);
    // Two spellings of one id in one file are one person: a duplicate row (3).
    const twice = await push(['--csv', csv('twice.csv', 'caller_id\nCUST-9\n  CUST-9\n')]);
    expect(twice.code).toBe(3);
    expect(twice.err).toContain('line 3: caller_id CUST-9 is also on line 2');
  });

  it('four spellings of one phone number are still one person', async () => {
    const spellings = ['+62 812-3450-0014', '+6281234500014', '0062 812 3450 0014', '0812-3450-0014'];
    const codes: number[] = [];
    for (const s of spellings) codes.push((await push(['--caller-id', s, '--region', 'ID'])).code);
    expect(codes).toEqual([0, 0, 0, 0]);
    expect(pushed()).toEqual(['+62 812-3450-0014']);
  });

  it('--phone-only, or the profile caller-id-phone-only, refuses anything but a phone number (3), naming which', async () => {
    const only = await push(['--caller-id', 'CUST-1', '--phone-only']);
    expect(only.code).toBe(3);
    expect(only.err).toContain(
      'error: invalid push: "CUST-1" is not a phone number (--phone-only: only phone numbers are sent); nothing was sent',
    );
    const file = csv('ids.csv', 'caller_id\n+6281234500014\nCUST-2\n');
    const rows = await push(['--csv', file, '--phone-only']);
    expect(rows.code).toBe(3);
    expect(rows.err).toMatch(/line 3, column caller_id: "CUST-2" is not a phone number \(--phone-only/);
    const set = await runCli(['config', 'set', 'caller-id-phone-only', 'true'], { env });
    expect(set.code, set.err).toBe(0);
    const profile = await push(['--caller-id', 'CUST-1']);
    expect(profile.code).toBe(3);
    expect(profile.err).toContain("(profile default's caller-id-phone-only: only phone numbers are sent)");
    expect((await push(['--csv', file])).code).toBe(3);
    // A phone number goes either way.
    expect((await push(['--caller-id', '+6281234500014'])).code).toBe(0);
    expect(pushed()).toEqual(['+6281234500014']);
    const bad = await runCli(['config', 'set', 'caller-id-phone-only', 'yes'], { env });
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('error: caller-id-phone-only is true or false, not "yes"');
  });

  it('a number a spreadsheet wrote in scientific notation is refused (3), saying so and how to export it', async () => {
    const single = await push(['--caller-id', '6.28123E+12']);
    expect(single.code).toBe(3);
    expect(single.err).toMatch(/"6\.28123E\+12" is a number a spreadsheet wrote in scientific notation.*as text/);
    expect(pushed()).toEqual([]);
  });

  it('a control character, or nothing, is still refused (3)', async () => {
    for (const caller of ['CUST\u00001', 'a\u200bb']) {
      const r = await push(['--caller-id', caller]);
      expect(r.code).toBe(3);
      expect(r.err).toContain('holds a control character');
    }
    expect((await push(['--csv', csv('empty.csv', 'caller_id,x\n,1\n')])).code).toBe(3);
    expect(pushed()).toEqual([]);
  });
});
