import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { entry, HEADER, received, row, useUploadSandbox, WORKFLOW, writeContacts } from '../upload/helpers.js';
import type { Sandbox } from '../../src/sandbox/server.js';

let sandbox: Sandbox;
let env: Record<string, string>;
let dir: string;
useUploadSandbox((s) => ({ sandbox, env, dir } = s));

let n = 0;
/** A CSV file with a unique name (and content, by its last column) so that journals never collide. */
function csv(text: string | Buffer, name = `f${++n}.csv`): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const update = (file: string, ...extra: string[]) =>
  runCli(['workflow', 'update', '--workflow-id', WORKFLOW, '--csv', file, '--yes', ...extra], { env });

describe('workflow update: invalid input names the line and exits 3, sending nothing', () => {
  const cases: Array<[string, string | Buffer, RegExp]> = [
    [
      'a missing column (from the header alone)',
      'callee,name\n+6281200000001,Budi\n',
      /line 1: missing required column platform/,
    ],
    [
      'a bad callee',
      `${HEADER}\n${row(1)}\n0812-BAD,shop,C2,x,1,,\n`,
      /line 3, column callee: "0812-BAD" is not a phone number/,
    ],
    [
      'a long platform',
      `${HEADER}\n${row(1)}\n${row(2)}\n+6281200000003,${'p'.repeat(41)},C3,x,1,,\n`,
      /line 4, column platform: platform is longer than 40 characters, got 41/,
    ],
    [
      'bad pds_variables',
      `${HEADER}\n${row(1)}\n+6281200000002,shop,C2,x,1,,"{""tier"":}"\n`,
      /line 3, column pds_variables: looks like JSON but is not valid JSON/,
    ],
    [
      'pds_variables that is a JSON array',
      `${HEADER}\n+6281200000002,shop,C2,x,1,,"[1,2]"\n`,
      /line 2, column pds_variables: is JSON but not an object/,
    ],
    [
      'a duplicate (same callee and caseid)',
      `${HEADER}\n${row(1)}\n${row(2)}\n${row(1)}\n`,
      /line 4, column callee\+caseid: duplicate of line 2 \(same callee and caseid\)/,
    ],
    ['an empty file', '', /line 1: the file is empty/],
    ['a file of blank lines', '\n\n', /line 1: the file is empty/],
    ['a header-only file', `${HEADER}\n`, /line 2: no rows after the header/],
    ['a header-only file with a BOM and CRLF', `\ufeff${HEADER}\r\n`, /line 2: no rows after the header/],
    [
      'a non-UTF-8 file (Latin-1)',
      Buffer.concat([
        Buffer.from(`${HEADER}\n${row(1)}\n+6281200000002,shop,C2,Jos`),
        Buffer.from([0xe9]),
        Buffer.from(',1,,\n'),
      ]),
      /line 3, byte 27 \(byte \d+ of the file\): not valid UTF-8 \(0xE9\); .*iconv -f windows-1252 -t utf-8/,
    ],
    ['a UTF-16 file', Buffer.from(`\ufeff${HEADER}\n`, 'utf16le'), /line 1: .*(NUL|not valid UTF-8)/],
    [
      'a row with too many fields',
      `${HEADER}\n${row(1)},extra\n`,
      /line 2, column #8: the row has 8 fields, the header 7/,
    ],
    [
      'an unclosed quote',
      `${HEADER}\n${row(1)}\n+6281200000002,shop,C2,"Budi,1,,\n+6281200000003,shop,C3,x,1,,\n`,
      /line 3: a quoted field is never closed/,
    ],
    [
      'a quote opening inside the file, closed further on',
      `${HEADER}\n${row(1)}\n+6281200000002,shop,C2,"Budi,1,,\n${row(3)}\n`,
      /line 3: a closing quote is followed by other characters/,
    ],
    [
      'a quote after a closing quote',
      `${HEADER}\r\n"+6281200000001","sh\r\nop"x,C1,a,1,,\r\n`,
      /line 2: a closing quote is followed by other characters/,
    ],
  ];
  for (const [name, text, message] of cases) {
    it(name, async () => {
      const r = await update(csv(text));
      expect(r.err).toMatch(message);
      expect(r.code).toBe(3);
      expect(received(sandbox)).toEqual([]);
    });
  }

  it('lists the first problems, counts the rest, and the summary says invalid', async () => {
    const rows = [HEADER];
    for (let i = 1; i <= 50; i++) rows.push(i % 2 ? `bad${i},shop,C${i},x,1,,` : row(i));
    const r = await update(csv(`${rows.join('\n')}\n`), '--json');
    expect(r.code).toBe(3);
    expect(r.err).toContain('line 2, column callee');
    expect(r.err).toContain('line 40, column callee');
    expect(r.err).not.toContain('line 42, column callee');
    expect(r.err).toMatch(/\.\.\. and 5 more problems \(--rejects FILE writes every rejected row\)/);
    expect(r.err).toMatch(
      /25 invalid rows \(first: line 2, column callee: .*\); nothing was sent \(use --max-invalid N/,
    );
    const summary = JSON.parse(r.out);
    expect(summary).toMatchObject({
      status: 'invalid',
      rowsRead: 50,
      valid: 25,
      invalid: 25,
      skipped: 0,
      batchesSent: 0,
      problemCount: 25,
    });
    expect(summary.problems).toHaveLength(20);
    expect(received(sandbox)).toEqual([]);
  });
});

describe('workflow update: what the CSV holds reaches the service as it is', () => {
  it('BOM, CRLF, quoted commas and line breaks; empty cells left out; line numbers stay right after a quoted CRLF', async () => {
    const file = writeContacts(join(dir, 'crlf.csv'), 200, { eol: '\r\n', bom: true });
    // a bad row after several quoted CRLFs: its line must count each CRLF once
    const text = readFileSync(file, 'utf8') + '+62,shop,C999,x,1,,\r\n';
    const bad = await update(csv(text));
    const lines = text.split('\r\n').length - 1; // physical lines
    expect(bad.err).toContain(`line ${lines}, column callee`);
    expect(bad.code).toBe(3);

    const r = await update(file);
    expect(r.code).toBe(0);
    expect(received(sandbox)).toEqual(Array.from({ length: 200 }, (_, i) => entry(i + 1, '\r\n')));
  });

  it('--keep-empty sends empty cells as empty strings; --delimiter reads other separators', async () => {
    const r = await update(
      csv('callee;platform;name;city\n+6281200000001;shop;;Jakarta\n'),
      '--delimiter',
      ';',
      '--keep-empty',
    );
    expect(r.code).toBe(0);
    expect(received(sandbox)).toEqual([
      { callee: '+6281200000001', platform: 'shop', variables: { name: '', city: 'Jakarta' } },
    ]);
  });

  it('a 25,000-row file arrives as 10,000 + 10,000 + 5,000, entry for entry equal to the CSV', async () => {
    const file = writeContacts(join(dir, 'big25k.csv'), 25_000);
    const r = await update(file, '--json');
    expect(r.code).toBe(0);
    const summary = JSON.parse(r.out);
    expect(summary).toMatchObject({
      status: 'done',
      rowsRead: 25_000,
      valid: 25_000,
      invalid: 0,
      batchesTotal: 3,
      batchesSent: 3,
      entriesAcknowledged: 25_000,
      error: null,
    });
    const batches = sandbox.requests.filter((q) => q.path === '/service/cloud/workflow/updatedetails');
    expect(batches.length).toBeGreaterThanOrEqual(3);
    const got = received(sandbox);
    expect(got.length).toBe(25_000);
    expect(sandbox.state.received.updates.get(WORKFLOW)?.batches).toBe(3);
    for (let i = 0; i < got.length; i++)
      if (JSON.stringify(got[i]) !== JSON.stringify(entry(i + 1))) expect(got[i]).toEqual(entry(i + 1));
    // one line per batch on stderr without a terminal
    // rows 97, 194, ... span two lines
    const lastLine = (i: number) => i + 1 + Math.floor(i / 97);
    expect(r.err).toContain(
      `batch 1/3 sent: lines 2-${lastLine(10_000)}, 10,000 entries accepted, service count 10000`,
    );
    expect(r.err).toContain(
      `batch 3/3 sent: lines ${lastLine(20_000) + 1}-${lastLine(25_000)}, 5,000 entries accepted, service count 5000`,
    );
    // the journal records each batch before it is sent and its answer after, then done
    const journal = readFileSync(summary.journal, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(journal.map((j) => j.type)).toEqual([
      'start',
      'sending',
      'batch',
      'sending',
      'batch',
      'sending',
      'batch',
      'done',
    ]);
    expect(journal[1]).toMatchObject({ index: 1, firstLine: 2, count: 10_000, caseids: true });
    expect(journal[2]).toMatchObject({ index: 1, firstLine: 2, count: 10_000, acked: 10_000 });
  });

  it('--batch-size lowers the batch size; --dry-run reports the batches and sends nothing', async () => {
    const file = writeContacts(join(dir, 'dry.csv'), 25);
    const dry = await runCli(
      ['workflow', 'update', '--workflow-id', WORKFLOW, '--csv', file, '--batch-size', '10', '--dry-run', '--json'],
      { env },
    );
    expect(dry.code).toBe(0);
    const s = JSON.parse(dry.out);
    expect(s).toMatchObject({ status: 'dry-run', valid: 25, batchesTotal: 3, batchesSent: 0, journal: null });
    expect(s.batches).toEqual([
      { index: 1, firstLine: 2, lastLine: 11, count: 10 },
      { index: 2, firstLine: 12, lastLine: 21, count: 10 },
      { index: 3, firstLine: 22, lastLine: 26, count: 5 },
    ]);
    expect(received(sandbox)).toEqual([]);
    const uploads = join(env.XDG_STATE_HOME!, 'callctl', 'uploads');
    expect(existsSync(uploads) && readdirSync(uploads).some((f) => f.includes('dry'))).toBe(false);
    const bad = await runCli(
      ['workflow', 'update', '--workflow-id', WORKFLOW, '--csv', file, '--batch-size', '10001', '--yes'],
      { env },
    );
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('at most 10000');
  });
});

describe('workflow update: --max-invalid and --rejects', () => {
  it('skips up to N invalid rows; the rejects file, fixed, uploads again', async () => {
    const text = [
      HEADER,
      row(1),
      '+62 812,shop,C2,"Budi, Jr",1,"multi\nline",', // line 3-4: bad callee
      row(3),
      `+6281200000004,${'x'.repeat(45)},C4,Ani,2,,`, // line 6: long platform
      row(1), // line 7: duplicate of line 2
    ].join('\n');
    const file = csv(`${text}\n`);
    const rejects = join(dir, 'rejects.csv');
    const blocked = await update(file, '--rejects', rejects, '--max-invalid', '2');
    expect(blocked.code).toBe(3);
    expect(blocked.err).toMatch(/3 invalid rows .*more than --max-invalid 2/);
    expect(received(sandbox)).toEqual([]);
    expect(existsSync(rejects)).toBe(true);

    const r = await update(file, '--rejects', rejects, '--max-invalid', '3', '--json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({
      status: 'done',
      rowsRead: 5,
      valid: 2,
      invalid: 3,
      skipped: 3,
      entriesAcknowledged: 2,
      rejects,
    });
    expect(r.err).toMatch(/skipping 3 invalid rows/);
    expect(received(sandbox)).toEqual([entry(1), entry(3)]);

    const written = readFileSync(rejects, 'utf8');
    expect(written.split('\n')[0]).toBe(`rejected_line,rejected_reason,${HEADER}`);
    expect(written).toContain(
      '3,"callee: ""+62 812"" is not a phone number in international form (7 to 15 digits after + or 00, the first not 0)",+62 812,shop,C2,"Budi, Jr",1,"multi\nline",',
    );
    expect(written).toMatch(
      /\n6,"platform: platform is longer than 40 characters, got 45 characters",\+6281200000004,x{45},C4,Ani,2,,\n/,
    );
    expect(written).toContain('7,callee+caseid: duplicate of line 2 (same callee and caseid),');

    // Fix the rejects (the duplicate row is dropped) and upload the file as it is.
    const fixed = written
      .replace(',+62 812,', ',+6281200000002,')
      .replace('x'.repeat(45), 'shop-4')
      .split('\n')
      .filter((l) => !l.startsWith('7,'))
      .join('\n');
    sandbox.state.received.updates.clear();
    const again = await update(csv(fixed));
    expect(again.code).toBe(0);
    expect(received(sandbox)).toEqual([
      {
        callee: '+6281200000002',
        platform: 'shop',
        caseid: 'C2',
        variables: { name: 'Budi, Jr', amount: '1', note: 'multi\nline' },
      },
      { callee: '+6281200000004', platform: 'shop-4', caseid: 'C4', variables: { name: 'Ani', amount: '2' } },
    ]);
  });

  it('counts in the right form: "1 row", "1 contact", "1 entry"; 2 rows stay plural', async () => {
    for (const [n, rows, contacts, entries] of [
      [1, 'row', 'contact', 'entry'],
      [2, 'rows', 'contacts', 'entries'],
    ] as const) {
      const file = writeContacts(join(dir, `count-${n}.csv`), n);
      const asked = await runCli(['workflow', 'update', '--workflow-id', WORKFLOW, '--csv', file], {
        env,
        tty: true,
        answers: [true],
      });
      expect(asked.code, asked.err).toBe(0);
      expect(asked.io.asked).toEqual([`Send ${n} ${contacts} from ${file} to workflow ${WORKFLOW} in 1 batch?`]);
      expect(asked.err).toContain(`checked count-${n}.csv: ${n} ${rows}, ${n} valid, 0 invalid (`);
      expect(asked.err).toContain(`${n}/${n} ${entries}`);
      const bad = await update(csv(`${HEADER}\n${row(1)}\n${'bad,shop,C2,x,1,,\n'.repeat(n)}`), '--max-invalid', '5');
      expect(bad.code, bad.err).toBe(0);
      expect(bad.err).toContain(`skipping ${n} invalid ${rows} (--max-invalid 5)`);
    }
    expect(received(sandbox)).toHaveLength(3 + 2);
  });

  it('a file of only invalid rows within --max-invalid still sends nothing (exit 3)', async () => {
    const r = await update(csv(`${HEADER}\nbad,shop,C1,x,1,,\n`), '--max-invalid', '5');
    expect(r.code).toBe(3);
    expect(r.err).toContain('no valid rows; nothing was sent');
  });
});

describe('workflow update: failures, re-runs and the journal', () => {
  it('a stop after one acknowledged batch of one entry says so in the singular', async () => {
    // Rows of their own: a file of the same content uploaded by another test would be "already uploaded".
    const file = csv(`${HEADER}\n${row(901)}\n${row(902)}\n`, 'fault-one.csv');
    sandbox.setFaults({ failBatch: { index: 2, mode: 'envelope', repeat: 'always' } });
    const r = await update(file, '--batch-size', '1');
    sandbox.setFaults({ failBatch: null });
    expect(r.code).toBe(5);
    expect(r.err).toMatch(
      /error: batch 2 of 2 \(lines 3-3\) failed: .*code 500.*; batch 1 \(1 entry\) is acknowledged and journaled; run the same command again/,
    );
    expect(received(sandbox)).toEqual([entry(901)]);
  });

  it('the Nth-batch fault (an envelope code 500, every attempt) stops with exit 5 naming the batch and lines; the re-run sends only the rest', async () => {
    const file = writeContacts(join(dir, 'fault.csv'), 50);
    // Code 500 in the envelope is service trouble that may pass: retried, then exit 5 (run again).
    sandbox.setFaults({ failBatch: { index: 3, mode: 'envelope', repeat: 'always' } });
    const r = await update(file, '--batch-size', '10', '--json');
    sandbox.setFaults({ failBatch: null });
    expect(r.code).toBe(5);
    expect(r.err).toMatch(
      /error: batch 3 of 5 \(lines 22-31\) failed: .*code 500.*batches 1-2 \(20 entries\) are acknowledged and journaled; run the same command again/,
    );
    expect(JSON.parse(r.out)).toMatchObject({ status: 'failed', batchesSent: 2, entriesAcknowledged: 20 });
    expect(received(sandbox)).toEqual(Array.from({ length: 20 }, (_, i) => entry(i + 1)));

    const again = await update(file, '--batch-size', '10', '--json');
    expect(again.code).toBe(0);
    expect(JSON.parse(again.out)).toMatchObject({
      status: 'done',
      batchesResumed: 2,
      batchesSent: 3,
      entriesAcknowledged: 30,
      entriesResumed: 20,
    });
    expect(again.err).toContain('continuing an earlier run: 2 batches (20 entries, up to line 21)');
    expect(received(sandbox)).toEqual(Array.from({ length: 50 }, (_, i) => entry(i + 1)));

    const third = await update(file, '--batch-size', '10');
    expect(third.code).toBe(0);
    expect(third.err).toMatch(/this file was already uploaded to this workflow \(50 entries, completed 20\d\d-/);
    expect(third.err).toContain('nothing to send');
    expect(received(sandbox)).toHaveLength(50);
  });

  it('a batch that always drops the connection after its body: rows with caseid are sent again (said so), then exit 5; the re-run continues', async () => {
    const file = writeContacts(join(dir, 'drop.csv'), 30);
    sandbox.setFaults({ failBatch: { index: 2, mode: 'drop', repeat: 'always' } });
    const r = await update(file, '--batch-size', '10');
    expect(r.code).toBe(5);
    expect(r.err).toMatch(/batch 2 \(lines 12-21\): .*every entry carries caseid, so it is sent again \(1 of 3\)/);
    expect(r.err).toMatch(/batch 2 of 3 \(lines 12-21, 10 entries\) may have reached the service with no answer/);
    expect(received(sandbox)).toHaveLength(10);
    sandbox.resetFaults();
    const again = await update(file, '--batch-size', '10');
    expect(again.code).toBe(0);
    expect(received(sandbox)).toEqual(Array.from({ length: 30 }, (_, i) => entry(i + 1)));
  });

  it('a dropped answer is retried (the service keeps a repeated batch; nothing is lost)', async () => {
    const file = writeContacts(join(dir, 'retry.csv'), 20);
    sandbox.setFaults({ failBatch: { index: 1, mode: 'drop-after-accept', repeat: 'once' } });
    const r = await update(file, '--batch-size', '10');
    expect(r.code).toBe(0);
    const got = received(sandbox);
    expect(got).toHaveLength(30); // batch 1 twice: the retry after the dropped answer
    expect(got.slice(10)).toEqual(Array.from({ length: 20 }, (_, i) => entry(i + 1)));
  });

  it('an unknown workflow is a service error naming batch 1 (exit 1)', async () => {
    const r = await runCli(
      ['workflow', 'update', '--workflow-id', 'wf-nope', '--csv', writeContacts(join(dir, 'nope.csv'), 3), '--yes'],
      { env },
    );
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/batch 1 of 1 \(lines 2-4\) failed: .*workflow not found.*no batch was acknowledged/);
  });

  it('a file at the same path with new content is a new upload: it goes ahead, naming the stopped one; --restart sends from the start', async () => {
    const path = join(dir, 'changing.csv');
    writeContacts(path, 33);
    sandbox.setFaults({ failBatch: { index: 2, mode: 'envelope', repeat: 'always' } });
    const first = await update(path, '--batch-size', '10');
    sandbox.setFaults({ failBatch: null });
    expect(first.code).toBe(5);
    expect(first.err).toContain('run the same command again');
    writeContacts(path, 34);
    const r = await update(path, '--batch-size', '10', '--json');
    expect(r.code).toBe(0);
    expect(r.err).toMatch(
      /an upload of an earlier version of changing\.csv to this workflow stopped at \S+ after 1 batch \(10 entries, up to line 11\); this file is new content/,
    );
    expect(JSON.parse(r.out)).toMatchObject({
      status: 'done',
      entriesAcknowledged: 34,
      earlierUpload: { batches: 1, entries: 10, line: 11 },
    });
    expect(received(sandbox)).toHaveLength(44);
    expect(received(sandbox).slice(10)).toEqual(Array.from({ length: 34 }, (_, i) => entry(i + 1)));
    // Warned once: the next run does not name it again.
    writeContacts(path, 35);
    const third = await update(path, '--batch-size', '10', '--json');
    expect(third.code).toBe(0);
    expect(third.err).not.toContain('earlier version');
    expect(JSON.parse(third.out).earlierUpload).toBeNull();
    const restart = await update(path, '--batch-size', '10', '--restart', '--json');
    expect(restart.code).toBe(0);
    expect(JSON.parse(restart.out)).toMatchObject({ batchesResumed: 0, batchesSent: 4, entriesAcknowledged: 35 });
  });

  it('refusals that will recur say what to fix, never "run again"', async () => {
    const r = await runCli(
      ['workflow', 'update', '--workflow-id', 'wf-nope', '--csv', writeContacts(join(dir, 'nope2.csv'), 3), '--yes'],
      { env },
    );
    expect(r.code).toBe(1);
    expect(r.err).toContain('the service will refuse it again until this is fixed');
    expect(r.err).not.toMatch(/run (the same command )?again/);
  });
});

describe('workflow update: lock, terminal and signals', () => {
  it('refuses while another run holds the lock, naming its pid; takes over a stale lock with a warning', async () => {
    const file = writeContacts(join(dir, 'locked.csv'), 5);
    const dry = JSON.parse(
      (await runCli(['workflow', 'update', '--workflow-id', WORKFLOW, '--csv', file, '--dry-run', '--json'], { env }))
        .out,
    );
    const { uploadKey } = await import('../../src/store/upload-journal.js');
    const { mkdirSync } = await import('node:fs');
    const { hostname } = await import('node:os');
    const uploads = join(env.XDG_STATE_HOME!, 'callctl', 'uploads');
    mkdirSync(uploads, { recursive: true });
    // Keyed by the service and account too (src/store/destination.ts).
    const { cloudDestination } = await import('../../src/store/destination.js');
    const id = cloudDestination(sandbox.url, sandbox.appKey).id;
    const lock = join(uploads, `${uploadKey(WORKFLOW, dry.sha256)}-${id}.lock`);
    // the test process itself: a live pid
    writeFileSync(lock, JSON.stringify({ pid: process.pid, host: hostname(), at: '2026-11-22T10:00:00.000Z' }));
    const busy = await update(file);
    expect(busy.code).toBe(2);
    expect(busy.err).toContain(
      `another upload of ${file} to workflow ${WORKFLOW} is running (pid ${process.pid}, started 2026-11-22T10:00:00.000Z)`,
    );
    expect(received(sandbox)).toEqual([]);
    expect(existsSync(lock)).toBe(true);

    writeFileSync(lock, JSON.stringify({ pid: 2 ** 22 + 12345, host: hostname(), at: '2026-11-22T10:00:00.000Z' }));
    const stale = await update(file);
    expect(stale.code).toBe(0);
    expect(stale.err).toContain(`took over the lock of an earlier run that is gone (pid ${2 ** 22 + 12345})`);
    expect(received(sandbox)).toHaveLength(5);
    expect(existsSync(lock)).toBe(false);
  });

  it('Ctrl-C while the file is being checked stops at once: exit 130, nothing sent', async () => {
    const file = writeContacts(join(dir, 'sigint-read.csv'), 20_000);
    const { testIO } = await import('../helpers/io.js');
    const { main } = await import('../../src/main.js');
    const io = testIO({ env });
    io.onSignal = (h) => {
      setImmediate(() => h('SIGINT'));
      return () => undefined;
    };
    const code = await main(['workflow', 'update', '--workflow-id', WORKFLOW, '--csv', file, '--yes'], io);
    expect(code).toBe(130);
    expect(io.err()).toContain(`interrupted while reading ${file}; nothing was sent`);
    expect(received(sandbox)).toEqual([]);
  });

  it('refuses a rejects file that is the CSV itself, and an empty workflow id (exit 2)', async () => {
    const file = writeContacts(join(dir, 'self.csv'), 2);
    const r = await update(file, '--rejects', file);
    expect(r.code).toBe(2);
    expect(r.err).toContain('--rejects names the CSV being uploaded');
    const nowhere = await update(file, '--rejects', join(dir, 'no-such-folder', 'r.csv'));
    expect(nowhere.code).toBe(2);
    // The file as the user named it, not the temporary name it is written under.
    expect(nowhere.err).toContain(`--rejects: cannot write ${join(dir, 'no-such-folder', 'r.csv')}: no such folder\n`);
    expect(received(sandbox)).toEqual([]);
    const empty = await runCli(['workflow', 'update', '--workflow-id', ' ', '--csv', file, '--yes'], { env });
    expect(empty.code).toBe(2);
    expect(readFileSync(file, 'utf8').split('\n')[1]).toBe(row(1));
  });

  it('without a terminal, --yes is required (exit 2, nothing read)', async () => {
    const r = await runCli(['workflow', 'update', '--workflow-id', WORKFLOW, '--csv', join(dir, 'absent.csv')], {
      env,
    });
    expect(r.code).toBe(2);
    expect(r.err).toContain('pass --yes');
  });

  it('on a terminal: asks, naming the workflow and the count; declining exits 130 and sends nothing', async () => {
    const file = writeContacts(join(dir, 'tty.csv'), 12);
    const no = await runCli(['workflow', 'update', '--workflow-id', WORKFLOW, '--csv', file], {
      env,
      tty: true,
      answers: [false],
    });
    expect(no.io.asked).toEqual([`Send 12 contacts from ${file} to workflow ${WORKFLOW} in 1 batch?`]);
    expect(no.code).toBe(130);
    expect(received(sandbox)).toEqual([]);
    const yes = await runCli(['workflow', 'update', '--workflow-id', WORKFLOW, '--csv', file], {
      env,
      tty: true,
      answers: [true],
    });
    expect(yes.code).toBe(0);
    expect(received(sandbox)).toHaveLength(12);
    // progress is drawn in place on a terminal, not one line per batch
    expect(yes.err).toContain('\r\x1b[2K');
    expect(yes.err).not.toMatch(/batch 1\/1 sent/);
  });

  it('Ctrl-C while sending stops after the batch in flight, journals it, prints the summary, exits 130; the re-run finishes', async () => {
    const file = writeContacts(join(dir, 'sigint.csv'), 52);
    const { testIO } = await import('../helpers/io.js');
    const { main } = await import('../../src/main.js');
    const io = testIO({ env });
    let fire: ((s: 'SIGINT' | 'SIGTERM') => void) | undefined;
    io.onSignal = (h) => {
      fire = h;
      return () => (fire = undefined);
    };
    const onUpdate = (e: { batch: number }) => {
      if (e.batch === 2) fire?.('SIGINT');
    };
    sandbox.events.on('workflow.updated', onUpdate);
    const code = await main(
      ['workflow', 'update', '--workflow-id', WORKFLOW, '--csv', file, '--batch-size', '10', '--yes', '--json'],
      io,
    );
    sandbox.events.off('workflow.updated', onUpdate);
    expect(code).toBe(130);
    expect(io.err()).toContain('stopping after the batch in flight');
    expect(io.err()).toMatch(/interrupted: 2 of 6 batches are acknowledged and journaled/);
    expect(JSON.parse(io.out())).toMatchObject({ status: 'interrupted', batchesSent: 2, entriesAcknowledged: 20 });
    expect(received(sandbox)).toHaveLength(20);
    const again = await update(file, '--batch-size', '10');
    expect(again.code).toBe(0);
    expect(received(sandbox)).toEqual(Array.from({ length: 52 }, (_, i) => entry(i + 1)));
  });
});
