import { UsageError } from '../../errors.js';
import { SECRET_ENV } from '../../config/keys.js';
import { readSecretFile, secretFromEnv } from '../../config/settings.js';
import type { SignatureSource } from '../../signing/service-sign.js';
import { SignCommandError } from '../../signing/sign-command.js';
import { said } from '../../said.js';

export interface SignatureOptions {
  signature?: string;
  signCommand?: string;
  signSecretFile?: string;
}

/** Picks the first source given; none is a usage error naming every way. */
export function signatureSource(opts: SignatureOptions, env: Record<string, string | undefined>): SignatureSource {
  if (opts.signature !== undefined) {
    if (!opts.signature.trim()) throw new UsageError(said`--signature is empty`);
    return { kind: 'explicit', value: opts.signature.trim() };
  }
  if (opts.signCommand !== undefined) {
    if (!opts.signCommand.trim()) throw new UsageError(said`--sign-command is empty`);
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
    said`missing X-Service-Sign: give --signature, --sign-command CMD, --sign-secret-file FILE, ${SECRET_ENV.signSecret} or ${SECRET_ENV.signSecretFile}, or store the secret with \`callctl config set sign-secret --stdin\``,
  );
}

/** A sign command's failure as the usage error naming `--sign-command` (exit 2); anything else as it is. */
export function signCommandFlagError(error: unknown): unknown {
  if (!(error instanceof SignCommandError)) return error;
  const why = error.why;
  const text =
    why.kind === 'start'
      ? `could not start (${why.errno})`
      : why.kind === 'timeout'
        ? `took over ${why.ms / 1000} s`
        : why.kind === 'signal'
          ? `was stopped (${why.signal})`
          : why.kind === 'exit'
            ? `exited with code ${why.code}`
            : why.kind === 'lines'
              ? 'printed more than one line'
              : 'printed nothing';
  return new UsageError(said`--sign-command ${text}`);
}

/** `promise`, its sign command's failure told as signCommandFlagError says. */
export function withSignFlag<T>(promise: Promise<T>): Promise<T> {
  return promise.catch((error: unknown) => {
    throw signCommandFlagError(error);
  });
}
