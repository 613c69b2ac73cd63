import { UsageError } from '../../errors.js';
import { said } from '../../said.js';
import { Option, type Command, type FlagsOf } from '../commander.js';
import { collect, type Deps } from '../action.js';
import { wholeNumber } from '../flag-values.js';
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
import type { TemplateRequest } from '../../schemas/template.js';
import type { PreparedRequest } from '../../api/deliver.js';
import type { SendRow } from '../../reach/rows.js';
import type { TemplateTarget } from '../../reach/template.js';

const wholeNumberArg = wholeNumber();

function declare(template: Command) {
  const command = template
    .command('send')
    .description('send one template message now, or one per row of a CSV file (POST /api/v1/template/unitcast)')
    .addOption(
      new Option('--template-id <id>', 'template_id, a whole number (required)')
        .argParser(wholeNumberArg)
        .makeOptionMandatory(),
    )
    .option('--channel <name>', 'channel (with --csv: the default for a missing channel column)')
    .option('--channel-id <id>', 'channel_id (with --csv: the default for a missing channel_id column)')
    .option('--user-id <id>', 'user_id (may be empty)', '')
    .option('--var <key=value>', 'a template variable; repeatable; date and name are required', collect)
    .option('--vars-file <file>', 'variables as a JSON object of strings; --var wins')
    .option('--reply-url <url>', 'where replies go: sent as custom = {"reply_url": URL} as JSON text')
    .addOption(
      new Option(
        '--timestamp <seconds>',
        'timestamp, Unix seconds (default: now); fix it to sign a body ahead',
      ).argParser(wholeNumberArg),
    )
    .option(
      '--signature <value>',
      'X-Service-Sign as is: a one-time value bound to this exact body, not a reusable secret (see --dry-run)',
    )
    .option('--sign-command <cmd>', 'a shell command that reads the exact body on stdin and prints X-Service-Sign')
    .option(
      '--sign-secret-file <file>',
      'secret for the built-in default signature (else CALLCTL_SIGN_SECRET, CALLCTL_SIGN_SECRET_FILE)',
    );
  return sendFlags(command, {
    dryRun: 'print the exact request (key and signature redacted) and send nothing',
    csv: 'one message per row: header row; channel, channel_id, user_id, reply_url columns (else the flags); every other column a variable',
    unit: 'messages',
    reach: 'message',
    reached: 'messaged',
  })
    .option('--allow-duplicates', 'with --csv: allow the same channel, channel_id and user_id on several rows')
    .addHelpText(
      'after',
      `
Headers: X-Service-Sign-Key is the API key (env CALLCTL_SIGN_KEY, profile sign-key; a secret).
X-Service-Sign comes from, in this order: --signature; --sign-command (given the exact body on
stdin, its trimmed output is the signature); else callctl's built-in default, an ASSUMPTION (the
spec does not give the computation): HMAC-SHA256 of the exact body keyed with the secret, lowercase
hex, the secret from --sign-secret-file, CALLCTL_SIGN_SECRET or CALLCTL_SIGN_SECRET_FILE.
The base URL is --base-url, CALLCTL_BASE_URL or the profile's base-url.

Success: HTTP 2xx with code 0 or 200 (callctl's reading; the spec gives none). Any other answer
exits 1 with the service's message and request_id. Never retried once the body may have reached
the service: a connection that fails after sending exits 5 and says the message may have gone out.

--csv: every row is checked before anything is sent (exit 3 with line numbers); a journal in the
state folder makes a re-run of the same file skip answered rows and never send a row twice; rows
sent without an answer (the run was killed) are uncertain and not sent again unless
--resend-uncertain. A ledger per destination (template endpoint and template id, however the URL
is spelled) remembers who was messaged: a recipient (channel, channel id, user) messaged within
--recall-window (default 24h), from any file, is skipped and reported, unless --call-again.
--signature does not go with --csv (each body differs). Exit 0 when every row
was sent, 1 when some were refused, 5 when some are uncertain (an error line names them; a
re-run sends the rest, never them) or a connection failed, 130 interrupted.
Without a terminal every progress, warning and error line on stderr starts with an ISO-8601 time.

Examples:
  callctl template send --template-id 7 --channel whatsapp --channel-id +6281234567001 \\
    --var date=2026-12-01 --var name=Budi --reply-url https://example.com/replies --yes
  callctl template send --template-id 7 --channel whatsapp --channel-id +6281234567001 --var date=2026-12-01 \\
    --var name=Budi --reply-url https://example.com/r --timestamp 1764547200 --dry-run --json
  callctl template send --template-id 7 --channel whatsapp --reply-url https://example.com/r \\
    --csv recipients.csv --rate 20 --sign-command 'my-signer --key prod' --yes

JSON (--json): one message: the service's answer,
${JSON_SHAPES.templateSend};
${CSV_SEND_JSON_HELP}`,
    );
}

export type TemplateSendOptions = FlagsOf<typeof declare>;

export function register(template: Command, { start }: Deps): void {
  declare(template).action((flags, command) => start(command, runTemplateSend, flags));
}

