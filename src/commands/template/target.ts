import { UsageError } from '../../errors.js';
import type { Context } from '../../context.js';
import type { SignatureSource } from '../../signing/service-sign.js';
import type { Problem } from '../../csv/problems.js';
import { signatureSource } from '../shared/signature.js';
import { SECRET_ENV } from '../../config/keys.js';
import { REPLY_URL_MISSING, type TemplateTarget } from '../../reach/template.js';
import type { SendOptions } from '../shared/send-ui.js';
import { said } from '../../said.js';

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
  const keyFrom =
    settings.resolve('sign-key').source === 'env' ? 'CALLCTL_SIGN_KEY' : `profile ${ctx.profile}'s sign-key`;
  const sources = [
    { what: 'X-Service-Sign-Key', from: keyFrom, key: 'sign-key' },
    signature.kind === 'default'
      ? { what: 'the X-Service-Sign secret', from: signature.from, key: 'sign-secret' }
      : { what: 'X-Service-Sign', from: signature.kind === 'command' ? '--sign-command' : '--signature' },
  ];
  return { baseUrl, signKey, signature, sources };
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
  if (!secret) throw new UsageError(said`no X-Service-Sign secret given`);
  return { kind: 'default', secret, from: 'prompt' };
}

/** The problem of a missing reply_url, with where one is given (`hint`). */
export function withReplyUrlHint(problems: readonly Problem[], hint: string): Problem[] {
  return problems.map((p) => (p.message === REPLY_URL_MISSING ? { ...p, message: `${p.message} (${hint})` } : p));
}
