import { resolve } from 'node:path';
import { ExitCode, NetworkError } from '../../errors.js';
import type { Context } from '../../context.js';
import { redact } from '../../redact.js';
import {
  planSend,
  resultOf,
  sendRows,
  tally,
  type SendEvent,
  type SendPlan,
  type SendRow,
  type RunResult,
  type RowSender,
  type RowResult,
} from '../../reach/rows.js';
import type { PreparedRequest } from '../../api/deliver.js';
import { Journal, reachJournals, type JournalKey } from '../../state/row-journal.js';
import { defaultResultsPath, writeResults } from '../../reach/results.js';
import { confirmSend, printDryRun } from './send-ui.js';
import { Progress } from './progress.js';
import { stateDir } from '../../files/state.js';
import { fileLedgers, normaliseDestination, peekLedger, RECALL_WINDOW_MS, type Ledger } from '../../state/ledger.js';
import { sharedJournals, sharedLedgers, sharedLocks } from '../shared-lock.js';
import { plural } from '../../plural.js';
import type { CsvSendJson } from '../../schemas/run-output.js';

export interface CsvSendOptions {
  rate: number;
  yes?: boolean;
  dryRun?: boolean;
  results?: string;
  resendUncertain?: boolean;
  retryFailed?: boolean;
  /** Reach people the ledger says were reached through this destination within the window. */
  callAgain?: boolean;
  /** `--recall-window` in ms (default 24 h; 0: no ledger check). */
  recallWindow?: number;
  /** `-q, --quiet`: errors only (rows refused or uncertain, a stop); --json still prints the summary. */
  quiet?: boolean;
}

export interface CsvSend<B> {
  key: JournalKey;
  /** Where rows go, for the never-twice ledger (URLs normalised by the ledger). */
  destination: string;
  file: string;
  /** Row-independent settings of the run, kept in the journal for reference. */
  meta: Record<string, unknown>;
  rows: SendRow<B>[];
  sender: RowSender<B>;
  /** The request a dry run shows (no external signing command is run). */
  preview(row: SendRow<B>): Promise<PreparedRequest>;
  /** `{one: 'call', many: 'calls', verb: 'Place'}` */
  words: { one: string; many: string; verb: string };
  columns: { who: string; id: string };
  /** Confirmation lines shared by every row (endpoint, template...). */
  about: string[];
}

/**
 * Runs a validated CSV send at the edge: journal and lock, confirmation, dry run, progress on
 * stderr, the results file, the summary and the exit code.
 */
