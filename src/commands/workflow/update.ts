import { resolve } from 'node:path';
import { InvalidArgumentError, type Command, type FlagsOf } from '../commander.js';
import { nonNegativeInt, positiveInt, type Deps } from '../action.js';
import type { Context } from '../../context.js';
import { AuthError, UsageError } from '../../errors.js';
import { JSON_SHAPES } from '../../help/json-shapes.js';
import { MAX_ENTRIES_PER_UPDATE } from '../../limits.js';
import { said } from '../../said.js';
import type { UpdatePlan } from './update-render.js';
import { delimiter } from '../flags/delimiter.js';
import { regionOf } from '../flags/send.js';
import { storeFileOption, storeOption } from '../flags/store.js';

function declare(workflow: Command) {
  return workflow
    .command('update')
    .description(
      'upload contacts from a CSV file into a running workflow, in batches (POST /service/cloud/workflow/updatedetails)',
    )
    .requiredOption('--workflow-id <id>', 'workflow id')
    .requiredOption('--csv <file>', 'contacts CSV (UTF-8, with a header row)')
    .option('--delimiter <char>', 'field delimiter, one character; "tab" for a tab', delimiter, ',')
    .option('--keep-empty', 'send empty cells as empty variables (default: left out)')
    .option(
      '--region <code>',
      "region of callees written without + and a country code (ISO 3166, e.g. ID; else the profile's region): such a number is refused without one, never guessed",
    )
    .option(
      '--max-invalid <n>',
      'skip up to n invalid rows and send the rest (0: any invalid row stops the upload)',
      nonNegativeInt,
      0,
    )
    .option('--rejects <file>', 'write every rejected row, as read, with its line and reason, to this CSV')
    .option(
      '--batch-size <n>',
      `entries per request, at most ${MAX_ENTRIES_PER_UPDATE}`,
      batchSizeOf,
      MAX_ENTRIES_PER_UPDATE,
    )
    .option('--dry-run', 'check the file and list the batches it would send; send nothing')
    .option('--restart', "ignore an earlier run's journal: send every batch again")
    .option('-q, --quiet', 'print errors only (no progress, warnings or summary; --json still prints the summary)')
    .option(
      '--resend-uncertain',
      'send again the batches an earlier run left uncertain (sent, no answer) whose rows lack caseid',
    )
    .option('-y, --yes', 'do not ask for confirmation (required without a terminal)')
    .addOption(storeOption())
    .addOption(storeFileOption())
    .addHelpText(
      'after',
      `
The CSV: a header row; callee (a phone number) and platform (1 to 40 characters) are required;
caseid and pds_variables (a JSON object's text, or a plain string) are optional; every other
column becomes a key of variables. A callee is read as push reads a caller_id: spaces, dashes,
dots, brackets, 00 for +, full-width digits; a national number (0812-3450-0014) needs --region or
the profile's region. Each callee is sent in E.164 (+6281234500014), the spec's form, and two
spellings of one number are one callee. UTF-8 with or without BOM, quoted fields with commas and
line breaks, CRLF. Columns rejected_line and rejected_reason are ignored (see --rejects).

Every row is checked before anything is sent: a bad callee, platform or pds_variables, a row
repeating an earlier row's callee and caseid, a row with too few or too many fields. Problems are
listed with their line and column, and nothing is sent (exit 3) unless --max-invalid allows
skipping them. --rejects writes the rejected rows, as read, after their line and reason: fix them
and upload that file as it is.

Valid rows go in batches of at most ${MAX_ENTRIES_PER_UPDATE} (--batch-size), one request at a time. A batch
is retried when the connection could not be made and on 429 and 5xx answers (the service took
nothing). The file is read twice and never held in memory: the check spools the batches' JSON
beside the journal (about twice the CSV's size, removed when the run ends).

A journal (uploads/<workflow>-<content hash>.journal, in the state folder; in the store with a
PostgreSQL one, shared by every host) records each batch before it is sent and its answer after. After a failure, Ctrl-C or a kill, run the same command
again: it continues after the accepted batches. A batch whose body may have reached the service
with no answer (connection lost after sending, timeout, the process killed) is uncertain: when
every entry carries caseid it is sent again (caseid keeps the service from duplicating it), and
the run says so; otherwise it is NOT sent again, the run stops naming its lines (exit 5), a re-run
sends only the rest, and --resend-uncertain sends those lines too. An answer with status OK and
code 200 means accepted; the service's count is shown per batch and summed, and a count other
than the entries sent is a warning, never a failure.

Once an upload completed, the same content to the same workflow has nothing left to send;
--restart sends everything again. A file at the same path with new content (the next night's
export) is a new upload and goes ahead, with a warning naming the earlier upload that stopped and
how far it got. Two runs of the same upload at once: the second refuses (exit 2), naming the
first one's pid.

Without a terminal (cron), --yes is required; progress is one line per batch on stderr.

Exit codes: 0 done; 1 the service refused a batch (named, with its lines: fix what it says, running
again alone will not help); 2 usage, or the same upload already running; 3 invalid rows or file,
nothing sent; 4 authentication; 5 network, timeout, 429 or 5xx after retries (run again), or
uncertain batches left unsent (see above); 130 Ctrl-C (after journaling the batch in flight) or
confirmation declined.

Examples:
  callctl workflow update --workflow-id wf-20001 --csv contacts.csv --dry-run
  callctl workflow update --workflow-id wf-20001 --csv contacts.csv --rejects rejects.csv --max-invalid 50
  callctl workflow update --workflow-id wf-20001 --csv contacts.csv --yes --json | jq .entriesAcknowledged

Without a terminal every progress, warning and error line on stderr starts with an ISO-8601 time.

JSON (--json), ONE line on stdout once the file is checked (also when the run fails or stops):
${JSON_SHAPES.workflowUpdate}
"sent": entries accepted in this run; "serviceCount": the service's count, summed; "uncertain":
batches that may have reached the service; "earlierUpload": null, or a stopped upload of the same
path this one replaced; "problems": the first 20; "batches": --dry-run only.`,
    );
}

