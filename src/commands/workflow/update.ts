import { basename, join, resolve } from 'node:path';
import { cacheDir } from '../../files/state.js';
import { cloudDestination, type Destination } from '../../store/destination.js';
import type { StoreFlags } from '../../store/resolve.js';
import { oldStatePolicy } from '../flags/store.js';
import { regionOf } from '../flags/send.js';
import type { Context } from '../../context.js';
import { AuthError, InputError, InterruptedError, UsageError } from '../../errors.js';
import { updateDetailsJson } from '../../api/cloud.js';
import { PreparedUpload, type UploadOutcome } from '../../upload/upload.js';
import { uploadSummary } from '../../upload/summary.js';
import { RejectsFileError } from '../../upload/rejects.js';
import { formatProblem } from '../../csv/problems.js';
import type { WorkflowUpdateJson } from '../../schemas/run-output.js';
import type { Output } from '../../output/output.js';
import { UploadProgress } from './update-progress.js';
import { stopError } from './update-errors.js';
import { Progress } from '../progress.js';
import { plural } from '../../plural.js';
import { said } from '../../said.js';
import { redact } from '../../redact.js';

export interface UpdateOptions extends StoreFlags {
  workflowId: string;
  csv: string;
  delimiter: string;
  keepEmpty?: boolean;
  maxInvalid: number;
  rejects?: string;
  batchSize: number;
  dryRun?: boolean;
  restart?: boolean;
  resendUncertain?: boolean;
  quiet?: boolean;
  yes?: boolean;
  claimOldState?: boolean;
  ignoreOldState?: boolean;
  /** Region of callees written as national numbers (else the profile's `region`). */
  region?: string;
}

/** The `--json` summary (its schema is the help page's shape). */
export type UpdateSummary = WorkflowUpdateJson;

/**
 * `workflow update --workflow-id ID --csv FILE`: checks every row, then sends the valid ones in
 * batches, journaled so that a re-run continues after the last acknowledged batch.
 */
export async function runWorkflowUpdate(ctx: Context, opts: UpdateOptions): Promise<number> {
  const started = ctx.io.now();
  // Run by cron: without a terminal, the final error line carries its time too (src/main.ts).
  ctx.stampLines = 'piped';
  if (!opts.dryRun && !opts.yes && !ctx.canPrompt()) {
    throw new UsageError(
      said`workflow update changes the contacts of a running workflow: without a terminal to confirm on, pass --yes (or --dry-run to only check the file)`,
    );
  }
  if (!opts.workflowId.trim()) throw new UsageError(said`--workflow-id is empty`);
  const path = resolve(ctx.io.cwd, opts.csv);
  const rejectsPath = opts.rejects ? resolve(ctx.io.cwd, opts.rejects) : undefined;
  if (rejectsPath === path) throw new UsageError(said`--rejects names the CSV being uploaded; give another file`);
  const region = await regionOf(ctx, opts);
  const out = await ctx.output();
  const client = opts.dryRun ? undefined : await ctx.client();
  if (client && !client.currentToken && !(await ctx.envCredentials())) {
    throw new AuthError(
      said`not logged in: run \`callctl auth login\`, or set CALLCTL_TOKEN, or CALLCTL_APP_KEY with CALLCTL_APP_SECRET`,
    );
  }
  const destination = await uploadDestination(ctx, opts.dryRun === true);
  const store = await ctx.store(opts);
  const shown = new Progress(ctx.io, { quiet: opts.quiet === true, warn: (m) => out.warn(m), scrub: (t) => redact(t) });
  const progress = new UploadProgress(ctx.io, basename(opts.csv), shown);
  const abort = new AbortController();
  let phase: 'reading' | 'confirming' | 'sending' = 'reading';
  let stopRequested = false;
  const offSignal = ctx.io.onSignal(() => {
    if (phase === 'sending' && !stopRequested)
      shown.line(said`stopping after the batch in flight (it will be journaled)...`);
    stopRequested = true;
    if (phase !== 'sending') abort.abort();
  });

  let upload: PreparedUpload | undefined;
  try {
    try {
      upload = await PreparedUpload.prepare({
        file: opts.csv,
        path,
        workflowId: opts.workflowId,
        store,
        destination,
        oldState: oldStatePolicy(opts),
        spoolDir: join(cacheDir(ctx.io.env), 'spool'),
        delimiter: opts.delimiter,
        keepEmpty: opts.keepEmpty === true,
        region,
        batchSize: opts.batchSize,
        maxInvalid: opts.maxInvalid,
        rejectsPath,
        restart: opts.restart === true,
        resendUncertain: opts.resendUncertain === true,
        sleep: (ms) => ctx.io.sleep(ms),
        dryRun: opts.dryRun === true,
        signal: abort.signal,
        onEvent: progress.onEvent,
      });
    } catch (error) {
      shown.clear();
      if (abort.signal.aborted)
        throw new InterruptedError(said`interrupted while reading ${opts.csv}; nothing was sent`);
      if (error instanceof RejectsFileError)
        throw new UsageError(said`--rejects: cannot write ${opts.rejects}: ${error.reason}`);
      throw error;
    }
    if (stopRequested) throw new InterruptedError(said`interrupted after reading ${opts.csv}; nothing was sent`);
    const u = upload;
    const { validation: v, batching } = u;
    const summary = (status: UpdateSummary['status'], sent?: UploadOutcome, stopped?: unknown): UpdateSummary =>
      uploadSummary(u, { status, startedAt: started, endedAt: ctx.io.now(), sent, stopped });

    // --quiet: problems that stop the upload are errors and shown; skipped ones are not.
    if (v.problems.length > 0 && !(opts.quiet && u.allowed)) listProblems(shown, opts.csv, u, !u.allowed);
    if (!u.allowed) {
      await printSummary(out, opts.quiet === true, summary('invalid'));
      throw invalidError(opts, u);
    }
    if (opts.dryRun) {
      await printSummary(out, opts.quiet === true, summary('dry-run'));
      return 0;
    }
    if (batching.batches.length > 0 && !opts.yes) {
      phase = 'confirming';
      const resumed = batching.resumed.batches > 0 ? `, continuing after line ${batching.resumed.line}` : '';
      const ok = await ctx.io.prompter.confirm(
        `Send ${plural(batching.entries, 'contact')} from ${opts.csv} to workflow ${opts.workflowId} in ${plural(batching.batches.length, 'batch', 'batches')}${resumed}?`,
        false,
      );
      if (!ok) throw new InterruptedError(said`cancelled; nothing was sent`);
    }
    if (stopRequested) throw new InterruptedError(said`interrupted; nothing was sent`);
    phase = 'sending';
    // Never retried by the transport once the body may have gone out: the uploader decides (and says so).
    const outcome = await u.send((details) => updateDetailsJson(client!, opts.workflowId, details), {
      shouldStop: () => stopRequested,
    });
    shown.clear();
    const stopped = outcome.stop && stopError(outcome.stop);
    const status = stopped ? 'failed' : outcome.interrupted ? 'interrupted' : 'done';
    await printSummary(out, opts.quiet === true, summary(status, outcome, stopped));
    if (stopped) throw stopped;
    if (outcome.interrupted) {
      const acked = batching.resumed.batches + outcome.batchesSent;
      throw new InterruptedError(
        said`interrupted: ${acked} of ${plural(batching.totalBatches, 'batch', 'batches')} are acknowledged and journaled; run the same command again to send the rest`,
      );
    }
    if (batching.batches.length === 0 && !opts.quiet)
      out.info(
        said`nothing to send: every valid row of ${opts.csv} was already acknowledged (--restart sends them again)`,
      );
    return 0;
  } finally {
    offSignal();
    shown.clear();
    await upload?.close();
  }
}

