import { UsageError } from '../../errors.js';
import type { Context } from '../../context.js';
import { redact } from '../../api/redact.js';
import { deliver } from '../../send/deliver.js';
import { buildPush, preparePush, pushAnswer, pushEndpoint, pushError, type PushTarget } from '../../send/push.js';
import { collectVariables } from '../../send/variables.js';
import { checkUrl, confirmSend, invalidInput, printDryRun, refuseCsvOnlyFlags, secretFromStdin, summaryLines, type SendOptions } from './send-ui.js';

export interface PushOptions extends SendOptions {
  callerId?: string;
  clientName?: string;
  var?: string[];
  varsFile?: string;
  test?: boolean;
  flexUrl?: string;
  pushTokenStdin?: boolean;
}

export async function run(ctx: Context, opts: PushOptions): Promise<number> {
  if (opts.csv) {
    if (opts.callerId) throw new UsageError('--caller-id and --csv do not go together: the CSV names one caller_id per row');
    const { runPushCsv } = await import('./push-csv.js');
    return runPushCsv(ctx, opts);
  }
  refuseCsvOnlyFlags(opts);
  if (!opts.callerId?.trim()) throw new UsageError('missing --caller-id (or --csv FILE for many)');
  const target = await pushTarget(ctx, opts);
  const built = buildPush({ caller_id: opts.callerId, client_name: opts.clientName, variables: collectVariables(opts.var, opts.varsFile) });
  if (!built.ok) throw invalidInput(ctx, 'invalid push', built.problems);
  const body = built.body;
  const req = preparePush(target, body);
  if (opts.dryRun) {
    await printDryRun(ctx, [req], `the call to ${body.caller_id} was not placed`);
    return 0;
  }
  await confirmSend(
    ctx,
    summaryLines(`About to place a call${target.environment === 'test' ? ' (TEST environment)' : ''}: ${pushEndpoint(target)}`, [
      ['caller_id', body.caller_id],
      ['client_name', body.client_name],
      ['variables', body.variables],
    ]),
    'Place this call?',
    opts.yes,
  );
  const sentAt = ctx.io.now();
  const d = await deliver(await ctx.transport(), req, pushAnswer);
  if (d.outcome !== 'sent') throw pushError(target, body, d, sentAt);
  const out = await ctx.output();
  if (out.json) {
    out.writeJson(d.answer);
    return 0;
  }
  const scrub = (v: unknown) => (typeof v === 'string' ? redact(v, [...ctx.secrets]) : v);
  out.record([
    ['code', d.code],
    ['message', scrub(d.message)],
    ['show_err', d.answer.show_err],
    ['trace_id', d.id],
  ]);
  out.success(`call pushed for ${body.caller_id}${target.environment === 'test' ? ' (test)' : ''}, trace_id ${d.id}`);
  return 0;
}

/**
 * The flex-route address (flag, environment, profile) and the push token (stdin, environment,
 * profile; never a flag). `--test` uses the test pair.
 */
export async function pushTarget(ctx: Context, opts: Pick<PushOptions, 'test' | 'flexUrl' | 'pushTokenStdin'>): Promise<PushTarget> {
  const settings = await ctx.settings();
  const test = opts.test === true;
  const flexUrl = checkUrl(opts.flexUrl || settings.require(test ? 'flex-test-url' : 'flex-url', '--flex-url'), test ? 'flex-test-url' : 'flex-url');
  const token = opts.pushTokenStdin
    ? await secretFromStdin(ctx, '--push-token-stdin')
    : settings.require(test ? 'push-test-token' : 'push-token', '--push-token-stdin');
  ctx.addSecret(token);
  // The path carries the token percent-encoded; that form must not be printed either.
  ctx.addSecret(encodeURIComponent(token));
  return { flexUrl, token, environment: test ? 'test' : 'live' };
}
