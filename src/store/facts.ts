import { summarize, type EventSummary } from '../schemas/detect.js';
import { printable } from '../output/printable.js';
import { recordBody, type HookRecord } from './events.js';

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
