import { UsageError } from '../../errors.js';
import { said } from '../../said.js';
import type { Command, FlagsOf } from '../commander.js';
import { collect, type Deps } from '../action.js';
import type { Context } from '../../context.js';
import { JSON_SHAPES } from '../../help/json-shapes.js';
import {
  CSV_SEND_JSON_HELP,
  refuseCsvOnlyFlags,
  regionOf,
  sendFlags,
  sendInput,
  type ShownPlan,
} from '../flags/send.js';
import type { PushRequest } from '../../schemas/push.js';
import type { PreparedRequest } from '../../api/deliver.js';
import type { SendRow } from '../../reach/rows.js';
import type { CallerReading, PushTarget } from '../../reach/push.js';

function declare(parent: Command) {
  const command = parent
    .command('push')
    .description(
      'place one outbound call now, or one per row of a CSV file (POST {flex_route_url}/api/push/<push_token>)',
    )
    .option(
      '--caller-id <id>',
      'caller_id of the person to call (required without --csv): any text without control characters; a phone number is one person however it is spelled',
    )
    .option(
      '--phone-only',
      'send only a caller_id that is a phone number (else any text the spec allows; profile: caller-id-phone-only true)',
    )
    .option('--client-name <name>', 'client_name')
    .option('--var <key=value>', 'a variable; repeatable; wins over --vars-file (debt_amount: sent as given)', collect)
    .option('--vars-file <file>', 'variables as a JSON object of strings, e.g. {"debt_amount": "1500000"}')
    .option('--test', 'use the test address and test token (flex-test-url, push-test-token)')
    .option(
      '--flex-url <url>',
      'flex-route address (env CALLCTL_FLEX_URL / CALLCTL_FLEX_TEST_URL with --test; profile flex-url / flex-test-url)',
    )
    .option(
      '--push-token-stdin',
      'read the push token from stdin (else env CALLCTL_PUSH_TOKEN / CALLCTL_PUSH_TEST_TOKEN, profile push-token / push-test-token)',
    );
  return sendFlags(command, {
    dryRun: 'print the exact request (token redacted) and send nothing',
    csv: 'one push per row: header row; caller_id required, client_name optional, every other column a variable',
    unit: 'pushes',
    reach: 'call',
    reached: 'called',
  })
    .option('--allow-duplicates', 'with --csv: allow the same caller_id on several rows')
    .addHelpText(
      'after',
      `
The push token is a secret: it is never a flag value; set it once with
  printf %s "$TOKEN" | callctl config set push-token --stdin
It is redacted (***) in --verbose output, in --dry-run and in every error.

Success: HTTP 2xx with code 0 or 200 (callctl's reading; the spec gives none). Any other answer
exits 1 with the service's message and trace_id. Never retried once the body may have reached the
service: a connection that fails after sending exits 5 and says the call may have been placed.

--csv: every row is checked before anything is sent (exit 3 with line numbers). A journal in the
state folder records each row before it is sent and its answer after, so a re-run of the same
file never calls anyone twice: answered rows are skipped; rows sent without an answer (the run
was killed) are reported as uncertain and not sent again unless --resend-uncertain. A ledger per
destination (the flex-route address, however spelled: localhost or 127.0.0.1, trailing slash, case
of the host) remembers who was called: a caller_id called through it within --recall-window
(default 24h), from any file, is skipped and reported, unless --call-again. Exit 0 when
every row was sent, 1 when some were refused, 5 when some are uncertain (an error line names
them; a re-run sends the rest, never them) or a connection failed (re-run to continue), 130
when interrupted. Without a terminal every progress, warning and
error line on stderr starts with an ISO-8601 time.

Examples:
  callctl push --caller-id +6281234567001 --client-name Budi --var debt_amount=1500000
  callctl push --test --caller-id +6281234567001 --vars-file vars.json --dry-run
  callctl push --csv callers.csv --rate 10 --yes --json

JSON (--json): one push: the service's answer,
${JSON_SHAPES.push};
${CSV_SEND_JSON_HELP}`,
    );
}

export type PushOptions = FlagsOf<typeof declare>;

export function register(parent: Command, { start }: Deps): void {
  declare(parent).action((flags, command) => start(command, runPush, flags));
}

