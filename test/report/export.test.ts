import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SEED, type Sandbox } from '../../src/sandbox/server.js';
import { useSandbox } from '../helpers/sandbox.js';
import { TASK_RECORD_COLUMNS, WORKFLOW_CALL_COLUMNS } from '../../src/report/export.js';
import { runCli } from '../helpers/cli.js';
import { fixtureServer } from './fixture-server.js';
import { tempDir } from '../helpers/temp.js';

type Raw = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let sandbox: Sandbox;
let env: Record<string, string>;
let dir: string;
const fixture = useSandbox();
beforeAll(() => {
  dir = tempDir('callctl-export-');
});
beforeEach(() => ({ sandbox, env } = fixture));

const cli = (argv: string[], e: Record<string, string> = env) => runCli(argv, { env: e });

async function rawTask(id: string): Promise<Raw> {
  const res = await fetch(`${sandbox.url}/service/cloud/detail?TaskID=${id}`, {
    headers: { authorization: `Token ${env.CALLCTL_TOKEN}` },
  });
  return ((await res.json()) as Raw).data;
}

/** What a CSV cell must read back as: the value's text, nested values as JSON, nothing for null. */
const asCell = (v: unknown) =>
  v === undefined || v === null ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);

describe('task detail --format', () => {
  it('csv: a header, every record, every value read back exactly, nested values as JSON text', async () => {
    const task = await rawTask(SEED.debtTaskId);
    const r = await cli(['task', 'detail', SEED.debtTaskId, '--format', 'csv']);
    expect(r.code).toBe(0);
    const rows: string[][] = parse(r.out, { relax_column_count: false });
    expect(rows[0]).toEqual([...TASK_RECORD_COLUMNS, 'extra']);
    expect(rows.length - 1).toBe(task.detail.length);
    task.detail.forEach((rec: Raw, i: number) => {
      const row = rows[i + 1]!;
      TASK_RECORD_COLUMNS.forEach((c, k) => expect(row[k], `${c} of record ${i}`).toBe(asCell(rec[c])));
      expect(JSON.parse(row[TASK_RECORD_COLUMNS.indexOf('AsrResult')]!)).toEqual(rec.AsrResult);
    });
    // Phone numbers are quoted text in the file, exactly as the service gave them.
    expect(r.out).toContain(`"${task.detail[0].CalleeNumber}"`);
    expect(r.out.split('\r\n').length).toBe(task.detail.length + 2);
  });

  it('ndjson and json: the records exactly as the service gave them', async () => {
    const task = await rawTask(SEED.telemarketingTaskId);
    const nd = await cli(['task', 'detail', SEED.telemarketingTaskId, '--format', 'ndjson']);
    expect(
      nd.out
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual(task.detail);
    const js = await cli(['task', 'detail', SEED.telemarketingTaskId, '--format', 'json']);
    expect(JSON.parse(js.out)).toEqual(task.detail);
    const none = await cli(['task', 'detail', SEED.createdTaskId, '--format', 'json']);
    expect(JSON.parse(none.out)).toEqual([]);
  });

  it('--output writes atomically; a failed export leaves the earlier file as it was and no temp file', async () => {
    const file = join(dir, 'calls.csv');
    const ok = await cli(['task', 'detail', SEED.debtTaskId, '--output', file, '--bom']);
    expect(ok.code).toBe(0);
    expect(ok.out).toBe('');
    expect(ok.err).toMatch(/\d+ call records written to /);
    const bytes = readFileSync(file);
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const before = bytes.toString();
    const failed = await cli(['task', 'detail', 'T-NOPE', '--output', file]);
    expect(failed.code).toBe(1);
    expect(readFileSync(file, 'utf8')).toBe(before);
    expect(readdirSync(dir)).toEqual(['calls.csv']);
  });

  it('bad flags are usage errors (exit 2), one line naming the flag', async () => {
    for (const argv of [
      ['--format', 'xlsx'],
      ['--output', join(dir, 'calls.txt')],
      ['--bom'],
      ['--format', 'ndjson', '--excel'],
    ]) {
      const r = await cli(['task', 'detail', SEED.debtTaskId, ...argv]);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.err.trim().split('\n')).toHaveLength(1);
      expect(r.err).toMatch(/--format|--output|--bom/);
      expect(r.out).toBe('');
    }
  });

  it('an unwritable --output is local trouble (exit 6)', async () => {
    const r = await cli(['task', 'detail', SEED.debtTaskId, '--output', join(dir, 'no-such-folder', 'x.csv')]);
    expect(r.code).toBe(6);
    expect(r.err).toContain('no-such-folder');
  });
});

