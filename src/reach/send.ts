import type { Delivery, PreparedRequest } from '../api/deliver.js';
import type { Destination } from '../store/destination.js';
import type { Store } from '../store/store.js';
import { writeResults } from './results.js';
import type { RowResult, RowSelection, RowSender, SendRow, SendEvent as RowEvent, StopReason } from './rows.js';
import {
  ledgerSkips,
  peekOne,
  peekSend,
  reachOne,
  REACHED_BEFORE,
  type LedgerSkip,
  type SendRules as LedgerRules,
} from './send-run.js';
import { resultOf, selectRows, sendRows, type RunResult } from './rows.js';
import { Journal } from '../store/row-journal.js';
import { openLedger } from '../store/ledger.js';

/**
 * The sending engine's one entry: `send(plan, run)`, for push and template send, one person or a
 * CSV file. The plan is what the command decided before the run; the run, what it lends the
 * engine. The engine owns the sequence (read what earlier runs left, lock, confirm, send at the
 * rate, the results file, close), emits events and returns an outcome; it never prints and
 * picks no exit code.
 */

/** Everything decided before the run, from the command's flags and input. */
export interface SendPlan<B> {
  command: 'push' | 'template';
  destination: Destination;
  /** Every row checked before anything is sent; a single send (no `file`) has one. */
  rows: SendRow<B>[];
  /** The CSV file the rows come from; absent for a single send. */
  file?: {
    /** Its absolute path. */
    path: string;
    sha256: string;
    results: string;
    columns: { who: string; id: string };
    /** Row-independent settings of the run, kept in the journal's header for reference. */
    meta: Record<string, unknown>;
  };
  /** How a row becomes its request (right before it is sent), and how a request is delivered. */
  sender: RowSender<B>;
  /** The request a dry run shows. */
  preview(row: SendRow<B>): Promise<PreparedRequest>;
  rules: SendRules;
  dryRun: boolean;
  /** What the command adds to a ledger skip's reason and to an uncertain row's error (the core names no flag). */
  advice: { skipped: string; uncertain: string };
}

/** The journal's and the ledger's rules (src/reach/send-run.ts), and the pace, as the flags set them. */
export interface SendRules extends Omit<LedgerRules, 'now'> {
  /** Requests per second (a CSV send). */
  rate: number;
}

export interface SendRun {
  store: Store;
  /** Asked once, only when there is something to send and not on a dry run; false: declined. */
  confirm(selection: RowSelection): Promise<boolean>;
  onEvent(event: SendEvent): void;
  /** Aborted: the delivery in flight is finished and journaled, and the run stops. */
  signal?: AbortSignal;
  now(): number;
  sleep(ms: number): Promise<void>;
}

export type SendEvent =
  | RowEvent
  /** A row the ledger keeps back (or would, on a dry run): its person was reached through the destination. */
  | { type: 'skipped'; skip: LedgerSkip; reason: string; dryRun: boolean }
  /** The same path was sent before with other content: an edited file is new to the journal. */
  | { type: 'edited'; at: string[] };

export type SendOutcome =
  | { kind: 'dry-run'; requests: PreparedRequest[]; selection: RowSelection; skipped: LedgerSkip[] }
  | { kind: 'declined' }
  /** A single send the ledger kept back (or would, on a dry run). */
  | { kind: 'skipped'; reachedAt: string }
  /** A single send, whatever the answer; `sentAt` when it left. */
  | { kind: 'delivered'; delivery: Delivery; request: PreparedRequest; sentAt: number }
  /** A CSV send: every row's outcome (this run's or an earlier one's), and why it stopped early. */
  | { kind: 'ran'; results: RowResult[]; stopped?: { reason: StopReason; message: string }; journal: string };

export function send<B>(plan: SendPlan<B>, run: SendRun): Promise<SendOutcome> {
  return plan.file ? sendFile(plan, plan.file, run) : sendOne(plan, run);
}

async function sendOne<B>(plan: SendPlan<B>, run: SendRun): Promise<SendOutcome> {
  const row = plan.rows[0]!;
  const rules = { ...plan.rules, now: run.now };
  const one = { destination: plan.destination, person: row.person };
  // Someone the ledger keeps back is not asked about: there is nothing to send (reachOne checks
  // again, under the ledger's lock, after the question).
  const reachedAt = await peekOne(run.store, one, rules);
  if (reachedAt) return { kind: 'skipped', reachedAt };
  const selection = { total: 1, toSend: [row.row], sentEarlier: 0, failedEarlier: [], uncertain: [] };
  if (plan.dryRun) return { kind: 'dry-run', requests: [await plan.preview(row)], selection, skipped: [] };
  if (!(await run.confirm(selection))) return { kind: 'declined' };
  const sentAt = run.now();
  const request = await plan.sender.prepare(row);
  const sent = await reachOne(run.store, one, rules, () => plan.sender.deliver(request));
  if (sent.outcome === 'skipped') return { kind: 'skipped', reachedAt: sent.reachedAt };
  return { kind: 'delivered', delivery: sent.delivery, request, sentAt };
}

