import type { Delivery, PreparedRequest } from '../api/deliver.js';
import { nothingSent } from '../errors.js';
import { intervalMs } from '../timers.js';
import type { Journal, RowState } from '../store/row-journal.js';
import { plural } from '../plural.js';
import type { CsvFile } from '../csv/read.js';
import type { Problem } from '../csv/problems.js';

/** A validated row, ready to be sent. */
export interface SendRow<B> {
  row: number;
  line: number;
  /** Who it reaches, as written, for reports (caller id, channel and channel id). */
  who: string;
  /** Who it reaches, as the ledger knows people (src/person.ts): a phone number in E.164 form. */
  person: string;
  body: B;
}

/** A send's fields checked: its body and its person, or its problems. */
export type Built<B> = { ok: true; body: B; person: string } | { ok: false; problems: Problem[] };

/** How a CSV file's rows become sends (see checkRows). */
export interface RowReading<B> {
  /** What a header lacks, when it lacks what every row needs. */
  headerProblem?: string;
  /** The columns that are fields of the request; every other column is a variable. */
  fields: ReadonlySet<string>;
  /** The variables of every row (a row's non-empty cells win). */
  variables: Record<string, string>;
  build(fields: Record<string, string>, variables: Record<string, string>, line: number): Built<B>;
  /** Who a row reaches, as written (for messages and the results file). */
  who(fields: Record<string, string>, body: B): string;
  allowDuplicates?: boolean;
  /** A duplicate's message: `caller_id ` before who, and what sending twice does (`call`). */
  duplicate: { label: string; verb: string };
}

/**
 * A CSV file's rows, every one checked, so that one run lists every problem (with a sound header):
 * each row built, and the same person on two rows a problem unless allowed.
 */
export function checkRows<B>(file: CsvFile, how: RowReading<B>): { rows: SendRow<B>[]; problems: Problem[] } {
  const problems: Problem[] = [...file.problems];
  if (how.headerProblem) problems.unshift({ line: 1, message: how.headerProblem });
  const rows: SendRow<B>[] = [];
  if (problems.some((p) => p.line === 1)) return { rows, problems };
  const seen = new Map<string, { line: number; who: string }>();
  for (const r of file.rows) {
    const variables = { ...how.variables };
    for (const [k, v] of Object.entries(r.fields)) if (!how.fields.has(k) && v !== '') variables[k] = v;
    const built = how.build(r.fields, variables, r.line);
    if (!built.ok) {
      problems.push(...built.problems);
      continue;
    }
    const who = how.who(r.fields, built.body);
    const earlier = seen.get(built.person);
    if (earlier !== undefined && !how.allowDuplicates) {
      problems.push({
        line: r.line,
        message: `${how.duplicate.label}${who} is ${earlier.who === who ? '' : `${built.person}, `}also on line ${earlier.line} (--allow-duplicates to ${how.duplicate.verb} it twice)`,
      });
    }
    seen.set(built.person, { line: r.line, who });
    rows.push({ row: r.row, line: r.line, who, person: built.person, body: built.body });
  }
  return { rows, problems };
}

export interface RowSender<B> {
  /** The exact request, made right before it is sent (timestamp, signature). */
  prepare(row: SendRow<B>): Promise<PreparedRequest>;
  deliver(req: PreparedRequest): Promise<Delivery>;
}

export interface SendRowsOptions {
  /** Requests per second; sends are sequential and at least 1000/rate ms apart. */
  rate: number;
  resendUncertain: boolean;
  retryFailed: boolean;
  now(): number;
  sleep(ms: number): Promise<void>;
  /** Checked before each send: true ends the run (Ctrl-C). */
  stopRequested(): boolean;
  /** The never-twice ledger (src/store/ledger.ts): told before each send and of each send that reached nobody. */
  ledger?: {
    pending(person: string, at: string): void | Promise<void>;
    cleared(person: string, at: string): void | Promise<void>;
  };
}

/** Stop after this many refusals in a row: a wrong token or key would fail every row. */
export const MAX_CONSECUTIVE_FAILURES = 5;

export type RowOutcome = 'sent' | 'failed' | 'uncertain' | 'skipped';

export interface RowResult {
  row: number;
  line: number;
  who: string;
  outcome: RowOutcome;
  /** trace_id or task_id (or request_id with an error). */
  id?: string;
  error?: string;
  /** The outcome was recorded by an earlier run. */
  earlier: boolean;
  /** Sent, but the answer was odd (this run only; see Delivery). */
  warning?: string;
}

export interface RowSelection {
  total: number;
  /** Rows to send in this run, in order. */
  toSend: number[];
  sentEarlier: number;
  /** Rows an earlier run saw refused (sent again only with retryFailed). */
  failedEarlier: number[];
  /** Rows sent without an answer by an earlier run: not sent again unless resendUncertain. */
  uncertain: number[];
}

export type StopReason = 'interrupted' | 'network' | 'failures';

export type SendEvent =
  | { type: 'row'; result: RowResult; done: number; of: number }
  | { type: 'stopped'; reason: StopReason; message: string };

export interface RunResult {
  results: RowResult[];
  stopped?: { reason: StopReason; message: string };
}

const isUncertain = (s: RowState | undefined) => s?.state === 'about' || s?.state === 'uncertain';

