import { Option, type Command, type OptionValues } from '../commander.js';
import { said } from '../../said.js';
import { UsageError } from '../../errors.js';
import type { Context } from '../../context.js';
import { delimiter } from './delimiter.js';
import { RATE, rate, recallWindow } from '../flag-values.js';
import { JSON_SHAPES } from '../../help/json-shapes.js';
import type { SendPlan, SendRules } from '../../reach/send.js';
import type { Built, SendRow } from '../../reach/rows.js';
import type { CsvFile } from '../../csv/read.js';
import type { Problem } from '../../csv/problems.js';
import type { StoreFlags } from '../../store/resolve.js';
import { storeFileOption, storeOption } from './store.js';

/** The words that differ between push and template send in the flags they share. */
interface SendWords {
  /** `--dry-run`'s help. */
  dryRun: string;
  /** `--csv`'s help. */
  csv: string;
  /** What is sent per second: `pushes`, `messages`. */
  unit: string;
  /** What reaching a person is: `call` (may call twice), `message`. */
  reach: string;
  /** The same in the past: `called`, `messaged`. */
  reached: string;
}

/**
 * The flags of a command that reaches people, one or one per CSV row (push, template send),
 * declared once: confirmation, quiet, dry run, the file and how it is read, the rate, the results
 * file, what an earlier run of the same file or the never-twice ledger left, and the store. Their
 * types follow into the verb's options (FlagsOf).
 */
export function sendFlags<A extends unknown[], O extends OptionValues, G extends OptionValues>(
  command: Command<A, O, G>,
  words: SendWords,
) {
  return command
    .option('-y, --yes', 'do not ask for confirmation (required without a terminal)')
    .option(
      '-q, --quiet',
      'print errors only (no progress, warnings or summary; --json still prints the answer or summary)',
    )
    .option('--dry-run', words.dryRun)
    .option('--delimiter <char>', 'with --csv: field delimiter, one character; "tab" for a tab', delimiter)
    .option('--csv <file>', words.csv)
    .addOption(
      new Option('--rate <n>', `with --csv: ${words.unit} per second, one at a time (${RATE.min} to ${RATE.max})`)
        .default(5)
        .argParser(rate()),
    )
    .option(
      '--results <file>',
      'with --csv: results file (default: beside the input, its .csv replaced: calls.csv gives calls.results.csv)',
    )
    .option(
      '--resend-uncertain',
      `with --csv: send again rows an earlier run sent without getting an answer (may ${words.reach} twice)`,
    )
    .option('--retry-failed', 'with --csv: send again rows the service refused in an earlier run')
    .option(
      '--call-again',
      `send also to people already ${words.reached} through the same destination within --recall-window`,
    )
    .option(
      '--recall-window <duration>',
      'how long a person reached through a destination is not reached again (default 24h; e.g. 90m, 2d; 0: no ledger check)',
      recallWindow,
    )
    .option(
      '--region <code>',
      "region of phone numbers written without + and a country code (ISO 3166, e.g. US; else the profile's region): such a number is refused without one, never guessed",
    )
    .option('--e164', 'send phone numbers in E.164 form (+ and digits) rather than as written')
    .addOption(storeOption())
    .addOption(storeFileOption());
}

export interface SendFlags {
  yes?: true;
  quiet?: true;
  dryRun?: true;
  csv?: string;
  delimiter?: string;
  rate: number;
  results?: string;
  resendUncertain?: true;
  retryFailed?: true;
  allowDuplicates?: true;
  callAgain?: true;
  recallWindow?: number;
  region?: string;
  store?: string;
  storeFile?: string;
}

/** The end of push's and template send's `--json` help: a dry run, and the summary of a --csv run. */
export const CSV_SEND_JSON_HELP = `one person already reached within --recall-window (nothing sent, exit 0),
${JSON_SHAPES.sendSkipped};
--dry-run ("skipped": the people the ledger would skip),
${JSON_SHAPES.sendDryRun};
--csv: one line ("stopped": null, or why the run stopped),
${JSON_SHAPES.csvSend}`;

/** The journal's and the ledger's rules of a run, and its pace, from its flags. */
export function sendRules(opts: SendFlags): SendRules {
  return {
    rate: opts.rate,
    resendUncertain: !!opts.resendUncertain,
    retryFailed: !!opts.retryFailed,
    callAgain: !!opts.callAgain,
    recallWindowMs: opts.recallWindow,
  };
}

