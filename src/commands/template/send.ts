import { UsageError } from '../../errors.js';
import type { Context } from '../../context.js';
import { redact } from '../../redact.js';
import { deliver } from '../../api/deliver.js';
import { peekOne, reachOne } from '../../reach/send-run.js';
import { withCredentialHint } from '../../reach/refused.js';
import { templateDestination } from '../../store/destination.js';
import { withSignFlag } from '../shared/signature.js';
import {
  buildTemplate,
  oldTemplateNames,
  rekeyRecipient,
  prepareTemplate,
  recipient,
  templateAnswer,
  templateEndpoint,
  templateError,
} from '../../reach/template.js';
import { collectVariables } from '../shared/variables.js';
import {
  confirmSend,
  invalidInput,
  printDryRun,
  printSkipped,
  refuseCsvOnlyFlags,
  regionOf,
  sendRules,
  summaryLines,
} from '../shared/send-ui.js';
import { resolveTemplateTarget, withReplyUrlHint, type TemplateSendOptions } from './target.js';
import { said } from '../../said.js';

export type { TemplateSendOptions };

/** Runs `template send`. */
export async function runTemplateSend(ctx: Context, opts: TemplateSendOptions): Promise<number> {
  // Run by cron: without a terminal, the final error line carries its time too (src/main.ts).
  ctx.stampLines = 'piped';
  if (opts.csv) {
    if (opts.signature !== undefined)
      throw new UsageError(
        said`--signature does not go with --csv: a signature is bound to one body; use --sign-command or the default`,
      );
    const { runTemplateCsv } = await import('./send-csv.js');
    return runTemplateCsv(ctx, opts);
  }
  refuseCsvOnlyFlags(opts);
  if (!opts.channel) throw new UsageError(said`missing --channel`);
  if (!opts.channelId) throw new UsageError(said`missing --channel-id (or --csv FILE for many)`);
  const target = await resolveTemplateTarget(ctx, opts);
  const reading = { region: await regionOf(ctx, opts), e164: opts.e164 === true };
  const built = buildTemplate(
    {
      template_id: opts.templateId,
      timestamp: opts.timestamp ?? Math.floor(ctx.io.now() / 1000),
      channel: opts.channel,
      channel_id: opts.channelId,
      user_id: opts.userId,
      variable: collectVariables(opts.var, opts.varsFile),
      reply_url: opts.replyUrl,
    },
    reading,
  );
  if (!built.ok)
    throw invalidInput(ctx, 'invalid template message', withReplyUrlHint(built.problems, '--reply-url URL'));
  const body = built.body;
  const store = await ctx.store(opts);
  const one = {
    destination: templateDestination(target.baseUrl, target.signKey, opts.templateId),
    person: built.person,
    who: `${opts.channel.trim()}:${opts.channelId.trim()}`,
    old: { ledger: oldTemplateNames(target, opts.templateId).ledger },
    rekey: rekeyRecipient(reading.region),
  };
  const rules = sendRules(ctx, opts);
  if (opts.dryRun) {
    const reachedAt = await peekOne(store, one, rules);
    if (reachedAt) return printSkipped(ctx, one, reachedAt, true);
    // An external signing command is not run for a dry run; the header shows *** either way.
    await printDryRun(
      ctx,
      [await prepareTemplate(target, body, target.signature.kind !== 'command')],
      `the message (${recipient(body)}) was not sent`,
    );
    return 0;
  }
  await confirmSend(
    ctx,
    summaryLines(`About to send a template message: ${templateEndpoint(target)}`, [
      ['template_id', String(body.template_id)],
      ['channel', body.channel],
      ['channel_id', body.channel_id],
      ['user_id', body.user_id],
      ['variable', body.variable],
      ['custom', body.custom],
    ]),
    'Send this message?',
    opts.yes,
  );
  const req = await withSignFlag(prepareTemplate(target, body));
  const transport = await ctx.transport();
  const sent = await reachOne(store, one, rules, async () =>
    withCredentialHint(await deliver(transport, req, templateAnswer), target.sources),
  );
  if (sent.outcome === 'skipped') return printSkipped(ctx, one, sent.reachedAt, false);
  const d = sent.delivery;
  if (d.outcome !== 'sent') throw templateError(target, body, d);
  const out = await ctx.output();
  if (d.warning && !opts.quiet) out.warn(redact(`${req.endpoint}: ${d.warning}`, [...ctx.secrets]));
  if (out.json) {
    out.writeJson(d.answer);
    return 0;
  }
  if (opts.quiet) return 0;
  out.record([
    ['request_id', d.answer.request_id],
    ['code', d.code],
    ['message', redact(d.message, [...ctx.secrets])],
    ['task_id', d.id],
  ]);
  out.success(said`message sent (${recipient(body)})${d.id ? `, task_id ${d.id}` : ''}`);
  return 0;
}