async function sendFile<B>(
  plan: SendPlan<B>,
  file: NonNullable<SendPlan<B>['file']>,
  run: SendRun,
): Promise<SendOutcome> {
  const rules = { ...plan.rules, now: run.now };
  const key = { command: plan.command, destination: plan.destination, sha256: file.sha256 };
  const work = { key, file: file.path, rows: plan.rows };
  const reason = (at: string) => `${REACHED_BEFORE} at ${at}${plan.advice.skipped}`;
  const advised = (r: RowResult): RowResult =>
    r.error?.startsWith(REACHED_BEFORE)
      ? { ...r, error: `${r.error}${plan.advice.skipped}` }
      : r.outcome === 'uncertain'
        ? { ...r, error: `${r.error}${plan.advice.uncertain}` }
        : r;
  if (plan.dryRun) {
    const { selection, skipped } = await peekSend(run.store, work, rules);
    const byRow = new Map(plan.rows.map((r) => [r.row, r]));
    const requests = await Promise.all(selection.toSend.map((n) => plan.preview(byRow.get(n)!)));
    for (const s of skipped) run.onEvent({ type: 'skipped', skip: s, reason: reason(s.reachedAt), dryRun: true });
    return { kind: 'dry-run', requests, selection, skipped };
  }
  const journals = await run.store.journals('reach');
  await Journal.prune(journals);
  const edited = await Journal.sameFileOtherContent(journals, key, file.path);
  // Released in reverse, each even when one before it fails: the locks, the journal, the ledger.
  const releases: Array<() => Promise<void>> = [];
  let journal: Journal | undefined;
  let skipped: LedgerSkip[] = [];
  let ran: RunResult | undefined;
  let started = false;
  try {
    // The send's own lock first, for its plainer message; then the destination's, with its ledger.
    releases.push(
      await run.store.lock({
        name: `${key.command} ${key.destination.text} ${key.sha256}`,
        what: `${key.command} run of this file`,
      }),
    );
    const opened = await Journal.open(journals, key, { file: file.path, ...file.meta }, rules.now);
    journal = opened;
    releases.push(() => opened.close());
    const ledger = await openLedger(run.store, key.destination);
    releases.push(async () => ledger.close());
    // The journal's rules first, then the ledger's.
    const selection = selectRows(plan.rows, opened.states, rules);
    skipped = ledgerSkips(plan.rows, (p) => ledger.lastReached(p), opened.states, rules);
    selection.toSend = selection.toSend.filter((n) => !skipped.some((s) => s.row === n));
    for (const s of skipped) run.onEvent({ type: 'skipped', skip: s, reason: reason(s.reachedAt), dryRun: false });
    if (opened.isNew && edited.length > 0) run.onEvent({ type: 'edited', at: edited.map((e) => e.at) });
    if (selection.toSend.length > 0 && !(await run.confirm(selection))) return { kind: 'declined' };
    started = true;
    // Each row journaled and put in the ledger before its request (src/reach/rows.ts).
    const control = {
      ...rules,
      sleep: run.sleep,
      stopRequested: () => run.signal?.aborted === true,
      ledger,
    };
    ran = await sendRows(plan.rows, selection, opened, plan.sender, control, (e) =>
      run.onEvent(e.type === 'row' ? { ...e, result: advised(e.result) } : e),
    );
  } finally {
    // Even when the run ended with an error (a signing command failing), the file is complete:
    // every row's outcome, the run's or the journal's, and ledger skips as skipped.
    const at = new Map(skipped.map((s) => [s.row, s.reachedAt]));
    const results = journal
      ? (ran?.results ?? plan.rows.map((r) => resultOf(r, journal!.states.get(r.row), true)))
          .map((r) =>
            at.has(r.row) ? { ...r, outcome: 'skipped' as const, error: `${REACHED_BEFORE} at ${at.get(r.row)}` } : r,
          )
          .map(advised)
      : [];
    if (ran) ran.results = results;
    await releaseAll(releases);
    if (started) writeResults(file.results, results, file.columns);
  }
  return { kind: 'ran', results: ran.results, stopped: ran.stopped, journal: journal.path };
}

/** Runs every release in reverse, each even when one before it fails; throws the first failure. */
async function releaseAll(releases: Array<() => Promise<void>>): Promise<void> {
  let failure: unknown;
  for (const release of releases.reverse()) {
    try {
      await release();
    } catch (error) {
      failure ??= error;
    }
  }
  if (failure) throw failure;
}