/** What a command adds to a ledger skip and to an uncertain row, naming the flags that change them. */
export const SEND_ADVICE = {
  skipped: ' (within --recall-window); --call-again reaches again',
  uncertain: '; not sent again unless --resend-uncertain',
};

/** Flags that mean something only with `--csv`: a usage error without it. */
export function refuseCsvOnlyFlags(opts: SendFlags): void {
  for (const flag of ['results', 'resendUncertain', 'retryFailed', 'allowDuplicates', 'delimiter'] as const) {
    if (opts[flag])
      throw new UsageError(said`--${flag.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} goes with --csv`);
  }
}

/**
 * The region of national phone numbers: `--region`, else the profile's `region`; undefined when
 * neither is given (such numbers are then refused, never guessed). An unknown region is a usage error.
 */
export async function regionOf(ctx: Context, opts: Pick<SendFlags, 'region'>): Promise<string | undefined> {
  const value = opts.region ?? (await ctx.settings()).get('region');
  if (value === undefined || value === '') return undefined;
  const { knownRegion } = await import('../../person.js');
  if (!knownRegion(value))
    throw new UsageError(
      said`${opts.region !== undefined ? '--region' : `profile ${ctx.profile}'s region`}: ${JSON.stringify(value)} is not a region libphonenumber knows (ISO 3166 two letters, e.g. US, GB, ID)`,
    );
  return value.toUpperCase();
}

/** What a CSV send's confirmation and summary say about it. */
export interface FileView {
  /** The file as the user named it. */
  shown: string;
  /** The lines above the counts (endpoint, template...). */
  about: string[];
  results: string;
}

/** A send's plan, with what the command shows of its run: its file, `--quiet`, `--yes`, and the store its flags name. */
export type ShownPlan<B> = Omit<SendPlan<B>, 'file'> & {
  file?: NonNullable<SendPlan<B>['file']> & FileView;
  quiet?: true;
  yes?: true;
  store: StoreFlags;
};

/** What a send's flags decide before where it goes is resolved: its rows (and file), the run's rules, what the command shows. */
export type SendInput<B> = Pick<ShownPlan<B>, 'rows' | 'rules' | 'dryRun' | 'advice' | 'quiet' | 'yes' | 'store'> & {
  file?: Omit<NonNullable<ShownPlan<B>['file']>, 'meta' | 'about'>;
};

/**
 * A send's input from its flags: its one row, or the `--csv` file's rows, every one checked
 * (invalid input ends the run, exit 3, before anything is sent), with the file's results, and the
 * run's rules.
 */
export async function sendInput<B>(
  ctx: Context,
  opts: SendFlags,
  how: {
    /** The one row (without --csv): `what` names it in the error of its problems. */
    single(): { what: string; who: string; built: Built<B> };
    /** The file's rows, checked. */
    rows(file: CsvFile): { rows: SendRow<B>[]; problems: Problem[] };
    columns: { who: string; id: string };
  },
): Promise<SendInput<B>> {
  const { problemsError } = await import('../../csv/problems.js');
  const input = {
    rules: sendRules(opts),
    dryRun: opts.dryRun === true,
    advice: SEND_ADVICE,
    quiet: opts.quiet,
    yes: opts.yes,
    store: { store: opts.store, storeFile: opts.storeFile },
  };
  if (!opts.csv) {
    const { what, who, built } = how.single();
    if (!built.ok) throw problemsError(what, built.problems);
    return { ...input, rows: [{ row: 1, line: 1, who, person: built.person, body: built.body }] };
  }
  const { readCsv } = await import('../../csv/read.js');
  const { resolve } = await import('node:path');
  const { defaultResultsPath } = await import('../../reach/results.js');
  const file = await readCsv(opts.csv, opts.delimiter);
  const { rows, problems } = how.rows(file);
  if (problems.length > 0) throw problemsError(opts.csv, problems);
  return {
    ...input,
    rows,
    file: {
      path: resolve(ctx.io.cwd, opts.csv),
      sha256: file.sha256,
      results: opts.results ?? defaultResultsPath(opts.csv),
      columns: how.columns,
      shown: opts.csv,
    },
  };
}
