import { basename } from 'node:path';
import type { Context } from '../../context.js';
import {
  CliError,
  InputError,
  InterruptedError,
  NetworkError,
  ServiceError,
  ServiceUnavailableError,
  UsageError,
} from '../../errors.js';
import { formatProblem } from '../../csv/problems.js';
import type { Output } from '../../output/output.js';
import { plural } from '../../plural.js';
import { redact } from '../../redact.js';
import { said } from '../../said.js';
import type { WorkflowUpdateJson } from '../../schemas/run-output.js';
import type { StoreFlags } from '../../store/resolve.js';
import type { Batch } from '../../store/upload-journal.js';
import type {
  Batching,
  Sent,
  UploadEvent,
  UploadOutcome,
  UploadPlan,
  UploadReport,
  UploadStop,
} from '../../upload/events.js';
import { RejectsFileError } from '../../upload/rejects.js';
import { count, duration, Progress, rate } from '../progress.js';

/**
 * An upload's plan, with what the command shows of its run (`--quiet`, `--yes`, `--rejects` as
 * given) and the store its flags name.
 */
export type UpdatePlan = UploadPlan & { quiet: boolean; yes: boolean; rejects?: string; store: StoreFlags };

/**
 * What `workflow update` shows of the upload's run, on stderr through the one progress renderer
 * (src/commands/progress.ts): on a terminal one status line redrawn in place (rows read, valid,
 * batches sent, rows per second, ETA); otherwise (cron) one line after the check and one per
 * batch. Also the confirmation, and Ctrl-C: the first aborts the run's signal (the engine
 * finishes the batch in flight and stops).
 */
