import { Argument, Option, type Command, type FlagsOf } from '../commander.js';
import { collect, type Deps } from '../action.js';
import type { HooksTriggerJson } from '../../schemas/hooks-output.js';
import type { Context } from '../../context.js';
import { NetworkError, ServiceError, ServiceUnavailableError, UsageError } from '../../errors.js';
import type { SampleType } from '../../hooks/samples.js';
import { EVENT_TYPES } from '../../schemas/event-types.js';
import { USER_AGENT } from '../../version.js';
import { httpUrl } from '../../config/http-url.js';
import { JSON_SHAPES } from '../../help/json-shapes.js';
import { said } from '../../said.js';

/** The types `hooks trigger` sends, which shell completion offers. */
export const SAMPLE_TYPES = EVENT_TYPES.filter((t): t is SampleType => t !== 'unknown');

/** `<type>`: completion offers SAMPLE_TYPES; the run checks the value itself (naming them). */
function typeArgument() {
  const argument = new Argument('<type>');
  argument.argChoices = SAMPLE_TYPES;
  return argument;
}

function declare(hooks: Command) {
  return hooks
    .command('trigger')
    .addArgument(typeArgument())
    .description('send a realistic, schema-valid, correctly signed sample notification')
    .option('--url <url>', 'where to send it (e.g. the URL serve-hooks prints)')
    .option('--key <KEY>', 'KEY for plan/task Sign (else --key-file, CALLCTL_HOOK_KEYS, profile hook-keys)', collect)
    .option('--key-file <file>', 'KEYs, one per line; the first signs')
    .option('--set <field=value>', 'change a field (dotted path; field:=json for raw JSON); repeatable', collect)
    .addOption(
      new Option(
        '--tamper <what>',
        'for negative tests: a wrong signature, or the signed value changed after signing',
      ).choices(['sign', 'body']),
    )
    .option('--chatbot-secret-file <file>', 'secret for chatbot X-Service-Sign (or CALLCTL_CHATBOT_SECRET)')
    .option('--sign-command <cmd>', 'command that reads the body on stdin and prints its X-Service-Sign')
    .option('--service-sign <signature>', 'use this X-Service-Sign as is')
    .option('--dry-run', 'print the body instead of sending it')
    .addHelpText(
      'after',
      `
Types: plan.end, task.end, workflow.api_push, template.status, chatbot.session_closed, chatbot.transfer.

Signing: plan/task Sign = lowercase hex MD5 of Timestamp+KEY / TaskID+KEY, made after --set
(a Sign given with --set is kept). Chatbot X-Service-Sign: --service-sign, else --sign-command,
else callctl's ASSUMED default (the spec does not give it): HMAC-SHA256 of the body with the
secret, hex; with none of them the header is not sent.

Exit: 0 when the receiver answers 2xx, 1 for another HTTP status (a tampered sample answered
401 included), 5 network error.

Examples:
  callctl hooks trigger task.end --url http://127.0.0.1:8787/ --key k1
  callctl hooks trigger plan.end --url http://127.0.0.1:8787/ --set Timestamp:=$(date +%s)   # an integer Timestamp
  callctl hooks trigger task.end --url http://127.0.0.1:8787/ --tamper sign   # expect 401
  CALLCTL_CHATBOT_SECRET=s callctl hooks trigger chatbot.transfer --url http://127.0.0.1:8787/

JSON (--json): the receiver's answer:
${JSON_SHAPES.hooksTrigger}`,
    );
}

export type TriggerOptions = FlagsOf<typeof declare> & { type: string };

export function register(hooks: Command, { start }: Deps): void {
  declare(hooks).action((type, flags, command) => start(command, runHooksTrigger, { ...flags, type }));
}

/** Sends one realistic, schema-valid, correctly signed sample notification (or a tampered one). */
export async function runHooksTrigger(ctx: Context, opts: TriggerOptions): Promise<number> {
  const [{ signNotification }, { applySet, sampleBody }, { post }, { chatbotSigning, hookKeys }] = await Promise.all([
    import('../../hooks/outgoing.js'),
    import('../../hooks/samples.js'),
    import('../../hooks/send.js'),
    import('../../hooks/plan.js'),
  ]);
  const { type } = opts;
  if (!(SAMPLE_TYPES as readonly string[]).includes(type)) {
    throw new UsageError(said`unknown type ${type}; expected one of ${SAMPLE_TYPES.join(', ')}`);
  }
  const sampleType = type as SampleType;
  const url = opts.dryRun ? undefined : httpUrl(opts.url, '--url');
  const body = sampleBody(sampleType, ctx.io.now());
  for (const assignment of opts.set ?? []) {
    try {
      applySet(body, assignment);
    } catch (error) {
      throw new UsageError(said`--set: ${(error as Error).message}`);
    }
  }
  const needsKey = (sampleType === 'plan.end' || sampleType === 'task.end') && !body.Sign;
  const [key] = needsKey ? hookKeys(opts, (await ctx.settings()).get('hook-keys')) : [];
  if (needsKey && !key)
    throw new UsageError(said`${type} is signed with a KEY: give --key, --key-file or CALLCTL_HOOK_KEYS`);
  const chatbot = chatbotSigning(opts, ctx.io.env);
  let request;
  try {
    request = await signNotification(sampleType, body, {
      key,
      chatbot: { ...chatbot, ...(opts.serviceSign ? { signature: opts.serviceSign } : {}) },
      tamper: opts.tamper,
      userAgent: USER_AGENT,
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const out = await ctx.output();
  if (!request.headers['x-service-sign'] && sampleType.startsWith('chatbot.')) {
    out.warn(said`no chatbot secret, --sign-command or --service-sign: sent without X-Service-Sign`);
  }
  if (opts.dryRun) {
    ctx.io.stdout.write(`${request.body.toString('utf8')}\n`);
    return 0;
  }
  const { answer, error } = await post(await ctx.transport(), url!, request.body, request.headers, { retry: 'never' });
  if (!answer) throw new NetworkError(said`hooks trigger: ${error}`);
  const result = {
    type,
    status: answer.status,
    body: answer.body,
    ms: answer.ms,
    tamper: opts.tamper ?? null,
  } satisfies HooksTriggerJson;
  if (out.json) out.writeJson(result);
  else if (out.tty)
    out.record([
      ['type', type],
      ['status', answer.status],
      ['answer', answer.body],
      ['time', `${answer.ms} ms`],
      ...(opts.tamper ? [['tamper', opts.tamper] as const] : []),
    ]);
  else ctx.io.stdout.write(`${type}\t${answer.status}\t${answer.body.replace(/[\t\r\n]+/g, ' ')}\t${answer.ms}\n`);
  // A receiver in trouble (5xx: its store is down; 429) may answer 200 later: run again (exit 5).
  if (answer.status < 200 || answer.status >= 300) {
    const Failed = answer.status >= 500 || answer.status === 429 ? ServiceUnavailableError : ServiceError;
    throw new Failed(
      said`hooks trigger: the receiver answered HTTP ${answer.status}`,
      'notification',
      answer.status,
      undefined,
    );
  }
  return 0;
}