export async function runCsvSend<B>(ctx: Context, send: CsvSend<B>, opts: CsvSendOptions): Promise<number> {
  const startedAt = ctx.io.now();
  const out = await ctx.output();
  // Without a terminal (cron) every line starts with its time; --quiet keeps only the errors.
  const shown = new Progress(ctx.io, {
    quiet: opts.quiet === true,
    warn: (m) => out.warn(m),
    scrub: (t) => redact(t, [...ctx.secrets]),
  });
  const warn = (message: string) => shown.warning(message);
  // Journals (and their locks) live in the state folder, not the config folder.
  const state = stateDir(ctx.io.env);
  // With a PostgreSQL store the journals are there, so that every host knows what any one sent.
  const journals = (await sharedJournals(ctx, 'reach')) ?? reachJournals(state);
  const flags = { resendUncertain: !!opts.resendUncertain, retryFailed: !!opts.retryFailed };
  if (opts.dryRun) {
    const states = await Journal.peek(journals, send.key);
    const plan = planSend(send.rows, states, flags);
    // What the never-twice ledger would skip now (read only: no lock taken, nothing written).
    const destination = normaliseDestination(send.destination);
    const pg = await sharedLedgers(ctx);
    let lastReached = await peekLedger(state, destination);
    if (pg) {
      // The PostgreSQL store's ledger (read, then closed: its `pending`/`cleared` are never called here).
      const l = await pg.open(destination);
      const known = new Map(send.rows.map((r) => [r.who, l.lastReached(r.who)]));
      await l.close();
      lastReached = (who) => known.get(who);
    }
    const skips = ledgerSkips(send.rows, lastReached, states, ctx.io.now(), opts);
    plan.toSend = plan.toSend.filter((n) => !skips.has(n));
    const byRow = new Map(send.rows.map((r) => [r.row, r]));
    const requests = await Promise.all(plan.toSend.map((n) => send.preview(byRow.get(n)!)));
    const skipped = send.rows
      .filter((r) => skips.has(r.row))
      .map((r) => ({ row: r.row, line: r.line, who: r.who, reachedAt: skips.get(r.row)! }));
    for (const s of skipped)
      warn(
        `row ${s.row} (line ${s.line}) ${s.who}: would be skipped: already reached through this destination at ${s.reachedAt} (within --recall-window); --call-again reaches again`,
      );
    await printDryRun(
      ctx,
      requests,
      `${plan.toSend.length} of ${plural(plan.total, 'row')} would be sent${plan.uncertain.length ? `, ${plan.uncertain.length} uncertain from an earlier run would not` : ''}${skipped.length ? `, ${skipped.length} already reached through this destination would be skipped` : ''}`,
      { skipped },
    );
    return ExitCode.OK;
  }
  const file = resolve(send.file);
  await Journal.prune(journals);
  const edited = await Journal.sameFileOtherContent(journals, send.key, file);
  // With a PostgreSQL store, the same locks are also taken there (another host's cron runs the
  // same send, or sends to the same destination): the send first, for its plainer message.
  const takeShared = await sharedLocks(ctx);
  const destination = normaliseDestination(send.destination);
  const shared: Array<() => Promise<void>> = [];
  let journal: Journal;
  try {
    if (takeShared) {
      shared.push(
        await takeShared(
          `${send.key.command} ${normaliseDestination(send.key.target)} ${send.key.sha256}`,
          `${send.key.command} run of this file`,
        ),
      );
      shared.push(await takeShared(`ledger ${destination}`, `send to ${destination}`));
    }
    journal = await Journal.open(
      journals,
      send.key,
      { file, ...send.meta },
      () => ctx.io.now(),
      `${Journal.pathFor(state, send.key)}.lock`,
    );
  } catch (error) {
    for (const release of shared) await release();
    throw error;
  }
  const resultsPath = opts.results ?? defaultResultsPath(send.file);
  let run: RunResult | undefined;
  let started = false;
  let stopRequested = false;
  const offSignal = ctx.io.onSignal(() => {
    stopRequested = true;
    // A second Ctrl-C gets the default action: the process ends at once.
    offSignal();
    shown.line('stopping after the request in flight; Ctrl-C again quits now (that row is then uncertain)');
  });
  let ledger: Ledger;
  try {
    // With a PostgreSQL store the ledger is there too (under the destination's shared lock).
    ledger = await ((takeShared && (await sharedLedgers(ctx))) || fileLedgers(state)).open(destination);
  } catch (error) {
    await journal.close();
    for (const release of shared) await release();
    throw error;
  }
  let ledgerSkipped = new Map<number, string>();
  try {
    const plan = planSend(send.rows, journal.states, flags);
    // Never twice: a person reached through this destination within the window, from any file, is skipped.
    ledgerSkipped = ledgerSkips(send.rows, (who) => ledger.lastReached(who), journal.states, ctx.io.now(), opts);
    plan.toSend = plan.toSend.filter((n) => !ledgerSkipped.has(n));
    for (const r of send.rows) {
      const at = ledgerSkipped.get(r.row);
      if (at)
        warn(
          `row ${r.row} (line ${r.line}) ${r.who}: skipped: already reached through this destination at ${at} (within --recall-window); --call-again reaches again`,
        );
    }
    if (journal.isNew && edited.length > 0) {
      warn(
        `${send.file} was sent before with other content (${edited.map((e) => e.at).join(', ')}): an edited file is new to the journal; people reached then are skipped by the ledger unless --call-again`,
      );
    }
    if (plan.toSend.length > 0) {
      await confirmSend(
        ctx,
        confirmation(send, plan, opts.rate, flags),
        `${send.words.verb} ${plan.toSend.length} ${plan.toSend.length === 1 ? send.words.one : send.words.many}?`,
        opts.yes,
      );
    }
    started = true;
    const sendOptions = {
      rate: opts.rate,
      ...flags,
      now: () => ctx.io.now(),
      sleep: (ms: number) => ctx.io.sleep(ms),
      stopRequested: () => stopRequested,
      ledger,
    };
    run = await sendRows(send.rows, plan, journal, send.sender, sendOptions, (e) =>
      render(shown, e.type === 'row' ? { ...e, result: advised(e.result) } : e, send.words.one),
    );
  } finally {
    offSignal();
    // Even when the run ended with an error (a signing command failing), the file is complete.
    const results = (run?.results ?? send.rows.map((r) => resultOf(r, journal.states.get(r.row), true))).map((r) => {
      const at = ledgerSkipped.get(r.row);
      return at
        ? {
            ...r,
            outcome: 'skipped' as const,
            error: `already reached through this destination at ${at} (within --recall-window); --call-again reaches again`,
          }
        : advised(r);
    });
    if (run) run.results = results;
    // Each closes even when one before it fails (a journal in a store gone away): locks held by
    // connections would otherwise keep the run from ending.
    try {
      await journal.close();
    } finally {
      try {
        await ledger.close();
      } finally {
        for (const release of shared) await release();
      }
    }
    if (started) writeResults(resultsPath, results, send.columns);
  }
  return report(ctx, send, run!, resultsPath, journal.path, { startedAt, quiet: opts.quiet === true, warn });
}