/** Runs `template send`: one message, or one per row of a CSV file (--csv). */
export async function runTemplateSend(ctx: Context, opts: TemplateSendOptions): Promise<number> {
  // Run by cron: without a terminal, the final error line carries its time too (src/main.ts).
  ctx.stampLines = 'piped';
  if (opts.csv && opts.signature !== undefined)
    throw new UsageError(
      said`--signature does not go with --csv: a signature is bound to one body; use --sign-command or the default`,
    );
  if (!opts.csv) {
    refuseCsvOnlyFlags(opts);
    if (!opts.channel) throw new UsageError(said`missing --channel`);
    if (!opts.channelId) throw new UsageError(said`missing --channel-id (or --csv FILE for many)`);
  }
  const plan = await templatePlan(ctx, opts);
  const first = plan.rows[0]!.body;
  const { runSend, summaryLines } = await import('../send-render.js');
  const { recipient, templateError } = await import('../../reach/template.js');
  return runSend(ctx, plan, {
    one: 'message',
    question: (n) => (plan.file ? `Send ${n} ${n === 1 ? 'message' : 'messages'}?` : 'Send this message?'),
    summary: () =>
      summaryLines(`About to send a template message: ${plan.endpoint}`, [
        ['template_id', String(first.template_id)],
        ['channel', first.channel],
        ['channel_id', first.channel_id],
        ['user_id', first.user_id],
        ['variable', first.variable],
        ['custom', first.custom],
      ]),
    notSent: `the message (${recipient(first)}) was not sent`,
    failed: (d) => templateError(plan.target, first, d),
    record: (d, scrub) => [
      ['request_id', d.answer.request_id],
      ['code', d.code],
      ['message', scrub(d.message)],
      ['task_id', d.id],
    ],
    success: (d) => said`message sent (${recipient(first)})${d.id ? `, task_id ${d.id}` : ''}`,
  });
}

/**
 * The plan of a template send: where it goes and how it is signed, and its one message or the
 * CSV file's rows, every one checked (invalid input ends the run, exit 3, before anything is sent).
 * The timestamp is taken when each row is sent (or `--timestamp`), and each body signed then.
 */
async function templatePlan(ctx: Context, opts: TemplateSendOptions): Promise<TemplatePlan> {
  const { resolveTemplateTarget } = await import('./target.js');
  const reach = await import('../../reach/template.js');
  const { deliver } = await import('../../api/deliver.js');
  const { withCredentialHint } = await import('../../reach/refused.js');
  const { templateDestination } = await import('../../store/destination.js');
  const { collectVariables } = await import('../flags/variables.js');
  const { withSignFlag } = await import('../flags/signature.js');
  const reading = { region: await regionOf(ctx, opts), e164: opts.e164 === true };
  const variables = collectVariables(opts.var, opts.varsFile);
  const target = await resolveTemplateTarget(ctx, opts);
  const endpoint = reach.templateEndpoint(target);
  const timestamp = () => opts.timestamp ?? Math.floor(ctx.io.now() / 1000);
  // A CSV row's body is stamped when it is sent; a single message keeps the time it was built.
  const stamp = (row: SendRow<TemplateRequest>) => (opts.csv ? { ...row.body, timestamp: timestamp() } : row.body);
  const input = await sendInput(ctx, opts, {
    single: () => {
      const built = reach.buildTemplate(
        {
          template_id: opts.templateId,
          timestamp: timestamp(),
          channel: opts.channel,
          channel_id: opts.channelId,
          user_id: opts.userId,
          variable: variables,
          reply_url: opts.replyUrl,
        },
        reading,
      );
      return {
        what: 'invalid template message',
        who: `${opts.channel!.trim()}:${opts.channelId!.trim()}`,
        built: built.ok ? built : { ok: false, problems: reach.withReplyUrlHint(built.problems, '--reply-url URL') },
      };
    },
    rows: (file) =>
      reach.templateRows(
        file,
        { ...opts, variables, timestamp, replyUrlHint: 'a reply_url column or --reply-url URL' },
        reading,
      ),
    columns: { who: 'recipient', id: 'task_id' },
  });
  return {
    ...input,
    command: 'template' as const,
    destination: templateDestination(target.baseUrl, target.signKey, opts.templateId),
    sender: {
      prepare: (row: SendRow<TemplateRequest>) => withSignFlag(reach.prepareTemplate(target, stamp(row))),
      deliver: async (req: PreparedRequest) =>
        withCredentialHint(await deliver(await ctx.transport(), req, reach.templateAnswer), target.sources),
    },
    // An external signing command is not run for a dry run; the header shows *** either way.
    preview: (row: SendRow<TemplateRequest>) =>
      reach.prepareTemplate(target, stamp(row), target.signature.kind !== 'command'),
    target,
    endpoint,
    file: input.file && {
      ...input.file,
      meta: { endpoint, template_id: opts.templateId },
      about: [`About to send template ${opts.templateId} messages: ${endpoint}`],
    },
  };
}

/** A template send's plan, with where it goes for the command's messages, and how its file is shown. */
type TemplatePlan = ShownPlan<TemplateRequest> & { target: TemplateTarget; endpoint: string };
