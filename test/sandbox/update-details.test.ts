import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Sandbox } from '../../src/sandbox/server.js';
import { SEED, startSandbox } from '../../src/sandbox/server.js';
import { envelopeSchema } from '../helpers/schemas.js';
import { updateDetailsDataSchema, type ListEntry } from '../../src/schemas/workflow.js';
import { MAX_ENTRIES_PER_UPDATE } from '../../src/limits.js';
import { call, entries, sandboxWithToken } from './helpers.js';

const PATH = '/service/cloud/workflow/updatedetails';
let sb: Sandbox;
let token: string;
const update = (body: unknown) => call(sb.url, 'POST', PATH, { token, body });

beforeAll(async () => {
  ({ sb, token } = await sandboxWithToken());
});
afterAll(() => sb.close());

describe('updatedetails', () => {
  test('accepts a batch, answers {workflow_id, count} and keeps the entries in order', async () => {
    const batch = entries(3);
    batch[1]!.pds_variables = { agent: 'x' };
    batch[2]!.pds_variables = 'plain text';
    const r = await update({ workflow_id: SEED.workflowId, details: batch });
    const env = envelopeSchema(updateDetailsDataSchema).parse(r.json);
    expect(env.data).toEqual({ workflow_id: SEED.workflowId, count: 3 });
    const second = entries(2, 3);
    await update({ workflow_id: SEED.workflowId, details: second });
    const got = sb.state.received.updates.get(SEED.workflowId)!;
    expect(got.entries).toEqual([...batch, ...second]);
    expect(got).toMatchObject({ count: 5, batches: 2 });
  });

  test('the same entries sent twice are kept twice (a double send is visible)', async () => {
    const wf = 'wf-20006';
    await update({ workflow_id: wf, details: entries(2) });
    await update({ workflow_id: wf, details: entries(2) });
    expect(sb.state.received.updates.get(wf)!.entries.map((e) => e.caseid)).toEqual(['C-0', 'C-1', 'C-0', 'C-1']);
  });

  test('GET /__sandbox/entries pages through what was accepted', async () => {
    const wf = 'wf-20007';
    await update({ workflow_id: wf, details: entries(30) });
    const r = await call(sb.url, 'GET', `/__sandbox/entries?workflow_id=${wf}&offset=10&limit=5`);
    expect(r.json.data).toMatchObject({ workflow_id: wf, count: 30, batches: 1 });
    expect(r.json.data.entries.map((e: ListEntry) => e.caseid)).toEqual(['C-10', 'C-11', 'C-12', 'C-13', 'C-14']);
  });

  test(`${MAX_ENTRIES_PER_UPDATE} entries are accepted, quickly; ${MAX_ENTRIES_PER_UPDATE + 1} are refused`, async () => {
    const wf = 'wf-20008';
    const big = entries(MAX_ENTRIES_PER_UPDATE);
    const t0 = performance.now();
    const ok = await update({ workflow_id: wf, details: big });
    const took = performance.now() - t0;
    expect(ok.json.data.count).toBe(MAX_ENTRIES_PER_UPDATE);
    expect(took).toBeLessThan(1500);
    const tooMany = await update({ workflow_id: wf, details: entries(MAX_ENTRIES_PER_UPDATE + 1) });
    expect(tooMany.status).toBe(200);
    expect(tooMany.json).toMatchObject({ code: 400 });
    expect(tooMany.json.status).toBe('details has 10001 entries; at most 10000 per request');
    expect(sb.state.received.updates.get(wf)!.count).toBe(MAX_ENTRIES_PER_UPDATE);
    // The record keeps a capped copy of the body, not 1.5 MB.
    const rec = sb.requests.filter((x) => x.path === PATH).at(-1)!;
    expect(rec.bodyTruncated).toBe(true);
    expect(rec.body.length).toBeLessThanOrEqual(16 * 1024);
    expect(rec.bodyBytes).toBeGreaterThan(1_000_000);
  });

  test.each<[string, (e: ListEntry[]) => unknown, RegExp]>([
    [
      'callee without +',
      (e) => (e[1]!.callee = '6281234567'),
      /^invalid entry details\[1\]\.callee: callee must be \+ then 7 to 15 digits/,
    ],
    ['callee too short', (e) => (e[1]!.callee = '+123456'), /details\[1\]\.callee/],
    [
      'platform of 41 characters',
      (e) => (e[1]!.platform = 'p'.repeat(41)),
      /details\[1\]\.platform: platform is longer than 40 characters/,
    ],
    ['empty platform', (e) => (e[1]!.platform = ''), /details\[1\]\.platform: platform is empty/],
    ['missing variables', (e) => delete (e[1] as Partial<ListEntry>).variables, /details\[1\]\.variables/],
    [
      'a variable that is not a string',
      (e) => ((e[1]!.variables as Record<string, unknown>).age = 31),
      /details\[1\]\.variables\.age/,
    ],
    ['an unknown field', (e) => ((e[1] as Record<string, unknown>).name = 'x'), /details\[1\].*name/],
    [
      'pds_variables a number',
      (e) => ((e[1] as Record<string, unknown>).pds_variables = 5),
      /details\[1\]\.pds_variables/,
    ],
    ['an entry that is not an object', (e) => ((e as unknown[])[1] = 'x'), /details\[1\]/],
  ])('%s: the whole batch is refused, naming the entry', async (_n, spoil, message) => {
    const wf = 'wf-20010';
    const batch = entries(3);
    spoil(batch);
    const r = await update({ workflow_id: wf, details: batch });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ code: 400, data: { workflow_id: wf, invalid: 1 } });
    expect(r.json.status).toMatch(message);
    expect(r.json.data.errors[0].index).toBe(1);
    expect(sb.state.received.updates.get(wf)).toBeUndefined();
  });

  test('every invalid entry is counted, 20 listed', async () => {
    const batch = entries(100).map((e) => ({ ...e, callee: 'bad' }));
    const r = await update({ workflow_id: SEED.workflowId, details: batch });
    expect(r.json.data.invalid).toBe(100);
    expect(r.json.data.errors).toHaveLength(20);
    expect(r.json.status).toMatch(/\(100 invalid entries in all\)$/);
  });

  test.each<[string, unknown, number, RegExp]>([
    ['no workflow_id', { details: entries(1) }, 400, /^workflow_id is required/],
    ['workflow_id a number', { workflow_id: 7, details: entries(1) }, 400, /workflow_id is required/],
    ['no details', { workflow_id: SEED.workflowId }, 400, /^details is required/],
    ['details not an array', { workflow_id: SEED.workflowId, details: {} }, 400, /details is required/],
    ['empty details', { workflow_id: SEED.workflowId, details: [] }, 400, /^details is empty/],
    ['unknown workflow', { workflow_id: 'wf-nope', details: entries(1) }, 404, /^workflow not found: wf-nope$/],
    ['cancelled workflow', { workflow_id: SEED.cancelledWorkflowId, details: entries(1) }, 409, /is cancelled/],
  ])('%s: code %i', async (_n, body, code, message) => {
    const r = await update(body);
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ code });
    expect(r.json.status).toMatch(message);
  });

  test('keepEntries: false counts without keeping', async () => {
    const lean = await startSandbox({ keepEntries: false });
    try {
      await call(lean.url, 'POST', PATH, {
        token: lean.issueToken(),
        body: { workflow_id: SEED.workflowId, details: entries(50) },
      });
      expect(lean.state.received.updates.get(SEED.workflowId)).toMatchObject({ count: 50, batches: 1, entries: [] });
      expect(lean.state.counters).toMatchObject({ entriesAccepted: 50, batchesAccepted: 1 });
    } finally {
      await lean.close();
    }
  });

  test('concurrent batches are all kept, none lost', async () => {
    const wf = 'wf-20012';
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => update({ workflow_id: wf, details: entries(100, i * 100) })),
    );
    const got = sb.state.received.updates.get(wf)!;
    expect(got).toMatchObject({ count: 2000, batches: 20 });
    expect(new Set(got.entries.map((e) => e.caseid)).size).toBe(2000);
  });
});