export async function uploadScreen(ctx: Context, plan: UpdatePlan) {
  const out = await ctx.output();
  const shown = new Progress(ctx.io, { quiet: plan.quiet, warn: (m) => out.warn(m), scrub: (t) => redact(t) });
  const file = basename(plan.file);
  const readStarted = ctx.io.now();
  let sendStarted: number | undefined;
  let sending = false;
  const abort = new AbortController();
  const offSignal = ctx.io.onSignal(() => {
    if (sending && !abort.signal.aborted)
      shown.line(said`stopping after the batch in flight (it will be journaled)...`);
    abort.abort();
  });
  const onEvent = (e: UploadEvent): void => {
    if (e.type === 'send') sending = true;
    if (!shown.quiet) told(e);
    // --quiet: problems that stop the upload are errors and shown; skipped ones are not.
    if (e.type === 'validated' && e.validation.problems.length > 0 && !(plan.quiet && e.allowed))
      listProblems(shown, plan, e.validation, !e.allowed);
  };
  const told = (e: UploadEvent): void => {
    switch (e.type) {
      case 'stale-lock':
        shown.warning(said`took over the lock of an earlier run that is gone (pid ${e.pid})`);
        break;
      case 'resume':
        shown.line(
          e.doneAt
            ? said`this file was already uploaded to this workflow (${plural(e.entries, 'entry', 'entries')}, completed ${e.doneAt})`
            : said`continuing an earlier run: ${plural(e.batches, 'batch', 'batches')} (${plural(e.entries, 'entry', 'entries')}, up to line ${e.line}) already accepted`,
        );
        break;
      case 'earlier-upload':
        shown.warning(
          said`an upload of an earlier version of ${file} to this workflow stopped at ${e.at || e.startedAt} after ${plural(e.batches, 'batch', 'batches')} (${plural(e.entries, 'entry', 'entries')}, up to line ${e.line}); this file is new content and is uploaded from its first row (journal ${e.journal})`,
        );
        break;
      case 'resend-uncertain':
        shown.warning(
          said`sending again batch ${e.batch.index} (lines ${e.batch.firstLine}-${e.batch.lastLine}), which an earlier run sent with no answer: ${
            e.reason === 'caseid'
              ? 'every entry carries caseid, so the service does not duplicate it'
              : '--resend-uncertain'
          }`,
        );
        break;
      case 'uncertain-kept':
        shown.warning(
          said`not sending batch ${e.batch.index} (lines ${e.batch.firstLine}-${e.batch.lastLine}) again: an earlier run sent it at ${e.batch.at} with no answer (${e.batch.error}); --resend-uncertain sends it`,
        );
        break;
      case 'retry-uncertain':
        shown.warning(
          said`batch ${e.batch.index} (lines ${e.batch.firstLine}-${e.batch.lastLine}): ${e.error}; it may have reached the service, but every entry carries caseid, so it is sent again (${e.attempt} of ${e.of}) in ${(e.waitMs / 1000).toFixed(1)} s`,
        );
        break;
      case 'count-differs':
        shown.warning(
          said`batch ${e.batch.index} (lines ${e.batch.firstLine}-${e.batch.lastLine}): accepted; the service counted ${plural(e.count, 'entry', 'entries')} of the ${e.batch.count} sent (what it counts is not said; nothing is sent again)`,
        );
        break;
      case 'other-workflow':
        shown.warning(said`batch ${e.batch.index}: accepted, but the answer names workflow ${e.workflowId}`);
        break;
      case 'read': {
        if (!shown.tty) break;
        const seconds = (ctx.io.now() - readStarted) / 1000;
        const done = e.totalBytes > 0 ? e.bytes / e.totalBytes : 0;
        const eta = done > 0 && done < 1 ? `, ETA ${duration((seconds / done) * (1 - done))}` : '';
        shown.draw(
          `checking ${file} ${Math.floor(done * 100)}%: ${plural(e.rows, 'row')}, ${count(e.valid)} valid, ${count(e.invalid)} invalid, ${rate(e.rows, seconds)}${eta}`,
        );
        break;
      }
      case 'validated': {
        const v = e.validation;
        const seconds = (ctx.io.now() - readStarted) / 1000;
        shown.line(
          said`checked ${file}: ${plural(v.rows, 'row')}, ${count(v.valid)} valid, ${count(v.invalid)} invalid (${seconds.toFixed(1)} s)`,
        );
        break;
      }
      case 'sending':
        if (sendStarted === undefined) {
          sendStarted = ctx.io.now();
          shown.draw(`sending: batch ${e.batch.index}/${e.total}...`, true);
        }
        break;
      case 'sent': {
        const seconds = (ctx.io.now() - (sendStarted ?? ctx.io.now())) / 1000;
        const perSecond = seconds > 0 ? e.entriesSent / seconds : 0;
        const left = perSecond > 0 ? (e.entriesToSend - e.entriesSent) / perSecond : 0;
        const b = e.batch;
        if (shown.tty) {
          shown.draw(
            `sending: batch ${b.index}/${e.total}, ${count(e.entriesSent)}/${plural(e.entriesToSend, 'entry', 'entries')}, ${rate(e.entriesSent, seconds)}, ETA ${duration(left)}`,
            true,
          );
        } else {
          shown.line(
            said`batch ${b.index}/${e.total} sent: lines ${b.firstLine}-${b.lastLine}, ${plural(b.count, 'entry', 'entries')} accepted, service count ${e.acked} (${e.entriesSent}/${e.entriesToSend} this run, ${rate(e.entriesSent, seconds)})`,
          );
        }
        break;
      }
      default:
        break;
    }
  };
  return {
    signal: abort.signal,
    onEvent,
    confirm: async ({ entries, batches, resumed }: Batching) =>
      plan.yes ||
      ctx.io.prompter.confirm(
        `Send ${plural(entries, 'contact')} from ${plan.file} to workflow ${plan.workflowId} in ${plural(batches.length, 'batch', 'batches')}${resumed.batches > 0 ? `, continuing after line ${resumed.line}` : ''}?`,
        false,
      ),
    failed(error: unknown): never {
      shown.clear();
      if (error instanceof RejectsFileError)
        throw new UsageError(said`--rejects: cannot write ${plan.rejects}: ${error.reason}`);
      throw error;
    },
    stop() {
      offSignal();
      shown.clear();
    },
  };
}

/** The end of the run: its summary (--json: one line), and its error (and so its exit code), if any. */
export async function toldOutcome(
  ctx: Context,
  plan: UpdatePlan,
  outcome: UploadOutcome,
  startedAt: number,
): Promise<number> {
  if (outcome.kind === 'declined') throw new InterruptedError(said`cancelled; nothing was sent`);
  if (outcome.kind === 'stopped') {
    if (outcome.when === 'reading')
      throw new InterruptedError(said`interrupted while reading ${plan.file}; nothing was sent`);
    if (outcome.when === 'read')
      throw new InterruptedError(said`interrupted after reading ${plan.file}; nothing was sent`);
    throw new InterruptedError(said`interrupted; nothing was sent`);
  }
  const out = await ctx.output();
  const { report } = outcome;
  const summary = (status: WorkflowUpdateJson['status'], sent?: Sent, stopped?: unknown) =>
    uploadSummary(plan, report, { status, startedAt, endedAt: ctx.io.now(), sent, stopped });
  if (outcome.kind === 'checked') {
    await printSummary(out, plan.quiet, summary(report.allowed ? 'dry-run' : 'invalid'));
    if (!report.allowed) throw invalidError(plan, report);
    return 0;
  }
  const { sent } = outcome;
  const { batching } = report;
  const stopped = sent.stop && stopError(sent.stop);
  const status = stopped ? 'failed' : sent.interrupted ? 'interrupted' : 'done';
  await printSummary(out, plan.quiet, summary(status, sent, stopped));
  if (stopped) throw stopped;
  if (sent.interrupted) {
    const acked = batching.resumed.batches + sent.batchesSent;
    throw new InterruptedError(
      said`interrupted: ${acked} of ${plural(batching.totalBatches, 'batch', 'batches')} are acknowledged and journaled; run the same command again to send the rest`,
    );
  }
  if (batching.batches.length === 0 && !plan.quiet)
    out.info(
      said`nothing to send: every valid row of ${plan.file} was already acknowledged (--restart sends them again)`,
    );
  return 0;
}

