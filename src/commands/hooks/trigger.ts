import type { HooksTriggerJson } from '../../schemas/hooks-output.js';
import type { Context } from '../../context.js';
import { NetworkError, ServiceError, ServiceUnavailableError, UsageError } from '../../errors.js';
import { signNotification } from '../../hooks/outgoing.js';
import { applySet, sampleBody, type SampleType } from '../../hooks/samples.js';
import { EVENT_TYPES } from '../../schemas/events.js';
import { post } from '../../hooks/send.js';
import { USER_AGENT } from '../../version.js';
import { chatbotSigning, hookKeys } from './secrets.js';
import { httpUrl } from '../../config/http-url.js';

export const SAMPLE_TYPES = EVENT_TYPES.filter((t): t is SampleType => t !== 'unknown');

export interface TriggerOptions {
  /** `<type>`: the sample's type. */
  type: string;
  url?: string;
  key?: string[];
  keyFile?: string;
  set?: string[];
  tamper?: 'sign' | 'body';
  chatbotSecretFile?: string;
  signCommand?: string;
  serviceSign?: string;
  dryRun?: boolean;
}

/** Sends one realistic, schema-valid, correctly signed sample notification (or a tampered one). */
export async function runHooksTrigger(ctx: Context, opts: TriggerOptions): Promise<number> {
  const { type } = opts;
  if (!(SAMPLE_TYPES as readonly string[]).includes(type)) {
    throw new UsageError(`unknown type ${type}; expected one of ${SAMPLE_TYPES.join(', ')}`);
  }
  const sampleType = type as SampleType;
  const url = opts.dryRun ? undefined : httpUrl(opts.url, '--url');
  const body = sampleBody(sampleType, ctx.io.now());
  for (const assignment of opts.set ?? []) {
    try {
      applySet(body, assignment);
    } catch (error) {
      throw new UsageError(`--set: ${(error as Error).message}`);
    }
  }
  const needsKey = (sampleType === 'plan.end' || sampleType === 'task.end') && !body.Sign;
  const [key] = needsKey ? await hookKeys(ctx, opts) : [];
  if (needsKey && !key)
    throw new UsageError(`${type} is signed with a KEY: give --key, --key-file or CALLCTL_HOOK_KEYS`);
  const chatbot = chatbotSigning(ctx, opts);
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
    out.warn('no chatbot secret, --sign-command or --service-sign: sent without X-Service-Sign');
  }
  if (opts.dryRun) {
    ctx.io.stdout.write(`${request.body.toString('utf8')}\n`);
    return 0;
  }
  const { answer, error } = await post(await ctx.transport(), url!, request.body, request.headers, { retry: 'never' });
  if (!answer) throw new NetworkError(`hooks trigger: ${error}`);
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
  if (answer.status >= 500 || answer.status === 429) {
    throw new ServiceUnavailableError(
      `hooks trigger: the receiver answered HTTP ${answer.status}`,
      'notification',
      answer.status,
      undefined,
    );
  }
  if (answer.status < 200 || answer.status >= 300) {
    throw new ServiceError(
      `hooks trigger: the receiver answered HTTP ${answer.status}`,
      'notification',
      answer.status,
      undefined,
    );
  }
  return 0;
}