/**
 * Rows whose person was reached through this destination within the window (row -> when), unless
 * --call-again or a window of 0. Rows this file's journal knows (uncertain, refused) follow the
 * journal's own rules instead.
 */
function ledgerSkips(
  rows: readonly SendRow<unknown>[],
  lastReached: (who: string) => string | undefined,
  known: ReadonlyMap<number, unknown>,
  now: number,
  opts: Pick<CsvSendOptions, 'callAgain' | 'recallWindow'>,
): Map<number, string> {
  const skips = new Map<number, string>();
  const window = opts.recallWindow ?? RECALL_WINDOW_MS;
  if (opts.callAgain || window <= 0) return skips;
  const since = now - window;
  for (const r of rows) {
    const at = lastReached(r.who);
    if (at && Date.parse(at) >= since && !known.has(r.row)) skips.set(r.row, at);
  }
  return skips;
}

function confirmation<B>(
  send: CsvSend<B>,
  plan: SendPlan,
  rate: number,
  flags: { resendUncertain: boolean; retryFailed: boolean },
): string[] {
  const toSend = new Set(plan.toSend);
  return [
    ...send.about,
    `  file             ${send.file} (${plural(plan.total, 'row')})`,
    ...(plan.sentEarlier ? [`  sent earlier     ${plan.sentEarlier} (skipped)`] : []),
    ...(plan.failedEarlier.length
      ? [
          `  refused earlier  ${plan.failedEarlier.length} (${flags.retryFailed ? 'sent again' : 'skipped; --retry-failed sends them again'})`,
        ]
      : []),
    ...(plan.uncertain.length
      ? [
          `  uncertain        ${plan.uncertain.length} (${flags.resendUncertain ? 'SENT AGAIN: they may reach people twice' : 'not sent again'})`,
        ]
      : []),
    `  to send now      ${plan.toSend.length} at ${rate}/s (about ${Math.ceil(plan.toSend.length / rate)} s)`,
    ...send.rows
      .filter((r) => toSend.has(r.row))
      .slice(0, 3)
      .map((r) => `    line ${r.line}: ${r.who}`),
    ...(plan.toSend.length > 3 ? [`    ...and ${plan.toSend.length - 3} more`] : []),
  ];
}

/** An uncertain row's error, with what sends it again (the core names no flag). */
function advised(r: RowResult): RowResult {
  return r.outcome === 'uncertain' ? { ...r, error: `${r.error}; not sent again unless --resend-uncertain` } : r;
}

