import { ExitCode, InterruptedError, NetworkError, UsageError } from '../errors.js';
import { said, type Said } from '../said.js';
import type { Context } from '../context.js';
import { redact, redactHeader } from '../redact.js';
import type { Delivery, PreparedRequest } from '../api/deliver.js';
import { USER_AGENT } from '../version.js';
import { requestHeaders } from '../api/transport.js';
import { plural } from '../plural.js';
import { tally, type RowSelection, type SendRow } from '../reach/rows.js';
import type { SendEvent, SendOutcome, SendRules } from '../reach/send.js';
import type { FileView, ShownPlan } from './flags/send.js';
import type { CsvSendJson, SendDryRunJson, SendSkippedJson } from '../schemas/run-output.js';
import { Progress } from './progress.js';

/**
 * How push and template send show a send (the engine, src/reach/send.ts, is silent): the
 * confirmation, progress and warnings on stderr, Ctrl-C, a dry run's requests, the summary and
 * the exit code.
 */

/** Without a terminal: a line per row, or per second when rows go faster (ms since the last line). */
const PIPED_LINE_MS = 1_000;

/** What push and template send say about their send, and how a single one ends. */
interface SendWords {
  /** What one send is: `call`, `message`. */
  one: string;
  question(n: number): string;
  /** A single send's confirmation lines. */
  summary(): string[];
  /** The end of a single send's dry run ("the call to X was not placed"). */
  notSent: string;
  /** The error a single send ends with when the service did not take it. */
  failed(d: Exclude<Delivery, { outcome: 'sent' }>, sentAt: number): Error;
  /** A single send's answer, as a record (`scrub` redacts a text from the service) and a success line. */
  record(d: Sent, scrub: (text: string) => string): Array<[string, unknown]>;
  success(d: Sent): Said;
}

type Sent = Extract<Delivery, { outcome: 'sent' }>;

/**
 * Runs a send (push and template send, one or a CSV file's rows) through the engine, once, lending
 * it the run's screen: the confirmation (on a terminal; without one, `--yes` is required),
 * progress and warnings on stderr, and the stop signal (the first Ctrl-C of a CSV send; a second
 * ends the process, as a Ctrl-C ends a single send: the person is then uncertain). Then tells
 * the outcome, and returns its exit code (declining throws: exit 130, nothing sent).
 */
export async function runSend<B>(ctx: Context, plan: ShownPlan<B>, how: SendWords): Promise<number> {
  const startedAt = ctx.io.now();
  const store = await ctx.store(plan.store);
  const out = await ctx.output();
  // Without a terminal (cron) every line starts with its time; --quiet keeps only the errors.
  const shown = new Progress(ctx.io, {
    quiet: plan.quiet === true,
    warn: (m) => out.warn(m),
    scrub: (t) => redact(t, [...ctx.secrets]),
  });
  const abort = new AbortController();
  const offSignal = plan.file
    ? ctx.io.onSignal(() => {
        abort.abort();
        // A second Ctrl-C gets the default action: the process ends at once.
        offSignal();
        shown.line(said`stopping after the request in flight; Ctrl-C again quits now (that row is then uncertain)`);
      })
    : () => {};
  const confirm = async (selection: RowSelection) => {
    if (plan.yes) return true;
    if (!ctx.canPrompt())
      throw new UsageError(
        said`this reaches real people: confirm with --yes (there is no terminal to ask on), or look first with --dry-run`,
      );
    const lines = plan.file ? fileConfirmation(plan.file, plan.rows, selection, plan.rules) : how.summary();
    for (const line of lines) ctx.io.stderr.write(`${line}\n`);
    return ctx.io.prompter.confirm(how.question(selection.toSend.length), false);
  };
  const { send } = await import('../reach/send.js');
  const outcome = await send(plan, {
    store,
    confirm,
    onEvent: (e) =>
      e.type === 'edited'
        ? shown.warning(
            said`${plan.file?.shown} was sent before with other content (${e.at.join(', ')}): an edited file is new to the journal; people reached then are skipped by the ledger unless --call-again`,
          )
        : render(shown, e, how.one),
    signal: abort.signal,
    now: () => ctx.io.now(),
    sleep: (ms) => ctx.io.sleep(ms),
  }).finally(offSignal);
  switch (outcome.kind) {
    case 'declined':
      throw new InterruptedError(said`declined: nothing was sent`);
    case 'ran':
      return reportFile(ctx, plan.file!, outcome, { startedAt, rows: plan.rows.length, quiet: plan.quiet });
    case 'skipped':
      return printSkipped(ctx, plan.rows[0]!.who, plan.destination, outcome.reachedAt, plan.dryRun);
    case 'dry-run':
      if (plan.file) await printFileDryRun(ctx, outcome);
      else await printDryRun(ctx, outcome.requests, how.notSent);
      return 0;
  }
  const d = outcome.delivery;
  if (d.outcome !== 'sent') throw how.failed(d, outcome.sentAt);
  if (d.warning && !plan.quiet) out.warn(redact(`${outcome.request.endpoint}: ${d.warning}`, [...ctx.secrets]));
  if (out.json) out.writeJson(d.answer);
  else if (!plan.quiet) {
    out.record(how.record(d, (text) => redact(text, [...ctx.secrets])));
    out.success(how.success(d));
  }
  return 0;
}

