import { AuthError, UsageError } from '../../errors.js';
import type { Context } from '../../context.js';
import { redact } from '../../redact.js';
import { deliver } from '../../reach/deliver.js';
import { buildPush, preparePush, pushAnswer, pushEndpoint, pushError, type PushTarget } from '../../reach/push.js';
import { collectVariables } from '../shared/variables.js';
import { httpUrl } from '../../config/http-url.js';
import {
  confirmSend,
  invalidInput,
  printDryRun,
  refuseCsvOnlyFlags,
  secretFromStdin,
  summaryLines,
  type SendOptions,
} from '../shared/send-ui.js';

export interface PushOptions extends SendOptions {
  callerId?: string;
  clientName?: string;
  var?: string[];
  varsFile?: string;
  test?: boolean;
  flexUrl?: string;
  pushTokenStdin?: boolean;
}

/** Runs `push` (one call, or a CSV file with --csv). */
export async function runPush(ctx: Context, opts: PushOptions): Promise<number> {
  // Run by cron: without a terminal, the final error line carries its time too (src/main.ts).
  ctx.timedLines = true;
  if (opts.csv) {
    if (opts.callerId)
      throw new UsageError('--caller-id and --csv do not go together: the CSV names one caller_id per row');
    const { runPushCsv } = await import('./push-csv.js');
    return runPushCsv(ctx, opts);
  }
  refuseCsvOnlyFlags(opts);
  if (!opts.callerId?.trim()) throw new UsageError('missing --caller-id (or --csv FILE for many)');
  const target = await resolvePushTarget(ctx, opts);
  const built = buildPush({
    caller_id: opts.callerId,
    client_name: opts.clientName,
    variables: collectVariables(opts.var, opts.varsFile),
  });
  if (!built.ok) throw invalidInput(ctx, 'invalid push', built.problems);
  const body = built.body;
  const req = preparePush(target, body);
  if (opts.dryRun) {
    await printDryRun(ctx, [req], `the call to ${body.caller_id} was not placed`);
    return 0;
  }
  await confirmSend(
    ctx,
    summaryLines(
      `About to place a call${target.environment === 'test' ? ' (TEST environment)' : ''}: ${pushEndpoint(target)}`,
      [
        ['caller_id', body.caller_id],
        ['client_name', body.client_name],
        ['variables', body.variables],
      ],
    ),
    'Place this call?',
    opts.yes,
  );
  const sentAt = ctx.io.now();
  const d = await deliver(await ctx.transport(), req, pushAnswer);
  if (d.outcome !== 'sent') throw pushError(target, body, d, sentAt);
  const out = await ctx.output();
  if (d.warning && !opts.quiet) out.warn(redact(`${pushEndpoint(target)}: ${d.warning}`, [...ctx.secrets]));
  if (out.json) {
    out.writeJson(d.answer);
    return 0;
  }
  if (opts.quiet) return 0;
  const scrub = (v: unknown) => (typeof v === 'string' ? redact(v, [...ctx.secrets]) : v);
  out.record([
    ['code', d.code],
    ['message', scrub(d.message)],
    ['show_err', d.answer.show_err],
    ['trace_id', d.id],
  ]);
  out.success(
    `call pushed for ${body.caller_id}${target.environment === 'test' ? ' (test)' : ''}${d.id ? `, trace_id ${d.id}` : ''}`,
  );
  return 0;
}

/**
 * The flex-route address (flag, environment, profile) and the push token (stdin, environment,
 * profile; never a flag). `--test` uses the test pair.
 */
export async function resolvePushTarget(
  ctx: Context,
  opts: Pick<PushOptions, 'test' | 'flexUrl' | 'pushTokenStdin'>,
): Promise<PushTarget> {
  const settings = await ctx.settings();
  const test = opts.test === true;
  const flexUrl = httpUrl(
    opts.flexUrl || settings.require(test ? 'flex-test-url' : 'flex-url', '--flex-url'),
    test ? 'flex-test-url' : 'flex-url',
  );
  const tokenKey = test ? 'push-test-token' : 'push-token';
  const token = opts.pushTokenStdin
    ? await secretFromStdin(ctx, '--push-token-stdin')
    : settings.require(tokenKey, '--push-token-stdin');
  if (!opts.pushTokenStdin && settings.resolve(tokenKey).source === 'profile') {
    // The profile's push token goes only to the address it was set for.
    const { pushTokenFlexUrl, sameBaseUrl } = await import('../../config/token-url.js');
    const bound = pushTokenFlexUrl(settings.stored(), test);
    if (bound === undefined || !sameBaseUrl(bound, flexUrl)) {
      throw new AuthError(
        bound === undefined
          ? `profile ${ctx.profile}'s ${tokenKey} has no flex-route address recorded, so it is not sent to ${flexUrl}: set it with \`callctl config set ${test ? 'flex-test-url' : 'flex-url'} ${flexUrl}\` and set ${tokenKey} again`
          : `profile ${ctx.profile}'s ${tokenKey} is for ${bound}, not for ${flexUrl}; it is not sent elsewhere. To push to ${flexUrl}, give its token (--push-token-stdin or ${test ? 'CALLCTL_PUSH_TEST_TOKEN' : 'CALLCTL_PUSH_TOKEN'}) or use a profile set up for it`,
        { flexUrl, tokenFlexUrl: bound ?? null },
      );
    }
  }
  ctx.addSecret(token);
  // The path carries the token percent-encoded; that form must not be printed either.
  ctx.addSecret(encodeURIComponent(token));
  return { flexUrl, token, environment: test ? 'test' : 'live' };
}