/** Runs `push`: one call, or one per row of a CSV file (--csv). */
export async function runPush(ctx: Context, opts: PushOptions): Promise<number> {
  // Run by cron: without a terminal, the final error line carries its time too (src/main.ts).
  ctx.stampLines = 'piped';
  if (opts.csv && opts.callerId)
    throw new UsageError(said`--caller-id and --csv do not go together: the CSV names one caller_id per row`);
  if (!opts.csv) refuseCsvOnlyFlags(opts);
  if (!opts.csv && !opts.callerId?.trim()) throw new UsageError(said`missing --caller-id (or --csv FILE for many)`);
  const plan = await pushPlan(ctx, opts);
  const first = plan.rows[0]!.body;
  const { runSend, summaryLines } = await import('../send-render.js');
  const { pushError } = await import('../../reach/push.js');
  return runSend(ctx, plan, {
    one: 'call',
    question: (n) => (plan.file ? `Place ${n} ${n === 1 ? 'call' : 'calls'}?` : 'Place this call?'),
    summary: () =>
      summaryLines(`About to place a call${plan.test ? ' (TEST environment)' : ''}: ${plan.endpoint}`, [
        ['caller_id', first.caller_id],
        ['client_name', first.client_name],
        ['variables', first.variables],
      ]),
    notSent: `the call to ${first.caller_id} was not placed`,
    failed: (d, sentAt) => pushError(plan.target, first, d, sentAt),
    record: (d, scrub) => [
      ['code', d.code],
      ['message', scrub(d.message)],
      ['show_err', d.answer.show_err],
      ['trace_id', d.id],
    ],
    success: (d) =>
      said`call pushed for ${first.caller_id}${plan.test ? ' (test)' : ''}${d.id ? `, trace_id ${d.id}` : ''}`,
  });
}

/**
 * The plan of a push: its one row or the CSV file's rows, every one checked (invalid input ends
 * the run, exit 3, before anything is sent), then where it goes (the flex-route address and its
 * token, which may be read from stdin).
 */
async function pushPlan(ctx: Context, opts: PushOptions): Promise<PushPlan> {
  const reach = await import('../../reach/push.js');
  const { deliver } = await import('../../api/deliver.js');
  const { withCredentialHint } = await import('../../reach/refused.js');
  const { pushDestination } = await import('../../store/destination.js');
  const { collectVariables } = await import('../flags/variables.js');
  const reading = await callerReading(ctx, opts);
  const variables = collectVariables(opts.var, opts.varsFile);
  const input = await sendInput(ctx, opts, {
    single: () => ({
      what: 'invalid push',
      who: opts.callerId!.trim(),
      built: reach.buildPush({ caller_id: opts.callerId, client_name: opts.clientName, variables }, reading),
    }),
    rows: (file) => reach.pushRows(file, { ...opts, variables }, reading),
    columns: { who: 'caller_id', id: 'trace_id' },
  });
  const target = await reach.resolvePushTarget(ctx, opts);
  const endpoint = reach.pushEndpoint(target);
  const test = target.environment === 'test';
  const prepare = async (row: SendRow<PushRequest>) => reach.preparePush(target, row.body);
  return {
    ...input,
    command: 'push' as const,
    destination: pushDestination(target.flexUrl, target.environment),
    sender: {
      prepare,
      deliver: async (req: PreparedRequest) =>
        withCredentialHint(await deliver(await ctx.transport(), req, reach.pushAnswer), [target.tokenSource]),
    },
    preview: prepare,
    target,
    test,
    endpoint,
    file: input.file && {
      ...input.file,
      meta: { environment: target.environment, endpoint },
      about: [`About to place calls${test ? ' (TEST environment)' : ''}: ${endpoint}`],
    },
  };
}

/** How callers are read: `--region` (or the profile's), `--e164`, and `--phone-only` (or the profile's caller-id-phone-only). */
async function callerReading(ctx: Context, opts: PushOptions): Promise<CallerReading> {
  const region = await regionOf(ctx, opts);
  const stored = (await ctx.settings()).get('caller-id-phone-only');
  const phoneOnly = opts.phoneOnly
    ? '--phone-only'
    : stored === 'true'
      ? `profile ${ctx.profile}'s caller-id-phone-only`
      : undefined;
  return { region, e164: opts.e164 === true, ...(phoneOnly ? { phoneOnly } : {}) };
}

/** A push's plan, with where it goes for the command's messages, and how its file is shown. */
type PushPlan = ShownPlan<PushRequest> & { target: PushTarget; test: boolean; endpoint: string };