/** A row's outcome: a refusal, an uncertain row or a warning always; a sent row as progress. */
function render(shown: Progress, e: Exclude<SendEvent, { type: 'edited' }>, one: string): void {
  if (e.type === 'skipped') {
    const s = e.skip;
    shown.warning(
      said`row ${s.row} (line ${s.line}) ${s.who}: ${e.dryRun ? 'would be skipped' : 'skipped'}: ${e.reason}`,
    );
    return;
  }
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

/** Aligned `key  value` lines for a confirmation summary. */
export function summaryLines(title: string, pairs: ReadonlyArray<readonly [string, unknown]>): string[] {
  const shown = pairs.filter(([, v]) => v !== undefined && v !== '');
  const width = Math.max(...shown.map(([k]) => k.length));
  return [title, ...shown.map(([k, v]) => `  ${k.padEnd(width)}  ${typeof v === 'string' ? v : JSON.stringify(v)}`)];
}

/** A CSV send's confirmation: the file, what earlier runs left, and the first rows to send. */
function fileConfirmation(
  view: FileView,
  rows: readonly SendRow<unknown>[],
  selection: RowSelection,
  flags: SendRules,
): string[] {
  const toSend = new Set(selection.toSend);
  return [
    ...view.about,
    `  file             ${view.shown} (${plural(selection.total, 'row')})`,
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
    `  to send now      ${selection.toSend.length} at ${flags.rate}/s (about ${Math.ceil(selection.toSend.length / flags.rate)} s)`,
    ...rows
      .filter((r) => toSend.has(r.row))
      .slice(0, 3)
      .map((r) => `    line ${r.line}: ${r.who}`),
    ...(selection.toSend.length > 3 ? [`    ...and ${selection.toSend.length - 3} more`] : []),
  ];
}

/**
 * Prints the requests a dry run would send: the request line and headers, then each body as sent,
 * one a line; or JSON with `--json`.
 */
async function printDryRun(
  ctx: Context,
  requests: readonly PreparedRequest[],
  note: string,
  extra: Pick<SendDryRunJson, 'skipped'> = {},
): Promise<void> {
  const out = await ctx.output();
  const secrets = [...ctx.secrets];
  const views = requests.map((req) => ({
    method: 'POST' as const,
    url: req.endpoint.replace(/^POST /, ''),
    headers: Object.fromEntries(
      Object.entries(requestHeaders(USER_AGENT, true, req.headers)).map(([k, v]) => [k, redactHeader(k, v, secrets)]),
    ),
    body: redact(req.body.toString('utf8'), secrets),
  }));
  if (out.json) {
    out.writeJson({
      dryRun: true,
      requests: views.map((v) => ({ ...v, body: parseOr(v.body) })),
      ...extra,
    } satisfies SendDryRunJson);
  } else if (views.length > 0) {
    // Every request goes to the same place with the same headers: shown once, then each body.
    const [first] = views;
    ctx.io.stdout.write(`${first!.method} ${first!.url}\n`);
    for (const [k, value] of Object.entries(first!.headers)) ctx.io.stdout.write(`${k}: ${value}\n`);
    ctx.io.stdout.write('\n');
    for (const v of views) ctx.io.stdout.write(`${v.body}\n`);
  }
  out.info(said`dry run: ${note}; nothing was sent`);
}

function parseOr(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A CSV dry run: the requests, and what would be sent, held back and skipped. */
function printFileDryRun(ctx: Context, outcome: Extract<SendOutcome, { kind: 'dry-run' }>): Promise<void> {
  const { selection, skipped } = outcome;
  return printDryRun(
    ctx,
    outcome.requests,
    `${selection.toSend.length} of ${plural(selection.total, 'row')} would be sent${selection.uncertain.length ? `, ${selection.uncertain.length} uncertain from an earlier run would not` : ''}${skipped.length ? `, ${skipped.length} already reached through this destination would be skipped` : ''}`,
    { skipped },
  );
}

/**
 * A single send the never-twice ledger kept back (or would, for a dry run): said on stderr, and as
 * JSON on stdout with `--json`. Nothing was sent, as asked by the ledger's rule: exit 0.
 */
async function printSkipped(
  ctx: Context,
  who: string,
  destination: { text: string },
  reachedAt: string,
  dryRun: boolean,
): Promise<number> {
  const one = { who, destination };
  const out = await ctx.output();
  out.warn(
    said`${dryRun ? 'would send nothing' : 'nothing sent'}: ${one.who} was already reached through ${one.destination.text} at ${reachedAt} (within --recall-window); --call-again reaches again`,
  );
  if (out.json) {
    if (dryRun)
      out.writeJson({ dryRun: true, requests: [], skipped: [{ who: one.who, reachedAt }] } satisfies SendDryRunJson);
    else
      out.writeJson({
        skipped: true,
        who: one.who,
        destination: one.destination.text,
        reachedAt,
      } satisfies SendSkippedJson);
  }
  return 0;
}

/** A CSV send's summary (a record, or one JSON line) and its exit code; uncertain rows end with exit 5. */
async function reportFile(
  ctx: Context,
  view: FileView,
  outcome: Extract<SendOutcome, { kind: 'ran' }>,
  how: { startedAt: number; rows: number; quiet?: true },
): Promise<number> {
  const t = tally(outcome.results);
  const thisRun = tally(outcome.results.filter((r) => !r.earlier));
  const uncertainRows = outcome.results.filter((r) => r.outcome === 'uncertain').map((r) => r.row);
  const summary = {
    startedAt: new Date(how.startedAt).toISOString(),
    endedAt: new Date(ctx.io.now()).toISOString(),
    file: view.shown,
    results: view.results,
    journal: outcome.journal,
    // Every row was checked before anything was sent: an invalid row stops the run (exit 3) first.
    rows: how.rows,
    valid: how.rows,
    invalid: 0,
    total: outcome.results.length,
    ...t,
    thisRun: { sent: thisRun.sent, failed: thisRun.failed, uncertain: thisRun.uncertain },
    uncertainRows,
    stopped: outcome.stopped ?? null,
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
  if (outcome.stopped?.reason === 'interrupted') return ExitCode.INTERRUPTED;
  // "Uncertain" is one exit code and one word in every command (as workflow update's uncertain
  // batches): exit 5 with an error line. Their answer was lost to the network, and a re-run is
  // safe: it never sends them again by itself, it sends the rest.
  if (uncertainRows.length > 0) {
    const them = uncertainRows.length === 1 ? 'it' : 'them';
    throw new NetworkError(
      said`${uncertainRows.length} row${uncertainRows.length === 1 ? '' : 's'} may have reached people without an answer (rows ${uncertainRows.slice(0, 20).join(', ')}${uncertainRows.length > 20 ? ', ...' : ''}); a run again never sends ${them} by itself, only the rest: check with the service, then --resend-uncertain sends ${them} again`,
      { uncertainRows, mayHaveBeenSent: true },
    );
  }
  if (outcome.stopped?.reason === 'network') return ExitCode.NETWORK;
  if (t.failed > 0 || outcome.stopped) return ExitCode.SERVICE;
  return ExitCode.OK;
}