function listProblems(shown: Progress, plan: UploadPlan, v: UploadReport['validation'], blocking: boolean): void {
  if (!blocking) shown.warning(said`skipping ${plural(v.invalid, 'invalid row')} (--max-invalid ${plan.maxInvalid}):`);
  shown.problems(
    v.problems,
    v.problemCount,
    plan.file,
    plan.rejectsPath
      ? ` (every rejected row is in ${plan.rejectsPath})`
      : ' (--rejects FILE writes every rejected row)',
  );
}

function invalidError(plan: UploadPlan, { validation: v }: UploadReport): InputError {
  if (v.valid === 0 && v.invalid <= plan.maxInvalid)
    return new InputError(said`${plan.file}: no valid rows; nothing was sent`, { invalid: v.invalid });
  const first = v.problems[0];
  const limit =
    plan.maxInvalid > 0 ? `more than --max-invalid ${plan.maxInvalid}` : 'use --max-invalid N to skip up to N of them';
  return new InputError(
    said`${plan.file}: ${plural(v.invalid, 'invalid row')} (first: ${first ? formatProblem(first) : '?'}); nothing was sent (${limit})`,
    { invalid: v.invalid, ...(first ? { line: first.line, column: first.column } : {}) },
  );
}

async function printSummary(out: Output, quiet: boolean, s: WorkflowUpdateJson): Promise<void> {
  // One line: a cron job appends it to a log that stays one record per night.
  if (out.json) return out.writeJsonLine(s satisfies WorkflowUpdateJson);
  if (quiet) return;
  if (s.batches && s.batches.length > 0) {
    out.heading('Batches it would send');
    await out.list(s.batches, [
      { header: 'BATCH', value: (b) => b.index },
      { header: 'FIRST LINE', value: (b) => b.firstLine },
      { header: 'LAST LINE', value: (b) => b.lastLine },
      { header: 'ENTRIES', value: (b) => b.count },
    ]);
  }
  const seconds = s.durationMs / 1000;
  const earlier = s.batchesResumed > 0 ? ` (${s.batchesResumed} acknowledged by an earlier run)` : '';
  const batches: [string, unknown] =
    s.status === 'dry-run'
      ? ['batches to send', `${s.batchesTotal - s.batchesResumed}${earlier}`]
      : ['batches sent', `${s.batchesSent} of ${s.batchesTotal}${earlier}`];
  out.heading('Upload summary');
  out.record([
    ['status', s.status],
    ['workflow', s.workflowId],
    ['file', s.file],
    ['rows read', s.rowsRead],
    ['valid', s.valid],
    ['invalid', s.invalid],
    ['skipped', s.skipped],
    batches,
    ['entries acknowledged', s.entriesAcknowledged],
    ...(s.status === 'dry-run' ? [] : ([['service count', s.serviceCount]] as const)),
    ...(s.uncertain.length > 0
      ? ([['uncertain', s.uncertain.map((b) => `lines ${b.firstLine}-${b.lastLine}`).join(', ')]] as const)
      : []),
    ['duration', `${seconds.toFixed(1)} s (${Math.round(s.rowsRead / Math.max(seconds, 0.001))} rows/s)`],
    ...(s.rejects ? ([['rejects', s.rejects]] as const) : []),
  ]);
}

