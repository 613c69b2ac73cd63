import type { HooksShowJson, ServeHooksLine } from '../schemas/hooks-output.js';
import { personTexts, type EventSummary } from '../schemas/detect.js';
import { personKey } from '../person.js';
import { recordBody, type EventStore, type HookRecord, type StoredEvent } from '../store/events.js';
import { recordFacts, shownFacts } from '../store/facts.js';
import { maskNumber, printable } from '../output/printable.js';
import type { Paint } from '../output/paint.js';
import type { EventRow } from './event-row.js';

export type { EventRow };

/** Arrivals of one event kept for showing (all are counted). */
const ARRIVALS_KEPT = 100;

/** One recorded event whole, as `hooks show` and the inspector's detail view show it. */
export interface EventDetail {
  /** `hooks show --json`: the record (secret headers redacted as kept), its ids, arrivals and forward. */
  json: HooksShowJson;
  /** The body to read: JSON indented, else as it came (base64 when not UTF-8); the person's number masked unless shown. */
  body: string;
  /** Every arrival of the same event (the service's retries), oldest first, the first 100. */
  arrivals: StoredEvent[];
}

/**
 * Reads one event and every arrival of it. The person's number (a callee_number, a template's
 * channel_id and callee) is masked in the ids and in the body unless `showNumbers`.
 */
export async function eventDetail(
  store: EventStore,
  id: string,
  showNumbers: boolean,
  shown = false,
): Promise<EventDetail | undefined> {
  const event = await store.get(id);
  if (!event) return undefined;
  const r = event.record;
  // Every arrival of the event (a few: the service retries 5 times), read as a page by its identity.
  const all = r.key ? (await store.page({ key: r.key }, { limit: 10_000 })).events.reverse() : [];
  const arrivals = all.slice(0, ARRIVALS_KEPT);
  const count = all.length;
  // `shown`: ids made printable (a terminal); else as they are (JSON).
  const facts = shown ? shownFacts(r) : recordFacts(r);
  if (facts.callee && !showNumbers) facts.callee = maskNumber(facts.callee);
  let body = recordBody(r).toString(r.encoding === 'base64' ? 'base64' : 'utf8');
  let parsed: unknown;
  if (r.encoding !== 'base64' && body) {
    try {
      parsed = JSON.parse(body);
      body = JSON.stringify(parsed, null, 2);
    } catch {
      // shown as it came
    }
  }
  let rawBody = r.body;
  if (!showNumbers && r.encoding !== 'base64') {
    for (const [text, masked] of maskings(personTexts(r.type, parsed))) {
      body = body.split(text).join(masked);
      rawBody = rawBody?.split(text).join(masked);
    }
  }
  return {
    json: {
      id: event.id,
      store: store.where,
      ...r,
      body: rawBody,
      ids: facts,
      arrivals: count,
      forward: event.forward ?? null,
    },
    body,
    arrivals,
  };
}

/**
 * Each text of a person and what it is shown as: a phone number is masked wherever it appears; an
 * id of a few characters (`CH-1`) only as a whole JSON string, not inside other text.
 */
function maskings(texts: string[]): Array<[string, string]> {
  return [...texts]
    .sort((a, b) => b.length - a.length)
    .map((t) => (E164.test(personKey(t)) ? [t, maskNumber(t)] : [JSON.stringify(t), JSON.stringify(maskNumber(t))]));
}
const E164 = /^\+\d{7,15}$/;

/** What became of an event's forward, in a few words ('' when it was not forwarded). */
export function forwardText(e: StoredEvent): string {
  const f = e.forward;
  if (!f) return '';
  if (f.state === 'claimed') return 'forwarding';
  return f.state === 'done'
    ? `forwarded ${f.status ?? ''}`.trim()
    : `forward failed${f.status !== undefined ? ` ${f.status}` : f.error ? `: ${f.error}` : ''}`;
}

