/**
 * One reading of phone numbers (issue 36 item 2): an upload takes the spellings push and template
 * send take, with the same --region (or the profile's region), and sends each callee in E.164, the
 * form the spec gives for callee numbers. People are keyed by E.164: two spellings of one number
 * with one caseid are one contact (a duplicate row), and a re-run of the same file finds its journal.
 * Judged by what the sandbox received.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { received, useUploadSandbox, WORKFLOW } from '../upload/helpers.js';
import type { Sandbox } from '../../src/sandbox/server.js';

let sandbox: Sandbox;
let env: Record<string, string>;
let dir: string;
useUploadSandbox((s) => ({ sandbox, env, dir } = s));

let n = 0;
function csv(text: string): string {
  const path = join(dir, `n${++n}.csv`);
  writeFileSync(path, text);
  return path;
}
const update = (file: string, ...extra: string[]) =>
  runCli(['workflow', 'update', '--workflow-id', WORKFLOW, '--csv', file, '--yes', '--json', ...extra], { env });
const callees = () => received(sandbox).map((e) => e.callee);

describe('workflow update reads phone numbers as push does', () => {
  it('an export spelling numbers with spaces, dashes, 00 or full-width digits is uploaded in E.164', async () => {
    const file = csv(
      'callee,platform,caseid\n' +
        '+62 812-3450-0014,shop,A1\n' +
        '0062 812 3450 0015,shop,A2\n' +
        '＋６２ ８１２ ３４５０ ００１６,shop,A3\n' +
        '(+62) 812.3450.0017,shop,A4\n',
    );
    const r = await update(file);
    expect(r.code, r.err).toBe(0);
    expect(callees()).toEqual(['+6281234500014', '+6281234500015', '+6281234500016', '+6281234500017']);
  });

  it('a national number needs --region (or the profile region), never a guess', async () => {
    const text = 'callee,platform\n+6281234500021,shop\n0812-3450-0022,shop\n';
    const refused = await update(csv(text));
    expect(refused.code).toBe(3);
    expect(refused.err).toContain(
      'line 3, column callee: "0812-3450-0022" reads as a national phone number: give its region, the country\'s two letters (--region ID for Indonesia, or `callctl config set region ID`), or write it with + and the country code',
    );
    expect(callees()).toEqual([]);
    // What the message says to type reads the tour's numbers (it said --region US, which refused them).
    const suggested = /\((--region) (\w\w)\b/.exec(refused.err)!.slice(1);
    const flagged = await update(csv(text), ...suggested);
    expect(flagged.code, flagged.err).toBe(0);
    expect(callees()).toEqual(['+6281234500021', '+6281234500022']);
    const bad = await update(csv(text), '--region', 'XX');
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('--region: "XX" is not a region libphonenumber knows');
    expect((await runCli(['config', 'set', 'region', 'ID'], { env })).code).toBe(0);
    const stored = await update(csv(`${text}0812-3450-0023,shop\n`));
    expect(stored.code, stored.err).toBe(0);
    expect(callees().slice(2)).toEqual(['+6281234500021', '+6281234500022', '+6281234500023']);
    expect((await runCli(['config', 'unset', 'region'], { env })).code).toBe(0);
  });

  it('four spellings of one number with one caseid are one contact: the others are duplicates', async () => {
    const file = csv(
      'callee,platform,caseid\n' +
        '+62 812-3450-0031,shop,K1\n' +
        '+6281234500031,shop,K1\n' +
        '0062 812 3450 0031,shop,K1\n' +
        '0812-3450-0031,shop,K1\n',
    );
    const strict = await update(file, '--region', 'ID');
    expect(strict.code).toBe(3);
    for (const line of [3, 4, 5])
      expect(strict.err).toContain(`line ${line}, column callee+caseid: duplicate of line 2 (same callee and caseid`);
    const r = await update(file, '--region', 'ID', '--max-invalid', '3');
    expect(r.code, r.err).toBe(0);
    expect(callees()).toEqual(['+6281234500031']);
    // The same file again: its journal is found, nothing is sent.
    const again = await update(file, '--region', 'ID', '--max-invalid', '3');
    expect(again.code, again.err).toBe(0);
    expect(JSON.parse(again.out)).toMatchObject({ sent: 0, entriesResumed: 1 });
    expect(callees()).toEqual(['+6281234500031']);
  });

  it('a number a spreadsheet wrote in scientific notation says so, and how to export the column as text', async () => {
    const r = await update(csv('callee,platform\n+6281234500041,shop\n6.28123E+12,shop\n'));
    expect(r.code).toBe(3);
    expect(r.err).toContain(
      'line 3, column callee: "6.28123E+12" is a number a spreadsheet wrote in scientific notation, which lost its last digits: export the column as text',
    );
    expect(callees()).toEqual([]);
  });

  it('text that is no phone number is refused, naming it', async () => {
    const r = await update(csv('callee,platform\n+6281234500051,shop\nCUST-1,shop\n+0812345678,shop\n'));
    expect(r.code).toBe(3);
    expect(r.err).toContain('line 3, column callee: "CUST-1" is not a phone number');
    expect(r.err).toContain('line 4, column callee: "+0812345678" is not a phone number in international form');
  });
});
