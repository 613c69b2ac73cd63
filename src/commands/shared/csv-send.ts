import { ExitCode, NetworkError } from '../../errors.js';
import type { Context } from '../../context.js';
import { redact } from '../../redact.js';
import { tally, type SendEvent, type RowSelection, type RunResult, type RowResult } from '../../reach/rows.js';
import type { PreparedRequest } from '../../api/deliver.js';
import { defaultResultsPath, writeResults } from '../../reach/results.js';
import { peekSend, PreparedSend, REACHED_BEFORE, type SendRules, type SendWork } from '../../reach/send-run.js';
import type { StoreFlags } from '../../store/resolve.js';
import { confirmSend, printDryRun, sendRules } from './send-ui.js';
import { Progress } from './progress.js';
import { plural } from '../../plural.js';
import type { CsvSendJson } from '../../schemas/run-output.js';
import { said } from '../../said.js';

export interface CsvSendOptions extends StoreFlags {
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
  claimOldState?: boolean;
  ignoreOldState?: boolean;
}

export interface CsvSend<B> extends SendWork<B> {
  /** The file as the user named it (for messages and the results file). */
  shownFile: string;
  /** The request a dry run shows (no external signing command is run). */
  preview(row: SendWork<B>['rows'][number]): Promise<PreparedRequest>;
  /** `{one: 'call', many: 'calls', verb: 'Place'}` */
  words: { one: string; many: string; verb: string };
  columns: { who: string; id: string };
  /** Confirmation lines shared by every row (endpoint, template...). */
  about: string[];
}

const reachedAgain = (at: string) => `${REACHED_BEFORE} at ${at} (within --recall-window); --call-again reaches again`;