describe('workflow task-detail --format', () => {
  it('csv: question_answer and the other nested fields as JSON text', async () => {
    const res = await fetch(`${sandbox.url}/service/cloud/workflow/taskdetail`, {
      method: 'POST',
      headers: { authorization: `Token ${env.CALLCTL_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ task_id: SEED.workflowTaskId }),
    });
    const details: Raw[] = ((await res.json()) as Raw).data.details;
    const r = await cli(['workflow', 'task-detail', SEED.workflowTaskId, '--format', 'csv']);
    const rows: string[][] = parse(r.out);
    expect(rows[0]).toEqual([...WORKFLOW_CALL_COLUMNS, 'extra']);
    expect(rows.length - 1).toBe(details.length);
    details.forEach((d, i) => WORKFLOW_CALL_COLUMNS.forEach((c, k) => expect(rows[i + 1]![k], c).toBe(asCell(d[c]))));
    const qa = WORKFLOW_CALL_COLUMNS.indexOf('question_answer');
    expect(JSON.parse(rows[1]![qa]!)).toEqual(details[0]!.question_answer);
  });
});

describe('spreadsheet text and formula injection', () => {
  const record = {
    id: 1,
    CalleeNumber: '+5511987654321',
    CalleeName: '=HYPERLINK("http://evil.example","click")',
    Comments: '@SUM(1+1)',
    ExtraA: '-2+3',
    call_notes: 'line one\nline two, "quoted"',
    RingTime: 12,
    AsrResult: [{ time: '00:00:01', robottext: 'Olá', text: 'sim' }],
    Unnamed1: 'x',
    Unnamed2: { k: 'v' },
  };
  let server: Awaited<ReturnType<typeof fixtureServer>>;
  let e: Record<string, string>;
  beforeAll(async () => {
    const task = {
      TaskID: 'T-F',
      TaskName: 'f',
      RobotMethod: 'single',
      RobotID: 'r',
      SIPLine: 's',
      Status: 'finished',
      ScheduleStartTime: '2026-11-20T09:00:00Z',
      ScheduleEndTime: '2026-11-20T10:00:00Z',
      RepeatInterval: 1,
      RepeatNumber: 1,
      detail: [record],
    };
    server = await fixtureServer({
      '/service/cloud/detail?TaskID=T-PRETTY': () =>
        JSON.stringify({ data: { ...task, detail: [record, { ...record, id: 2 }] }, status: 'OK', code: 200 }, null, 2),
      '/service/cloud/detail': () => JSON.stringify({ data: task, status: 'OK', code: 200 }),
    });
    e = { ...env, CALLCTL_BASE_URL: server.url };
  });
  afterAll(() => server.close());

  it('ndjson from a pretty-printed answer: still one record a line, the same values', async () => {
    const r = await cli(['task', 'detail', 'T-PRETTY', '--format', 'ndjson'], e);
    const lines = r.out.trimEnd().split('\n');
    expect(lines.map((l) => JSON.parse(l))).toEqual([record, { ...record, id: 2 }]);
    const js = await cli(['task', 'detail', 'T-PRETTY', '--format', 'json'], e);
    expect(JSON.parse(js.out)).toEqual([record, { ...record, id: 2 }]);
  });

  it('by default the file holds the exact values (any CSV reader gets them back), quoted', async () => {
    const r = await cli(['task', 'detail', 'T-F', '--format', 'csv'], e);
    const [header, row] = parse(r.out) as string[][];
    const cell = (name: string) => row![header!.indexOf(name)];
    expect(cell('CalleeNumber')).toBe('+5511987654321');
    expect(cell('CalleeName')).toBe(record.CalleeName);
    expect(cell('Comments')).toBe('@SUM(1+1)');
    expect(cell('call_notes')).toBe(record.call_notes);
    expect(cell('RingTime')).toBe('12');
    expect(JSON.parse(cell('extra')!)).toEqual({ Unnamed1: 'x', Unnamed2: { k: 'v' } });
    expect(r.out).toContain(',"+5511987654321",');
  });

  it('--excel: BOM, and what a spreadsheet would read as a number or formula is a ="..." text formula', async () => {
    const file = join(dir, 'excel.csv');
    writeFileSync(file, 'old');
    const r = await cli(['task', 'detail', 'T-F', '--format', 'csv', '--excel', '-o', file], e);
    expect(r.code).toBe(0);
    const text = readFileSync(file, 'utf8');
    expect(text.charCodeAt(0)).toBe(0xfeff);
    const [header, row] = parse(text.slice(1)) as string[][];
    const cell = (name: string) => row![header!.indexOf(name)];
    expect(cell('CalleeNumber')).toBe('="+5511987654321"');
    expect(cell('CalleeName')).toBe('="=HYPERLINK(""http://evil.example"",""click"")"');
    expect(cell('Comments')).toBe('="@SUM(1+1)"');
    expect(cell('ExtraA')).toBe('="-2+3"');
    expect(cell('RingTime')).toBe('12');
    expect(cell('call_notes')).toBe(record.call_notes);
  });
});

describe('a writer waiting for its stream to drain', () => {
  it('leaves no listener behind: a slow pipe or file took one more each wait, and Node warned of a leak', async () => {
    const { Writable } = await import('node:stream');
    const { RecordWriter } = await import('../../src/report/export.js');
    // A stream that takes a write at a time and drains on the next turn: every write waits.
    const slow = new Writable({ highWaterMark: 16, write: (_chunk, _encoding, done) => setImmediate(done) });
    const listeners = () => slow.listenerCount('close') + slow.listenerCount('error') + slow.listenerCount('drain');
    const before = listeners();
    const writer = new RecordWriter<object>(
      { format: 'ndjson', columns: [], csvMode: 'exact', bom: false },
      { stream: () => slow },
    );
    await writer.start();
    for (let i = 0; i < 40; i++) {
      const record = { id: i, text: 'x'.repeat(40) };
      await writer.records([record], [Buffer.from(JSON.stringify(record))]);
    }
    await writer.finish();
    expect(writer.count).toBe(40);
    expect(listeners()).toBe(before);
  });
});