/** The summary of an upload run: `workflow update`'s `--json` line (its type: src/schemas/run-output.ts). */
function uploadSummary(
  plan: UploadPlan,
  report: UploadReport,
  run: { status: WorkflowUpdateJson['status']; startedAt: number; endedAt: number; sent?: Sent; stopped?: unknown },
): WorkflowUpdateJson {
  const { validation: v, batching, earlier } = report;
  const { sent, stopped } = run;
  const { dryRun } = plan;
  return {
    status: run.status,
    startedAt: new Date(run.startedAt).toISOString(),
    endedAt: new Date(run.endedAt).toISOString(),
    workflowId: plan.workflowId,
    file: plan.path,
    sha256: report.sha256,
    rowsRead: v.rows,
    valid: v.valid,
    invalid: v.invalid,
    skipped: report.allowed ? v.invalid : 0,
    batchSize: batching.batchSize,
    batchesTotal: batching.totalBatches,
    batchesSent: sent?.batchesSent ?? 0,
    batchesResumed: batching.resumed.batches,
    entriesAcknowledged: sent?.entriesAcked ?? 0,
    sent: sent?.entriesAcked ?? 0,
    entriesResumed: batching.resumed.entries,
    serviceCount: sent?.serviceCount ?? 0,
    uncertain: (sent?.uncertain ?? batching.uncertain).map((b) => ({
      batch: b.index,
      firstLine: b.firstLine,
      lastLine: b.lastLine,
      entries: b.count,
    })),
    earlierUpload: earlier ?? null,
    durationMs: Math.round(run.endedAt - run.startedAt),
    journal: dryRun ? null : report.journal,
    rejects: plan.rejectsPath ?? null,
    problems: v.problems,
    problemCount: v.problemCount,
    ...(dryRun
      ? {
          batches: batching.batches.map(({ index, firstLine, lastLine, count }) => ({
            index,
            firstLine,
            lastLine,
            count,
          })),
        }
      : {}),
    error: stopped ? String((stopped as Error).message ?? stopped) : null,
  };
}

/**
 * The error an upload that stopped ends with: what stopped it, where (batch and lines), how far
 * it got, and what to do, flags named. A failure that may pass by itself is a NetworkError (exit
 * 5, "run again"); one that will recur keeps its own class and says what to fix.
 */
function stopError(stop: UploadStop): unknown {
  if (stop.kind === 'uncertain') return uncertainError(stop.batches, stop.totalBatches, stop.why);
  let { error } = stop;
  const { batch, ackedBatches, ackedEntries, totalBatches } = stop;
  const done =
    ackedBatches === 0
      ? said`no batch was acknowledged`
      : said`${ackedBatches === 1 ? said`batch 1` : said`batches 1-${ackedBatches}`} (${plural(ackedEntries, 'entry', 'entries')}) ${ackedBatches === 1 ? said`is` : said`are`} acknowledged and journaled`;
  const prefix = said`batch ${batch.index} of ${totalBatches} (lines ${batch.firstLine}-${batch.lastLine}) failed: `;
  const suffix = transient(error)
    ? said`; ${done}; run the same command again to send the rest`
    : said`; ${done}; the service will refuse it again until this is fixed (the workflow id and its state, or the rows named)`;
  // A 5xx or 429 refusal may pass by itself: exit 5 ("run again"), as README's exit codes say.
  if (error instanceof ServiceError && transient(error)) error = new NetworkError(error.said, { ...error.details });
  if (error instanceof CliError) {
    error.amend(said`${prefix}${error}${suffix}`);
    Object.assign(error.details, {
      batch: batch.index,
      firstLine: batch.firstLine,
      lastLine: batch.lastLine,
      acknowledgedBatches: ackedBatches,
      runAgain: transient(error),
    });
  }
  return error;
}

/** A failure that may pass by itself (network, timeout, 429, 5xx): "run again" is the advice. */
function transient(error: unknown): boolean {
  if (error instanceof NetworkError || error instanceof ServiceUnavailableError) return true;
  if (error instanceof ServiceError) {
    const s = error.httpStatus !== 200 ? error.httpStatus : (error.serviceCode ?? 0);
    return s === 408 || s === 429 || s >= 500;
  }
  return false;
}

/** The run stops on uncertain batches: their lines, and what to do (exit 5). */
function uncertainError(batches: readonly Batch[], total: number, why?: string): NetworkError {
  const lines = batches
    .map(
      (b) =>
        `batch ${b.index} of ${total} (lines ${b.firstLine}-${b.lastLine}, ${b.count} ${b.count === 1 ? 'entry' : 'entries'})`,
    )
    .join(', ');
  const verb = batches.length === 1 ? 'it is' : 'they are';
  return new NetworkError(
    said`${lines} may have reached the service with no answer${why ? ` (${why})` : ''}; ${verb} not sent again by itself, as a second copy of rows without caseid would duplicate contacts: check the workflow, then run again with --resend-uncertain to send those lines (a run without it sends only the rest)`,
    {
      uncertain: batches.map((b) => ({
        batch: b.index,
        firstLine: b.firstLine,
        lastLine: b.lastLine,
        entries: b.count,
      })),
    },
  );
}
