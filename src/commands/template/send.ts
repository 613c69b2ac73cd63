import { UsageError } from '../../errors.js';
import type { Context } from '../../context.js';
import { redact } from '../../redact.js';
import { deliver } from '../../reach/deliver.js';
import type { SignatureSource } from '../../signing/service-sign.js';
import type { Problem } from '../../csv/problems.js';
import { signatureSource, withSignFlag } from '../shared/signature.js';
import { SECRET_ENV } from '../../config/keys.js';
import {
  buildTemplate,
  prepareTemplate,
  REPLY_URL_MISSING,
  recipient,
  templateAnswer,
  templateEndpoint,
  templateError,
  type TemplateTarget,
} from '../../reach/template.js';
import { collectVariables } from '../shared/variables.js';
import {
  confirmSend,
  invalidInput,
  printDryRun,
  refuseCsvOnlyFlags,
  summaryLines,
  type SendOptions,
} from '../shared/send-ui.js';

export interface TemplateSendOptions extends SendOptions {
  templateId: number;
  channel?: string;
  channelId?: string;
  userId: string;
  var?: string[];
  varsFile?: string;
  replyUrl?: string;
  timestamp?: number;
  signature?: string;
  signCommand?: string;
  signSecretFile?: string;
}

/** Runs `template send`. */
export async function runTemplateSend(ctx: Context, opts: TemplateSendOptions): Promise<number> {
  // Run by cron: without a terminal, the final error line carries its time too (src/main.ts).
  ctx.timedLines = true;
  if (opts.csv) {
    if (opts.signature !== undefined)
      throw new UsageError(
        '--signature does not go with --csv: a signature is bound to one body; use --sign-command or the default',
      );
    const { runTemplateCsv } = await import('./send-csv.js');
    return runTemplateCsv(ctx, opts);
  }
  refuseCsvOnlyFlags(opts);
  if (!opts.channel) throw new UsageError('missing --channel');
  if (!opts.channelId) throw new UsageError('missing --channel-id (or --csv FILE for many)');
  const target = await resolveTemplateTarget(ctx, opts);
  const built = buildTemplate({
    template_id: opts.templateId,
    timestamp: opts.timestamp ?? Math.floor(ctx.io.now() / 1000),
    channel: opts.channel,
    channel_id: opts.channelId,
    user_id: opts.userId,
    variable: collectVariables(opts.var, opts.varsFile),
    reply_url: opts.replyUrl,
  });
  if (!built.ok)
    throw invalidInput(ctx, 'invalid template message', withReplyUrlHint(built.problems, '--reply-url URL'));
  const body = built.body;
  if (opts.dryRun) {
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
  const d = await deliver(await ctx.transport(), req, templateAnswer);
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
  out.success(`message sent (${recipient(body)})${d.id ? `, task_id ${d.id}` : ''}`);
  return 0;
}

/** Base URL, API key (environment or profile; a secret) and the signature source. */
export async function resolveTemplateTarget(
  ctx: Context,
  opts: Pick<TemplateSendOptions, 'signature' | 'signCommand' | 'signSecretFile'>,
): Promise<TemplateTarget> {
  const baseUrl = await ctx.baseUrl();
  const settings = await ctx.settings();
  const signKey = settings.require('sign-key');
  ctx.addSecret(signKey);
  const signature = await signatureWithFallback(ctx, opts, settings.stored()['sign-secret']);
  if (signature.kind === 'default') ctx.addSecret(signature.secret);
  return { baseUrl, signKey, signature };
}

/**
 * The signature source of `signatureSource` (flag, sign command, secret file, environment); when
 * none is given, the secret stored in the profile (`config set sign-secret --stdin`), else a
 * masked prompt on a terminal.
 */
async function signatureWithFallback(
  ctx: Context,
  opts: Pick<TemplateSendOptions, 'signature' | 'signCommand' | 'signSecretFile'>,
  stored: string | undefined,
): Promise<SignatureSource> {
  const env = ctx.io.env;
  const given =
    opts.signature !== undefined ||
    opts.signCommand !== undefined ||
    Boolean(opts.signSecretFile) ||
    Boolean(env[SECRET_ENV.signSecret]) ||
    Boolean(env[SECRET_ENV.signSecretFile]);
  if (given || (!stored && !ctx.canPrompt())) return signatureSource(opts, env);
  if (stored) return { kind: 'default', secret: stored, from: 'profile sign-secret' };
  const secret = await ctx.io.prompter.password('X-Service-Sign secret');
  if (!secret) throw new UsageError('no X-Service-Sign secret given');
  return { kind: 'default', secret, from: 'prompt' };
}

/** The problem of a missing reply_url, with where one is given (`hint`). */
export function withReplyUrlHint(problems: readonly Problem[], hint: string): Problem[] {
  return problems.map((p) => (p.message === REPLY_URL_MISSING ? { ...p, message: `${p.message} (${hint})` } : p));
}