export function eventRow(e: StoredEvent, showNumbers: boolean): EventRow {
  const facts = recordFacts(e.record);
  const r = e.record;
  return {
    id: e.id,
    time: r.time,
    type: r.type ?? 'refused',
    ...(facts.plan !== undefined ? { plan: facts.plan } : {}),
    ...(facts.task !== undefined ? { task: facts.task } : {}),
    ...(facts.callee !== undefined ? { callee: showNumbers ? facts.callee : maskNumber(facts.callee) } : {}),
    ...(facts.status !== undefined ? { status: facts.status } : {}),
    verdict: r.verdict ?? (r.status === 200 ? '' : 'refused'),
    retry: r.retry,
    httpStatus: r.status,
    forward: forwardText(e),
  };
}

/** How serve-hooks and `hooks events` show an event (its line or its JSON object). */
export interface RenderOptions {
  /** One NDJSON object per event (piped or `--json`) instead of a coloured line. */
  json: boolean;
  showNumbers: boolean;
  skipVerify: boolean;
  /** Types shown on stdout; everything is still recorded. Undefined shows all. */
  events?: ReadonlySet<string>;
}

/**
 * The JSON object of one event (`--json` or piped): what a person watching needs, without the
 * body (the log keeps it). The callee is masked unless `--show-numbers`.
 */
export function eventObject(
  seq: number,
  record: HookRecord,
  summary: EventSummary,
  options: RenderOptions,
  forwarding = false,
) {
  const ids: EventSummary = { ...summary };
  if (ids.callee && !options.showNumbers) ids.callee = maskNumber(ids.callee);
  return {
    seq,
    time: record.time,
    type: record.type,
    ...ids,
    verdict: record.verdict,
    ...(record.by ? { by: record.by } : {}),
    ...(record.reason ? { reason: record.reason } : {}),
    ...(record.warnings ? { warnings: record.warnings } : {}),
    duplicate: record.duplicate,
    retry: record.retry,
    httpStatus: record.status,
    ...(forwarding ? { forwarding: true as const } : {}),
    ...(options.skipVerify ? { skipVerify: true as const } : {}),
  } satisfies ServeHooksLine;
}

const ID_FIELDS: Array<[keyof EventSummary, string]> = [
  ['plan', 'plan'],
  ['task', 'task'],
  ['workflow', 'wf'],
  ['node', 'node'],
  ['call', 'call'],
  ['msg', 'msg'],
  ['channel', 'channel'],
  ['callee', 'callee'],
];

/** One coloured line for a terminal: time, type, ids, status, verdict, retry. */
export function eventLine(
  seq: number,
  record: HookRecord,
  summary: EventSummary,
  options: RenderOptions,
  c: Paint,
): string {
  const time = record.time.slice(11, 19);
  const ids = ID_FIELDS.flatMap(([field, label]) => {
    const value = summary[field];
    if (value === undefined || value === '') return [];
    // What a request carries is shown as text: an ESC or a line break never reaches the terminal.
    const shown = printable(field === 'callee' && !options.showNumbers ? maskNumber(String(value)) : String(value));
    return [`${c.dim(label)} ${shown}`];
  });
  if (summary.rounds !== undefined) ids.push(`${c.dim('rounds')} ${summary.rounds}`);
  const parts = [c.dim(time), c.bold(c.cyan((record.type ?? '?').padEnd(22))), ...ids];
  if (summary.status) parts.push(c.magenta(printable(summary.status)));
  parts.push(verdictText(record, c));
  if (options.skipVerify) parts.push(c.yellow('[--skip-verify]'));
  if (record.duplicate) parts.push(c.yellow(`retry ${record.retry}`));
  if (record.status !== 200) parts.push(c.red(`answered ${record.status}`));
  if (record.warnings?.length)
    parts.push(
      c.yellow(
        `⚠ ${printable(record.warnings[0]!)}${record.warnings.length > 1 ? ` (+${record.warnings.length - 1})` : ''}`,
      ),
    );
  parts.push(c.dim(`#${seq}`));
  return parts.join('  ');
}

function verdictText(record: HookRecord, c: Paint): string {
  switch (record.verdict) {
    case 'verified':
      return c.green(`✓ verified${record.by ? ` (${record.by})` : ''}`);
    case 'rejected':
      return c.red(`✗ REJECTED: ${record.reason ?? 'bad signature'}`);
    case 'unverified':
      return c.yellow(`? unverified${record.reason ? ` (${record.reason})` : ''}`);
    case 'skipped':
      return c.yellow('? not verified');
    default:
      return c.dim('unsigned');
  }
}
