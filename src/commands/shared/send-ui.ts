import { InputError, InterruptedError, UsageError } from '../../errors.js';
import type { Context } from '../../context.js';
import { redact, redactHeader } from '../../redact.js';
import type { PreparedRequest } from '../../api/deliver.js';
import { LISTED_PROBLEMS, type Problem } from '../../csv/problems.js';
import { Progress } from './progress.js';
import { readAll } from '../../io-read.js';
import { USER_AGENT } from '../../version.js';
import { requestHeaders } from '../../api/transport.js';
import type { SendDryRunJson, SendSkippedJson } from '../../schemas/run-output.js';
import type { OneSend, SendRules } from '../../reach/send-run.js';
import type { OldStatePolicy } from '../../store/old-state.js';
import { said } from '../../said.js';

/**
 * What push and template send share at the edge: confirmation, dry-run rendering, reading a
 * secret from stdin, reporting invalid input. The silent core is src/reach/.
 */

/** The safety and `--csv` options that push and template send share. */
export interface SendOptions {
  yes?: boolean;
  dryRun?: boolean;
  csv?: string;
  rate: number;
  results?: string;
  resendUncertain?: boolean;
  retryFailed?: boolean;
  allowDuplicates?: boolean;
  callAgain?: boolean;
  recallWindow?: number;
  /** `-q, --quiet`: errors only (no progress, warnings or summary; --json still prints the summary). */
  quiet?: boolean;
  /** `--delimiter` of the `--csv` file (default comma). */
  delimiter?: string;
  /** Region of phone numbers written without `+` and a country code (else the profile's `region`). */
  region?: string;
  /** Send phone numbers in E.164 form rather than as written. */
  e164?: boolean;
  claimOldState?: boolean;
  ignoreOldState?: boolean;
  store?: string;
  storeFile?: string;
}

/** `--claim-old-state` / `--ignore-old-state` as a policy (src/store/old-state.ts). */
export function oldStatePolicy(opts: { claimOldState?: boolean; ignoreOldState?: boolean }): OldStatePolicy {
  return opts.claimOldState ? 'claim' : opts.ignoreOldState ? 'ignore' : 'stop';
}

/** The journal's and the ledger's rules of a run, from its flags. */
export function sendRules(ctx: Context, opts: SendOptions): SendRules {
  return {
    resendUncertain: !!opts.resendUncertain,
    retryFailed: !!opts.retryFailed,
    callAgain: !!opts.callAgain,
    recallWindowMs: opts.recallWindow,
    oldState: oldStatePolicy(opts),
    now: () => ctx.io.now(),
  };
}

/** Flags that mean something only with `--csv`: a usage error without it. */
export function refuseCsvOnlyFlags(opts: SendOptions): void {
  for (const flag of ['results', 'resendUncertain', 'retryFailed', 'allowDuplicates', 'delimiter'] as const) {
    if (opts[flag])
      throw new UsageError(said`--${flag.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} goes with --csv`);
  }
}

/**
 * The region of national phone numbers: `--region`, else the profile's `region`; undefined when
 * neither is given (such numbers are then refused, never guessed). An unknown region is a usage error.
 */
export async function regionOf(ctx: Context, opts: Pick<SendOptions, 'region'>): Promise<string | undefined> {
  const value = opts.region ?? (await ctx.settings()).get('region');
  if (value === undefined || value === '') return undefined;
  const { knownRegion } = await import('../../person.js');
  if (!knownRegion(value))
    throw new UsageError(
      said`${opts.region !== undefined ? '--region' : `profile ${ctx.profile}'s region`}: ${JSON.stringify(value)} is not a region libphonenumber knows (ISO 3166 two letters, e.g. US, GB, ID)`,
    );
  return value.toUpperCase();
}

/**
 * On a terminal, shows what will happen and asks; without one, `--yes` is required. Declining
 * is exit 130 with nothing sent.
 */
export async function confirmSend(
  ctx: Context,
  summary: readonly string[],
  question: string,
  yes: boolean | undefined,
): Promise<void> {
  if (yes) return;
  if (!ctx.canPrompt()) {
    throw new UsageError(
      said`this reaches real people: confirm with --yes (there is no terminal to ask on), or look first with --dry-run`,
    );
  }
  for (const line of summary) ctx.io.stderr.write(`${line}\n`);
  const ok = await ctx.io.prompter.confirm(question, false);
  if (!ok) throw new InterruptedError(said`declined: nothing was sent`);
}

/** Aligned `key  value` lines for a confirmation summary. */
export function summaryLines(title: string, pairs: ReadonlyArray<readonly [string, unknown]>): string[] {
  const shown = pairs.filter(([, v]) => v !== undefined && v !== '');
  const width = Math.max(...shown.map(([k]) => k.length));
  return [title, ...shown.map(([k, v]) => `  ${k.padEnd(width)}  ${typeof v === 'string' ? v : JSON.stringify(v)}`)];
}

/** The request as it will go out, every secret redacted: the headers the transport adds included. */
export function dryRunView(ctx: Context, req: PreparedRequest) {
  const secrets = [...ctx.secrets];
  const headers = requestHeaders(USER_AGENT, true, req.headers);
  return {
    method: 'POST' as const,
    url: req.endpoint.replace(/^POST /, ''),
    headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, redactHeader(k, v, secrets)])),
    body: redact(req.body.toString('utf8'), secrets),
  };
}

/**
 * Prints the requests a dry run would send: the request line and headers, then each body as sent,
 * one a line; or JSON with `--json`.
 */
export async function printDryRun(
  ctx: Context,
  requests: readonly PreparedRequest[],
  note: string,
  extra: Pick<SendDryRunJson, 'skipped'> = {},
): Promise<void> {
  const out = await ctx.output();
  const views = requests.map((r) => dryRunView(ctx, r));
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

/** A secret read from stdin (`--push-token-stdin`): one trailing newline dropped. */
export async function secretFromStdin(ctx: Context, flag: string): Promise<string> {
  const value = (await readAll(ctx.io.stdin)).toString('utf8').replace(/\r?\n$/, '');
  if (!value) throw new UsageError(said`${flag}: stdin was empty`);
  ctx.addSecret(value);
  return value;
}

/** Invalid input: the problems on stderr (a capped list with line numbers), then one error line. */
export function invalidInput(ctx: Context, what: string, unsorted: readonly Problem[]): InputError {
  const problems = [...unsorted].sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
  if (problems.length === 1 && problems[0]!.line === undefined)
    return new InputError(said`${what}: ${problems[0]!.message}; nothing was sent`);
  // Without a terminal (cron) each problem line starts with its time, like the error line after it.
  new Progress(ctx.io, { scrub: (t) => redact(t, [...ctx.secrets]) }).problems(
    problems.slice(0, LISTED_PROBLEMS),
    problems.length,
  );
  return new InputError(
    said`${what}: ${problems.length} problem${problems.length === 1 ? '' : 's'}; nothing was sent`,
    {
      problems: problems.slice(0, 100),
    },
  );
}

/**
 * A single send the never-twice ledger kept back (or would, for a dry run): said on stderr, and as
 * JSON on stdout with `--json`. Nothing was sent, as asked by the ledger's rule: exit 0.
 */
export async function printSkipped(
  ctx: Context,
  one: Pick<OneSend, 'who' | 'destination'>,
  reachedAt: string,
  dryRun: boolean,
): Promise<number> {
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
