import { summarize, type EventSummary } from '../schemas/detect.js';
import { printable } from '../output/printable.js';
import { recordBody, type HookRecord } from './event-log.js';
import type { EventFilter } from './types.js';

/** The ids of a recorded event (plan, task, callee...), read from its body. */
export function recordFacts(record: HookRecord): EventSummary {
  if (record.type === null || record.body === undefined) return {};
  try {
    // A body kept as text is its own UTF-8 (bytes that are not UTF-8 are kept as base64).
    const text = record.encoding === 'base64' ? recordBody(record).toString('utf8') : record.body;
    return summarize(record.type, JSON.parse(text));
  } catch {
    return {};
  }
}

/** The ids of a recorded event as shown (see printable); filters use {@link recordFacts}. */
export function shownFacts(record: HookRecord): EventSummary {
  const facts = recordFacts(record);
  for (const [k, v] of Object.entries(facts))
    if (typeof v === 'string') (facts as Record<string, unknown>)[k] = printable(v);
  return facts;
}

/** Whether a record passes a filter (the embedded store's query; PostgreSQL's is SQL). */
export function matches(record: HookRecord, filter: EventFilter, facts: () => EventSummary): boolean {
  if (filter.types && !filter.types.has(record.type ?? 'refused')) return false;
  if (filter.since !== undefined || filter.until !== undefined) {
    const t = Date.parse(record.time);
    if (filter.since !== undefined && t < filter.since) return false;
    if (filter.until !== undefined && t >= filter.until) return false;
  }
  if (filter.verdicts && !filter.verdicts.has(record.verdict ?? (record.status === 200 ? '' : 'refused'))) return false;
  if (filter.key !== undefined && record.key !== filter.key) return false;
  if (filter.retries !== undefined && filter.retries !== record.retry > 0) return false;
  if (filter.plan !== undefined || filter.task !== undefined || filter.callee !== undefined) {
    const f = facts();
    if (filter.plan !== undefined && f.plan !== filter.plan) return false;
    if (filter.task !== undefined && f.task !== filter.task) return false;
    if (filter.callee !== undefined && f.callee !== filter.callee) return false;
  }
  return true;
}
