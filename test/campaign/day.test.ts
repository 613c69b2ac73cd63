import { writeFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { describe, expect, test } from 'vitest';
import { readScenario, runDay, type DayParts } from '../../bench/campaign/day.mjs';
import { runBuilt } from '../helpers/hosts.js';

const scenario = readScenario(fileURLToPath(new URL('../../fixtures/campaign/short.json', import.meta.url)));

/**
 * The faults each invariant guards against, planted in the real parts after the day: an event
 * dropped from the store, a forward sent twice (under another event id), a row uploaded twice
 * (no caseid: the service cannot tell), a report number changed (the service's own record), and
 * a secret written to a file of the day.
 */
async function plant(p: DayParts): Promise<void> {
  const client = new pg.Client({ connectionString: p.store });
  await client.connect();
  try {
    await client.query(`DELETE FROM callctl_events WHERE id = (
      SELECT min(e.id) FROM callctl_events e JOIN callctl_event_keys k ON k.key = e.key
      WHERE e.type = 'workflow.api_push' AND e.status = 200 AND k.arrivals = 1)`);
  } finally {
    await client.end();
  }
  const taken = p.app.forwards.find((f) => f.status === 200)!;
  const again = await fetch(p.app.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-callctl-event-id': `${taken.eventId}-again` },
    body: taken.body,
  });
  expect(again.status).toBe(200);
  // The same row in two files (another line end: another file to callctl), uploaded one after the other.
  const row = p.files.rows.find((r) => !r.caseid)!;
  const lines = readFileSync(join(p.dir, 'files', row.file), 'utf8').split('\n');
  for (const [name, eol] of [
    ['again.csv', '\n'],
    ['again-crlf.csv', '\r\n'],
  ]) {
    const file = join(p.dir, 'files', name!);
    writeFileSync(file, `${lines[0]}${eol}${lines[row.line - 1]}${eol}`);
    const upload = await runBuilt(
      ['workflow', 'update', '--workflow-id', p.workflows[0]!, '--csv', file, '--yes'],
      p.env,
    );
    expect(upload.code).toBe(0);
  }
  for (const [id, model] of p.sandbox.state.tasks) {
    // A task of the day's with calls in its detail: the rows uploaded again above may have made a
    // new task that has not called yet (on Node 24 in .ci/run one had none, and this threw).
    const r = model.task.detail[0];
    if (!id.startsWith('T-DAY-') || !r) continue;
    r.RingType = r.RingType === 'normal' ? 'busy' : 'normal';
    r.TalkRound = 0;
    const w = p.sandbox.state.workflowTasks.get(id);
    if (w) {
      w.details[0]!.ring_type = r.RingType;
      w.details[0]!.talk_round = 0;
    }
  }
  writeFileSync(join(p.dir, 'oops.log'), `token=${p.secrets.pushToken}\n`);
}

describe('a campaign day, end to end, under faults', () => {
  test('every notification, contact and call is accounted for; each invariant fires when its fault is planted', async () => {
    const lines: string[] = [];
    const day = await runDay(scenario, { seed: 10, say: (l) => lines.push(l), plant });
    // Seed 10 is kept as a regression: its schedule has two PostgreSQL restarts that overlap, which
    // once started two servers on one folder and hung the day (parts.mjs now takes them in turn).
    // On a failure the log and the table say what broke: npm run bench:campaign-day -- --scenario
    // fixtures/campaign/short.json --seed 10 reproduces it.
    expect({ problems: day.problems, log: day.ok ? [] : lines, table: day.ok ? '' : day.table }).toEqual({
      problems: [],
      log: [],
      table: '',
    });
    expect(day.counts.lost).toBe(0);
    expect(day.counts.duplicates).toBe(0);
    expect(day.counts.answered200).toBeGreaterThan(1000);
    expect(day.counts.stored).toBeGreaterThanOrEqual(day.counts.answered200);
    expect(day.counts.reportsChecked).toBeGreaterThanOrEqual(3);
    expect(day.counts.faults).toBeGreaterThanOrEqual(7);
    const planted = day.planted!.problems.join('\n');
    expect(planted).toMatch(/answered 200 but not in the store: 1 /);
    expect(planted).toMatch(/forwarded to the app under two event ids .*: 1 /);
    expect(planted).toMatch(/contact rows without caseid in the service more than once: 1 \(contacts-a\.csv:2 x[23]\)/);
    expect(planted).toMatch(/report numbers other than the truth: /);
    expect(planted).toMatch(/secrets found: 1 \(pus\.\.\. in .*oops\.log\)/);
  }, 240_000);
});
