import type { ListEntry } from '../spec/shapes.js';
import { MAX_ENTRIES_PER_UPDATE } from '../spec/limits.js';
import { checkEntry } from '../entry-check.js';
import { countsMatches, updateCount } from '../variants.js';
import type { ReceivedUpdates, WorkflowModel } from '../state.js';
import { badRequest, describeIssue, fail, notFound, objectBody, ok, type Handler, type Reply } from '../http.js';

/** How many invalid entries an error answer lists (all are counted). */
const MAX_LISTED_ERRORS = 20;

/**
 * POST /service/cloud/workflow/updatedetails. Validates the whole batch first: any invalid entry
 * rejects it (code 400, the message names the first bad entry's index and field, `data.errors`
 * lists up to 20). Unknown workflow: 404; a cancelled one: 409. On success the entries are kept
 * per workflow in arrival order (a retried batch appears twice, as the service would store it).
 */
export const updateDetailsHandler: Handler = (ctx) => {
  const body = objectBody(ctx);
  const { workflow_id: id, details } = body;
  if (typeof id !== 'string' || id === '') return badRequest('workflow_id is required (a non-empty string)');
  if (!Array.isArray(details)) return badRequest('details is required (an array of list entries)');
  if (details.length === 0) return badRequest('details is empty; send 1 to 10000 entries');
  if (details.length > MAX_ENTRIES_PER_UPDATE) {
    return badRequest(`details has ${details.length} entries; at most ${MAX_ENTRIES_PER_UPDATE} per request`);
  }
  const { state, faults, batchFaults, options, events } = ctx.engine;
  const wf = state.workflows.get(id);
  if (!wf) return notFound(`workflow not found: ${id}`);
  if (wf.instance.status === 'cancelled') return fail(409, `workflow ${id} is cancelled; its lists cannot be updated`);

  const accepted: ListEntry[] = new Array(details.length);
  const errors: Array<{ index: number; message: string }> = [];
  let invalid = 0;
  for (let i = 0; i < details.length; i++) {
    const r = checkEntry(details[i]);
    if (r.ok) accepted[i] = r.entry;
    else if (++invalid <= MAX_LISTED_ERRORS)
      errors.push({ index: i, message: describeIssue(r.issues, `details[${i}]`) });
  }
  if (invalid > 0) {
    const more = invalid > 1 ? ` (${invalid} invalid entries in all)` : '';
    return badRequest(`invalid entry ${errors[0]?.message}${more}`, { workflow_id: id, invalid, errors });
  }

  const fault = batchFaults.check(faults);
  if (fault) {
    state.counters.faults.failBatch = (state.counters.faults.failBatch ?? 0) + 1;
    events.emit('fault', { name: 'failBatch', method: ctx.method, path: ctx.path });
  }
  if (fault?.mode === 'envelope') return fail(500, `simulated failure of batch ${fault.index}`);
  if (fault?.mode === 'drop') return { status: 0, drop: true };

  let received = state.received.updates.get(id);
  if (!received) state.received.updates.set(id, (received = { entries: [], count: 0, batches: 0 }));
  const matched = countsMatches(ctx.engine.variants) ? countMatched(wf, received, accepted) : 0;
  if (options.keepEntries) for (const e of accepted) received.entries.push(e);
  received.count += accepted.length;
  received.batches++;
  state.counters.batchesAccepted++;
  state.counters.entriesAccepted += accepted.length;
  batchFaults.accept(faults);
  events.emit('workflow.updated', {
    workflowId: id,
    count: accepted.length,
    batch: received.batches,
    total: received.count,
  });
  const count = updateCount(ctx.engine.variants, { sent: accepted.length, matched, fresh: accepted.length - matched });
  const reply: Reply = ok({ workflow_id: id, count });
  return fault?.mode === 'drop-after-accept' ? { ...reply, drop: true } : reply;
};

/** The key a list entry is matched on: its `caseid` when it has one (the spec's advice), else its callee. */
const keyOf = (e: ListEntry) => (e.caseid ? `case:${e.caseid}` : `callee:${e.callee}`);

/**
 * How many of `batch` match a contact the workflow already had (seeded, or received earlier; a
 * repeat within the batch matches its first occurrence). The key index is built on first need and
 * rebuilt when entries arrived while it was not kept (only kept entries can be re-read).
 */
function countMatched(wf: WorkflowModel, received: ReceivedUpdates, batch: readonly ListEntry[]): number {
  if (!received.keys || received.keysAt !== received.count) {
    received.keys = new Set([...wf.contacts, ...received.entries].map(keyOf));
  }
  let matched = 0;
  for (const e of batch) {
    const key = keyOf(e);
    if (received.keys.has(key)) matched++;
    else received.keys.add(key);
  }
  received.keysAt = received.count + batch.length;
  return matched;
}
