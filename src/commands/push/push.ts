import { UsageError } from '../../errors.js';
import type { Context } from '../../context.js';
import { redact } from '../../redact.js';
import { deliver } from '../../api/deliver.js';
import { buildPush, oldPushNames, preparePush, pushAnswer, pushEndpoint, pushError } from '../../reach/push.js';
import { peekOne, reachOne } from '../../reach/send-run.js';
import { withCredentialHint } from '../../reach/refused.js';
import { pushDestination } from '../../store/destination.js';
import { collectVariables } from '../shared/variables.js';
import {
  confirmSend,
  invalidInput,
  printDryRun,
  printSkipped,
  refuseCsvOnlyFlags,
  sendRules,
  summaryLines,
} from '../shared/send-ui.js';
import { callerReading, rekeyCaller, resolvePushTarget, type PushOptions } from './target.js';
import { said } from '../../said.js';

export type { PushOptions };

/** Runs `push` (one call, or a CSV file with --csv). */
export async function runPush(ctx: Context, opts: PushOptions): Promise<number> {
  // Run by cron: without a terminal, the final error line carries its time too (src/main.ts).
  ctx.stampLines = 'piped';
  if (opts.csv) {
    if (opts.callerId)
      throw new UsageError(said`--caller-id and --csv do not go together: the CSV names one caller_id per row`);
    const { runPushCsv } = await import('./push-csv.js');
    return runPushCsv(ctx, opts);
  }
  refuseCsvOnlyFlags(opts);
  if (!opts.callerId?.trim()) throw new UsageError(said`missing --caller-id (or --csv FILE for many)`);
  const target = await resolvePushTarget(ctx, opts);
  const reading = await callerReading(ctx, opts);
  const built = buildPush(
    { caller_id: opts.callerId, client_name: opts.clientName, variables: collectVariables(opts.var, opts.varsFile) },
    reading,
  );
  if (!built.ok) throw invalidInput(ctx, 'invalid push', built.problems);
  const body = built.body;
  const req = preparePush(target, body);
  const store = await ctx.store(opts);
  const one = {
    destination: pushDestination(target.flexUrl, target.environment),
    person: built.person,
    who: opts.callerId.trim(),
    old: { ledger: oldPushNames(target).ledger },
    rekey: rekeyCaller(reading),
  };
  const rules = sendRules(ctx, opts);
  if (opts.dryRun) {
    const reachedAt = await peekOne(store, one, rules);
    if (reachedAt) return printSkipped(ctx, one, reachedAt, true);
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
  const transport = await ctx.transport();
  const sent = await reachOne(store, one, rules, async () =>
    withCredentialHint(await deliver(transport, req, pushAnswer), [target.tokenSource]),
  );
  if (sent.outcome === 'skipped') return printSkipped(ctx, one, sent.reachedAt, false);
  const d = sent.delivery;
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
    said`call pushed for ${body.caller_id}${target.environment === 'test' ? ' (test)' : ''}${d.id ? `, trace_id ${d.id}` : ''}`,
  );
  return 0;
}
