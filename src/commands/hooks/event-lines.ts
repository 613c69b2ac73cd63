import type { HooksEventsLine } from '../../schemas/hooks-output.js';
import { listOf } from '../../hooks/plan.js';
import { EVENT_TYPES } from '../../schemas/event-types.js';
import { recordFacts, shownFacts } from '../../store/facts.js';
import { maskNumber } from '../../output/printable.js';
import type { EventFilter, StoredEvent } from '../../store/events.js';
import { csvLine, formulaSafe } from '../../report/csv.js';
import type { EventSummary } from '../../schemas/detect.js';
import { timeRange } from '../time-flags.js';
import { eventObject, forwardText, type RenderOptions } from '../../hooks/event-view.js';
import { said } from '../../said.js';
import { personKey } from '../../person.js';

// What `hooks events` and the inspector's page share: the filter of the flags (or of the page's
// address) and an event's exported line. The commands import it when they run.
/** The piped columns: TSV lines, or CSV with `--format csv`. */
const COLUMNS = ['id', 'time', 'type', 'plan', 'task', 'callee', 'status', 'verdict', 'retry', 'httpStatus', 'forward'];

const VERDICTS = ['verified', 'rejected', 'unverified', 'skipped', 'unsigned', 'refused'];
const TYPES = [...EVENT_TYPES, 'refused' as const];

/** The flags of `hooks events` that filter (the inspector's address names the same). */
interface FilterFlags {
  type?: string | undefined;
  since?: string | undefined;
  until?: string | undefined;
  plan?: string | undefined;
  task?: string | undefined;
  callee?: string | undefined;
  verdict?: string | undefined;
  retries?: boolean | undefined;
  limit?: number | undefined;
}

/** The filter the flags ask for; a bad value is a usage error. */
export function eventFilter(opts: FilterFlags, now: number): EventFilter {
  const filter: EventFilter = {};
  if (opts.type !== undefined)
    filter.types = new Set(
      listOf(opts.type, TYPES, ([t]) => said`--type: unknown type ${t} (one of ${TYPES.join(', ')})`),
    );
  const { start, end } = timeRange({ flag: '--since', value: opts.since }, { flag: '--until', value: opts.until }, now);
  if (start !== undefined) filter.since = start;
  if (end !== undefined) filter.until = end;
  if (opts.plan !== undefined) filter.plan = opts.plan;
  if (opts.task !== undefined) filter.task = opts.task;
  // The person as events name them (src/person.ts): `+62 812-3450-0014` finds +6281234500014.
  if (opts.callee !== undefined) filter.callee = personKey(opts.callee);
  if (opts.verdict !== undefined)
    filter.verdicts = new Set(
      listOf(opts.verdict, VERDICTS, ([v]) => said`--verdict: unknown verdict ${v} (one of ${VERDICTS.join(', ')})`),
    );
  if (opts.retries !== undefined) filter.retries = opts.retries;
  if (opts.limit !== undefined) filter.limit = opts.limit;
  return filter;
}

/** The piped columns of an event (TSV, CSV). */
export function cells(e: StoredEvent, summary: EventSummary, showNumbers: boolean): Array<string | number | undefined> {
  const callee = summary.callee === undefined ? '' : showNumbers ? summary.callee : maskNumber(summary.callee);
  return [
    e.id,
    e.record.time,
    e.record.type ?? 'refused',
    summary.plan,
    summary.task,
    callee,
    summary.status,
    e.record.verdict ?? '',
    e.record.retry,
    e.record.status,
    forwardText(e),
  ];
}

/** The CSV header of `--format csv` (and the inspector's export). */
export const CSV_HEAD = csvLine(COLUMNS);

/**
 * One event as a line of `--format csv` or of `--json` / `--format ndjson` (and of the inspector's
 * export). A CSV cell a sender wrote never runs as a spreadsheet's formula (formulaSafe).
 */
export function exportLine(format: 'csv' | 'ndjson', showNumbers: boolean): (e: StoredEvent) => string {
  const render: RenderOptions = { json: true, showNumbers, skipVerify: false };
  if (format === 'csv')
    return (e) =>
      csvLine(cells(e, shownFacts(e.record), showNumbers).map((v) => (typeof v === 'string' ? formulaSafe(v) : v)));
  return (e) => {
    const { seq: _seq, ...o } = eventObject(0, e.record, recordFacts(e.record), render);
    void _seq;
    const line = { id: e.id, ...o, ...(e.forward ? { forward: e.forward } : {}) } satisfies HooksEventsLine;
    return `${JSON.stringify(line)}\n`;
  };
}