/**
 * Where the contacts go: the service (base URL) and the account (APPKey), which key the upload's
 * journal. A dry run without them plans the file as a first upload.
 */
async function uploadDestination(ctx: Context, dryRun: boolean): Promise<Destination | undefined> {
  const settings = await ctx.settings();
  const appKey = settings.get('app-key');
  const baseUrl = settings.get('base-url');
  if (baseUrl && appKey) return cloudDestination(await ctx.baseUrl(), appKey);
  if (dryRun) return undefined;
  if (!baseUrl) await ctx.baseUrl(); // its own usage error, naming --base-url
  throw new UsageError(
    said`workflow update keeps its journal per service and account, and the account (APPKey) is not known: set CALLCTL_APP_KEY or \`callctl config set app-key KEY\` (auth login records it)`,
  );
}

function listProblems(shown: Progress, file: string, u: PreparedUpload, blocking: boolean): void {
  const v = u.validation;
  if (!blocking)
    shown.warning(said`skipping ${plural(v.invalid, 'invalid row')} (--max-invalid ${u.options.maxInvalid}):`);
  shown.problems(
    v.problems,
    v.problemCount,
    file,
    u.options.rejectsPath
      ? ` (every rejected row is in ${u.options.rejectsPath})`
      : ' (--rejects FILE writes every rejected row)',
  );
}

function invalidError(opts: UpdateOptions, u: PreparedUpload): InputError {
  const v = u.validation;
  if (v.valid === 0 && v.invalid <= opts.maxInvalid)
    return new InputError(said`${opts.csv}: no valid rows; nothing was sent`, { invalid: v.invalid });
  const first = v.problems[0];
  const limit =
    opts.maxInvalid > 0 ? `more than --max-invalid ${opts.maxInvalid}` : 'use --max-invalid N to skip up to N of them';
  return new InputError(
    said`${opts.csv}: ${plural(v.invalid, 'invalid row')} (first: ${first ? formatProblem(first) : '?'}); nothing was sent (${limit})`,
    { invalid: v.invalid, ...(first ? { line: first.line, column: first.column } : {}) },
  );
}

async function printSummary(out: Output, quiet: boolean, s: UpdateSummary): Promise<void> {
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