function batchSizeOf(value: string): number {
  const n = positiveInt(value);
  if (n > MAX_ENTRIES_PER_UPDATE)
    throw new InvalidArgumentError(`at most ${MAX_ENTRIES_PER_UPDATE}, the service's limit per request`);
  return n;
}

export type UpdateOptions = FlagsOf<typeof declare>;

export function register(workflow: Command, { start }: Deps): void {
  declare(workflow).action((flags, command) => start(command, runWorkflowUpdate, flags));
}

/**
 * `workflow update`: checks every row, then sends the valid ones in batches, journaled so that a
 * re-run continues after the last acknowledged batch (the engine: src/upload/upload.ts).
 */
export async function runWorkflowUpdate(ctx: Context, opts: UpdateOptions): Promise<number> {
  const startedAt = ctx.io.now();
  // Run by cron: without a terminal, the final error line carries its time too (src/main.ts).
  ctx.stampLines = 'piped';
  if (!opts.dryRun && !opts.yes && !ctx.canPrompt()) {
    throw new UsageError(
      said`workflow update changes the contacts of a running workflow: without a terminal to confirm on, pass --yes (or --dry-run to only check the file)`,
    );
  }
  const plan = await uploadPlan(ctx, opts);
  const store = await ctx.store(plan.store);
  const render = await import('./update-render.js');
  const { upload } = await import('../../upload/upload.js');
  const { updateDetailsJson } = await import('../../api/cloud.js');
  const client = plan.dryRun ? undefined : await ctx.client();
  // Never retried by the transport once the body may have gone out: the engine decides (and says so).
  const sendBatch = (details: Buffer) => updateDetailsJson(client!, plan.workflowId, details);
  const screen = await render.uploadScreen(ctx, plan);
  const outcome = await upload(plan, { store, ...screen, sendBatch, sleep: (ms) => ctx.io.sleep(ms) })
    .catch(screen.failed)
    .finally(screen.stop);
  return render.toldOutcome(ctx, plan, outcome, startedAt);
}

/**
 * The upload's plan, from the flags: the file and where rejected rows go, the region of national
 * numbers, where the contacts go (the service and the account, which key the upload's journal)
 * and the journal's rules; and what the run shows. A dry run without a base URL or APPKey plans
 * the file as a first upload.
 */
async function uploadPlan(ctx: Context, opts: UpdateOptions): Promise<UpdatePlan> {
  if (!opts.workflowId.trim()) throw new UsageError(said`--workflow-id is empty`);
  const path = resolve(ctx.io.cwd, opts.csv);
  const rejectsPath = opts.rejects ? resolve(ctx.io.cwd, opts.rejects) : undefined;
  if (rejectsPath === path) throw new UsageError(said`--rejects names the CSV being uploaded; give another file`);
  const region = await regionOf(ctx, opts);
  const dryRun = opts.dryRun === true;
  if (!dryRun && !(await ctx.client()).currentToken && !(await ctx.envCredentials())) {
    throw new AuthError(
      said`not logged in: run \`callctl auth login\`, or set CALLCTL_TOKEN, or CALLCTL_APP_KEY with CALLCTL_APP_SECRET`,
    );
  }
  const { cloudDestination } = await import('../../store/destination.js');
  const { cacheDir } = await import('../../files/state.js');
  const settings = await ctx.settings();
  const appKey = settings.get('app-key');
  const baseUrl = settings.get('base-url');
  const destination = baseUrl && appKey ? cloudDestination(await ctx.baseUrl(), appKey) : undefined;
  if (!destination && !dryRun) {
    if (!baseUrl) await ctx.baseUrl(); // its own usage error, naming --base-url
    throw new UsageError(
      said`workflow update keeps its journal per service and account, and the account (APPKey) is not known: set CALLCTL_APP_KEY or \`callctl config set app-key KEY\` (auth login records it)`,
    );
  }
  return {
    file: opts.csv,
    path,
    workflowId: opts.workflowId,
    destination,
    delimiter: opts.delimiter,
    keepEmpty: opts.keepEmpty === true,
    region,
    batchSize: opts.batchSize,
    maxInvalid: opts.maxInvalid,
    rejectsPath,
    restart: opts.restart === true,
    resendUncertain: opts.resendUncertain === true,
    spoolDir: resolve(cacheDir(ctx.io.env), 'spool'),
    dryRun,
    quiet: opts.quiet === true,
    yes: opts.yes === true,
    rejects: opts.rejects,
    store: { store: opts.store, storeFile: opts.storeFile },
  };
}