/** Which rows this run sends, from what the journal recorded. */
export function selectRows(
  rows: readonly SendRow<unknown>[],
  states: ReadonlyMap<number, RowState>,
  opts: Pick<SendRowsOptions, 'resendUncertain' | 'retryFailed'>,
): RowSelection {
  const selection: RowSelection = { total: rows.length, toSend: [], sentEarlier: 0, failedEarlier: [], uncertain: [] };
  for (const { row } of rows) {
    const s = states.get(row);
    if (s?.state === 'sent') selection.sentEarlier++;
    else if (s?.state === 'failed') {
      selection.failedEarlier.push(row);
      if (opts.retryFailed) selection.toSend.push(row);
    } else if (isUncertain(s)) {
      selection.uncertain.push(row);
      if (opts.resendUncertain) selection.toSend.push(row);
    } else selection.toSend.push(row);
  }
  return selection;
}

/**
 * Sends the planned rows one at a time at the given rate. Each row is journaled as about to be
 * sent (on disk) before its request, and its answer after; a connection that fails once the
 * body may have gone out ends the run, and that row stays uncertain.
 */
export async function sendRows<B>(
  rows: readonly SendRow<B>[],
  selection: RowSelection,
  journal: Journal,
  sender: RowSender<B>,
  opts: SendRowsOptions,
  emit: (event: SendEvent) => void,
): Promise<RunResult> {
  const byRow = new Map(rows.map((r) => [r.row, r]));
  const thisRun = new Set<number>();
  const interval = intervalMs(opts.rate);
  let lastStart: number | undefined;
  let consecutiveFailures = 0;
  let stopped: RunResult['stopped'];
  for (const [i, rowNumber] of selection.toSend.entries()) {
    if (opts.stopRequested()) {
      stopped = {
        reason: 'interrupted',
        message: `interrupted after ${i} of ${plural(selection.toSend.length, 'row')}`,
      };
      break;
    }
    const row = byRow.get(rowNumber)!;
    const req = await sender.prepare(row);
    if (lastStart !== undefined) {
      const wait = lastStart + interval - opts.now();
      if (wait > 0) await opts.sleep(wait);
    }
    lastStart = opts.now();
    await journal.about(row.row);
    // Committed before the request leaves (a database ledger answers asynchronously).
    await opts.ledger?.pending(row.person, journal.iso());
    thisRun.add(row.row);
    let d: Delivery;
    try {
      d = await sender.deliver(req);
    } catch (error) {
      // https:// to a plain HTTP server (or the reverse), a proxy's 407: nothing left, as the error says.
      if (nothingSent(error)) {
        await journal.answer(row.row, { state: 'not-sent', at: journal.iso(), error: error.message });
        await opts.ledger?.cleared(row.person, journal.iso());
      }
      throw error;
    }
    await journal.answer(row.row, toState(d, journal.iso()));
    if (d.outcome === 'failed' || d.outcome === 'not-sent') await opts.ledger?.cleared(row.person, journal.iso());
    const result = {
      ...resultOf(row, journal.states.get(row.row), false),
      ...(d.outcome === 'sent' && d.warning ? { warning: d.warning } : {}),
    };
    emit({ type: 'row', result, done: i + 1, of: selection.toSend.length });
    if (d.outcome === 'uncertain' || d.outcome === 'not-sent') {
      stopped = { reason: 'network', message: `row ${row.row} (line ${row.line}): ${d.error.message}` };
      break;
    }
    consecutiveFailures = d.outcome === 'failed' ? consecutiveFailures + 1 : 0;
    if (consecutiveFailures >= MAX_CONSECUTIVE_FAILURES) {
      stopped = {
        reason: 'failures',
        message: `the service refused ${consecutiveFailures} rows in a row (last: ${result.error}); check the settings before running again`,
      };
      break;
    }
  }
  if (stopped) emit({ type: 'stopped', ...stopped });
  const results = rows.map((r) => resultOf(r, journal.states.get(r.row), !thisRun.has(r.row)));
  return { results, stopped };
}

function toState(d: Delivery, at: string): Exclude<RowState, { state: 'about' }> {
  switch (d.outcome) {
    case 'sent':
      return { state: 'sent', at, id: d.id };
    case 'failed':
      return { state: 'failed', at, ...(d.id ? { id: d.id } : {}), error: d.message };
    case 'uncertain':
      return { state: 'uncertain', at, error: d.error.message };
    case 'not-sent':
      return { state: 'not-sent', at, error: d.error.message };
  }
}

/** A row's outcome for the results file, from its journal state. */
export function resultOf(row: SendRow<unknown>, s: RowState | undefined, earlier: boolean): RowResult {
  const base = { row: row.row, line: row.line, who: row.who, earlier };
  if (!s) return { ...base, outcome: 'skipped', error: 'not sent yet: the run ended before this row' };
  switch (s.state) {
    case 'sent':
      return { ...base, outcome: 'sent', id: s.id };
    case 'failed':
      return { ...base, outcome: 'failed', ...(s.id ? { id: s.id } : {}), error: s.error };
    case 'not-sent':
      return { ...base, outcome: 'skipped', error: `not sent (${s.error}); a re-run sends it` };
    case 'about':
      return {
        ...base,
        outcome: 'uncertain',
        error: `sent ${s.at} with no answer recorded (the run was killed): it may have reached the person`,
      };
    case 'uncertain':
      return { ...base, outcome: 'uncertain', error: `${s.error}; it may have reached the person` };
  }
}

export function tally(results: readonly RowResult[]): Record<RowOutcome, number> {
  const t: Record<RowOutcome, number> = { sent: 0, failed: 0, uncertain: 0, skipped: 0 };
  for (const r of results) t[r.outcome]++;
  return t;
}