/** Without a terminal: a line per row, or per second when rows go faster (ms since the last line). */
const PIPED_LINE_MS = 1_000;

/** A row's outcome: a refusal, an uncertain row or a warning always; a sent row as progress. */
function render(shown: Progress, e: SendEvent, one: string): void {
  if (e.type === 'stopped') {
    shown.error(`stopped: ${e.message}`);
    return;
  }
  const r = e.result;
  if (r.outcome !== 'sent' || r.warning) {
    shown.error(
      `row ${r.row} (line ${r.line}) ${r.who}: ${r.outcome}${r.error ? `: ${r.error}` : ''}${r.warning ? `; warning: ${r.warning}` : ''}`,
    );
    shown.due(PIPED_LINE_MS, true);
  } else if (!shown.tty && !shown.quiet && shown.due(PIPED_LINE_MS, e.done === e.of || e.done === 1)) {
    shown.line(`${one}s: ${e.done}/${e.of}, row ${r.row} (line ${r.line}) ${r.who}: sent${r.id ? ` (${r.id})` : ''}`);
  }
  // On a terminal the count is redrawn in place, and left as a line once the last row is done.
  if (shown.tty && e.done === e.of) shown.line(`${one}s: ${e.done}/${e.of}`);
  else shown.draw(`${one}s: ${e.done}/${e.of}`);
}

async function report<B>(
  ctx: Context,
  send: CsvSend<B>,
  run: RunResult,
  resultsPath: string,
  journalPath: string,
  how: { startedAt: number; quiet: boolean; warn: (message: string) => void },
): Promise<number> {
  const t = tally(run.results);
  const thisRun = tally(run.results.filter((r) => !r.earlier));
  const uncertainRows = run.results.filter((r) => r.outcome === 'uncertain').map((r) => r.row);
  const summary = {
    startedAt: new Date(how.startedAt).toISOString(),
    endedAt: new Date(ctx.io.now()).toISOString(),
    file: send.file,
    results: resultsPath,
    journal: journalPath,
    // Every row was checked before anything was sent: an invalid row stops the run (exit 3) first.
    rows: send.rows.length,
    valid: send.rows.length,
    invalid: 0,
    total: run.results.length,
    ...t,
    thisRun: { sent: thisRun.sent, failed: thisRun.failed, uncertain: thisRun.uncertain },
    uncertainRows,
    stopped: run.stopped ?? null,
  } satisfies CsvSendJson;
  const out = await ctx.output();
  if (out.json) out.writeJsonLine(summary);
  else if (!how.quiet) {
    out.record([
      ['total', summary.total],
      ['sent', `${t.sent}${t.sent !== thisRun.sent ? ` (${thisRun.sent} in this run)` : ''}`],
      ['failed', t.failed],
      ['uncertain', t.uncertain],
      ['skipped', t.skipped],
      ['results', summary.results],
    ]);
  }
  if (run.stopped?.reason === 'interrupted') return ExitCode.INTERRUPTED;
  // "Uncertain" is one exit code and one word in every command (as workflow update's uncertain
  // batches): exit 5 with an error line. Their answer was lost to the network, and a re-run is
  // safe: it never sends them again by itself, it sends the rest.
  if (uncertainRows.length > 0) {
    throw new NetworkError(
      `${uncertainRows.length} row${uncertainRows.length === 1 ? '' : 's'} may have reached people without an answer (rows ${uncertainRows.slice(0, 20).join(', ')}${uncertainRows.length > 20 ? ', ...' : ''}); a run again never sends ${uncertainRows.length === 1 ? 'it' : 'them'} by itself, only the rest: check with the service, then --resend-uncertain sends ${uncertainRows.length === 1 ? 'it' : 'them'} again`,
      { uncertainRows, mayHaveBeenSent: true },
    );
  }
  if (run.stopped?.reason === 'network') return ExitCode.NETWORK;
  if (t.failed > 0 || run.stopped) return ExitCode.SERVICE;
  return ExitCode.OK;
}