/**
 * Runs a validated CSV send at the edge: confirmation, dry run, progress on stderr, the results
 * file, the summary and the exit code. The engine (src/reach/send-run.ts) holds the journal,
 * the ledger and the locks of the run's Store.
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
  const store = await ctx.store(opts);
  const rules = sendRules(ctx, opts);
  if (opts.dryRun) {
    const { selection, skipped } = await peekSend(store, send, rules);
    const byRow = new Map(send.rows.map((r) => [r.row, r]));
    const requests = await Promise.all(selection.toSend.map((n) => send.preview(byRow.get(n)!)));
    for (const s of skipped)
      warn(`row ${s.row} (line ${s.line}) ${s.who}: would be skipped: ${reachedAgain(s.reachedAt)}`);
    await printDryRun(
      ctx,
      requests,
      `${selection.toSend.length} of ${plural(selection.total, 'row')} would be sent${selection.uncertain.length ? `, ${selection.uncertain.length} uncertain from an earlier run would not` : ''}${skipped.length ? `, ${skipped.length} already reached through this destination would be skipped` : ''}`,
      { skipped },
    );
    return ExitCode.OK;
  }
  const prepared = await PreparedSend.open(store, send, rules);
  const resultsPath = opts.results ?? defaultResultsPath(send.shownFile);
  let run: RunResult | undefined;
  let started = false;
  let stopRequested = false;
  const offSignal = ctx.io.onSignal(() => {
    stopRequested = true;
    // A second Ctrl-C gets the default action: the process ends at once.
    offSignal();
    shown.line(said`stopping after the request in flight; Ctrl-C again quits now (that row is then uncertain)`);
  });
  try {
    const { selection } = prepared;
    for (const s of prepared.skipped)
      warn(`row ${s.row} (line ${s.line}) ${s.who}: skipped: ${reachedAgain(s.reachedAt)}`);
    if (prepared.isNew && prepared.edited.length > 0) {
      warn(
        `${send.shownFile} was sent before with other content (${prepared.edited.map((e) => e.at).join(', ')}): an edited file is new to the journal; people reached then are skipped by the ledger unless --call-again`,
      );
    }
    if (selection.toSend.length > 0) {
      await confirmSend(
        ctx,
        confirmation(send, selection, opts.rate, rules),
        `${send.words.verb} ${selection.toSend.length} ${selection.toSend.length === 1 ? send.words.one : send.words.many}?`,
        opts.yes,
      );
    }
    started = true;
    const control = {
      rate: opts.rate,
      now: () => ctx.io.now(),
      sleep: (ms: number) => ctx.io.sleep(ms),
      stopRequested: () => stopRequested,
    };
    run = await prepared.send(control, rules, (e) =>
      render(shown, e.type === 'row' ? { ...e, result: advised(e.result) } : e, send.words.one),
    );
  } finally {
    offSignal();
    // Even when the run ended with an error (a signing command failing), the file is complete.
    const results = prepared
      .results(run)
      .map((r) =>
        r.error?.startsWith(REACHED_BEFORE)
          ? { ...r, error: `${r.error} (within --recall-window); --call-again reaches again` }
          : advised(r),
      );
    if (run) run.results = results;
    await prepared.close();
    if (started) writeResults(resultsPath, results, send.columns);
  }
  return report(ctx, send, run!, resultsPath, prepared.journalPath, { startedAt, quiet: opts.quiet === true, warn });
}

function confirmation<B>(
  send: CsvSend<B>,
  selection: RowSelection,
  rate: number,
  flags: Pick<SendRules, 'resendUncertain' | 'retryFailed'>,
): string[] {
  const toSend = new Set(selection.toSend);
  return [
    ...send.about,
    `  file             ${send.shownFile} (${plural(selection.total, 'row')})`,
    ...(selection.sentEarlier ? [`  sent earlier     ${selection.sentEarlier} (skipped)`] : []),
    ...(selection.failedEarlier.length
      ? [
          `  refused earlier  ${selection.failedEarlier.length} (${flags.retryFailed ? 'sent again' : 'skipped; --retry-failed sends them again'})`,
        ]
      : []),
    ...(selection.uncertain.length
      ? [
          `  uncertain        ${selection.uncertain.length} (${flags.resendUncertain ? 'SENT AGAIN: they may reach people twice' : 'not sent again'})`,
        ]
      : []),
    `  to send now      ${selection.toSend.length} at ${rate}/s (about ${Math.ceil(selection.toSend.length / rate)} s)`,
    ...send.rows
      .filter((r) => toSend.has(r.row))
      .slice(0, 3)
      .map((r) => `    line ${r.line}: ${r.who}`),
    ...(selection.toSend.length > 3 ? [`    ...and ${selection.toSend.length - 3} more`] : []),
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
    shown.error(said`stopped: ${e.message}`);
    return;
  }
  const r = e.result;
  if (r.outcome !== 'sent' || r.warning) {
    shown.error(
      said`row ${r.row} (line ${r.line}) ${r.who}: ${r.outcome}${r.error ? `: ${r.error}` : ''}${r.warning ? `; warning: ${r.warning}` : ''}`,
    );
    shown.due(PIPED_LINE_MS, true);
  } else if (!shown.tty && !shown.quiet && shown.due(PIPED_LINE_MS, e.done === e.of || e.done === 1)) {
    shown.line(
      said`${one}s: ${e.done}/${e.of}, row ${r.row} (line ${r.line}) ${r.who}: sent${r.id ? ` (${r.id})` : ''}`,
    );
  }
  // On a terminal the count is redrawn in place, and left as a line once the last row is done.
  if (shown.tty && e.done === e.of) shown.line(said`${one}s: ${e.done}/${e.of}`);
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
    file: send.shownFile,
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
      said`${uncertainRows.length} row${uncertainRows.length === 1 ? '' : 's'} may have reached people without an answer (rows ${uncertainRows.slice(0, 20).join(', ')}${uncertainRows.length > 20 ? ', ...' : ''}); a run again never sends ${uncertainRows.length === 1 ? 'it' : 'them'} by itself, only the rest: check with the service, then --resend-uncertain sends ${uncertainRows.length === 1 ? 'it' : 'them'} again`,
      { uncertainRows, mayHaveBeenSent: true },
    );
  }
  if (run.stopped?.reason === 'network') return ExitCode.NETWORK;
  if (t.failed > 0 || run.stopped) return ExitCode.SERVICE;
  return ExitCode.OK;
}
