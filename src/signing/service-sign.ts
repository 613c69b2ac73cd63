import { UsageError } from '../errors.js';
import { SECRET_ENV } from '../config/keys.js';
import { readSecretFile, secretFromEnv } from '../config/settings.js';
import { runSignCommand, SignCommandError } from './sign-command.js';
import { defaultServiceSign } from './sign.js';

/**
 * Where `X-Service-Sign` comes from, in the order of design.md ("Reading the spec's gaps"): an
 * explicit signature, an external command given the exact body, or the built-in default
 * (HMAC-SHA256 hex of the raw body, an assumption) with a secret from a file or the environment.
 */
export type SignatureSource =
  | { kind: 'explicit'; value: string }
  | { kind: 'command'; command: string }
  | { kind: 'default'; secret: string; from: string };

export interface SignatureOptions {
  signature?: string;
  signCommand?: string;
  signSecretFile?: string;
}

/** How long `--sign-command` of template send may take. */
export const SEND_SIGN_COMMAND_TIMEOUT_MS = 10_000;

/** Picks the first source given; none is a usage error naming every way. */
export function signatureSource(opts: SignatureOptions, env: Record<string, string | undefined>): SignatureSource {
  if (opts.signature !== undefined) {
    if (!opts.signature.trim()) throw new UsageError('--signature is empty');
    return { kind: 'explicit', value: opts.signature.trim() };
  }
  if (opts.signCommand !== undefined) {
    if (!opts.signCommand.trim()) throw new UsageError('--sign-command is empty');
    return { kind: 'command', command: opts.signCommand };
  }
  if (opts.signSecretFile)
    return {
      kind: 'default',
      secret: readSecretFile(opts.signSecretFile, '--sign-secret-file'),
      from: '--sign-secret-file',
    };
  const secret = secretFromEnv(env, SECRET_ENV.signSecret, SECRET_ENV.signSecretFile);
  if (secret)
    return {
      kind: 'default',
      secret,
      from: env[SECRET_ENV.signSecret] ? SECRET_ENV.signSecret : SECRET_ENV.signSecretFile,
    };
  throw new UsageError(
    `missing X-Service-Sign: give --signature, --sign-command CMD, --sign-secret-file FILE, ${SECRET_ENV.signSecret} or ${SECRET_ENV.signSecretFile}, or store the secret with \`callctl config set sign-secret --stdin\``,
  );
}

/** The `X-Service-Sign` value for these exact body bytes. */
export async function signBody(source: SignatureSource, body: Buffer): Promise<string> {
  switch (source.kind) {
    case 'explicit':
      return source.value;
    case 'command':
      return runSendSignCommand(source.command, body);
    case 'default':
      return defaultServiceSign(body, source.secret);
  }
}

/**
 * Runs `--sign-command` (src/signing/sign-command.ts) with the exact body on stdin and returns
 * its stdout, trimmed. A failure, or more than one line, is a usage error.
 */
export async function runSendSignCommand(
  command: string,
  body: Buffer,
  timeoutMs = SEND_SIGN_COMMAND_TIMEOUT_MS,
): Promise<string> {
  let sign: string;
  try {
    sign = await runSignCommand(command, body, timeoutMs);
  } catch (error) {
    if (!(error instanceof SignCommandError)) throw error;
    const why = error.why;
    const text =
      why.kind === 'start'
        ? `could not start (${why.errno})`
        : why.kind === 'signal'
          ? `was stopped (${why.signal}${why.signal === 'SIGTERM' ? `, over ${timeoutMs / 1000} s?` : ''})`
          : why.kind === 'exit'
            ? `exited with code ${why.code}`
            : 'printed nothing';
    throw new UsageError(`--sign-command ${text}`);
  }
  if (/[\r\n]/.test(sign)) throw new UsageError('--sign-command printed more than one line');
  return sign;
}
