import { UsageError } from '../../errors.js';
import type { Context } from '../../context.js';
import type { SignatureSource } from '../../signing/service-sign.js';
import { signatureSource } from '../flags/signature.js';
import { SECRET_ENV } from '../../config/keys.js';
import type { TemplateTarget } from '../../reach/template.js';
import { said } from '../../said.js';

interface SignFlags {
  signature?: string;
  signCommand?: string;
  signSecretFile?: string;
}

/** Base URL, API key (environment or profile; a secret) and the signature source. */
export async function resolveTemplateTarget(ctx: Context, opts: SignFlags): Promise<TemplateTarget> {
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
  opts: SignFlags,
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
