import { spawn } from 'node:child_process';
import { UsageError } from '../errors.js';
import { SECRET_ENV } from '../config/keys.js';
import { readSecretFile, secretFromEnv } from '../config/settings.js';
import { defaultServiceSign } from '../hooks/sign.js';

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

/** How long `--sign-command` may take. */
export const SIGN_COMMAND_TIMEOUT_MS = 10_000;

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
  if (opts.signSecretFile) return { kind: 'default', secret: readSecretFile(opts.signSecretFile, '--sign-secret-file'), from: '--sign-secret-file' };
  const secret = secretFromEnv(env, SECRET_ENV.signSecret, SECRET_ENV.signSecretFile);
  if (secret) return { kind: 'default', secret, from: env[SECRET_ENV.signSecret] ? SECRET_ENV.signSecret : SECRET_ENV.signSecretFile };
  throw new UsageError(
    `missing X-Service-Sign: give --signature, --sign-command CMD, --sign-secret-file FILE, ${SECRET_ENV.signSecret} or ${SECRET_ENV.signSecretFile}`,
  );
}

/** The `X-Service-Sign` value for these exact body bytes. */
export async function signBody(source: SignatureSource, body: Buffer): Promise<string> {
  switch (source.kind) {
    case 'explicit':
      return source.value;
    case 'command':
      return runSignCommand(source.command, body);
    case 'default':
      return defaultServiceSign(body, source.secret);
  }
}

/**
 * Runs `--sign-command` through the shell with the exact body on stdin and returns its stdout,
 * trimmed. Its stderr is not shown (it could hold the secret); a failure is a usage error.
 */
export function runSignCommand(command: string, body: Buffer, timeoutMs = SIGN_COMMAND_TIMEOUT_MS): Promise<string> {
  return new Promise((resolve, reject) => {
    const fail = (why: string) => reject(new UsageError(`--sign-command ${why}`));
    const child = spawn(command, { shell: true, stdio: ['pipe', 'pipe', 'ignore'], timeout: timeoutMs });
    const out: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.on('error', (error) => fail(`could not start (${(error as NodeJS.ErrnoException).code ?? 'error'})`));
    child.on('close', (code, signal) => {
      if (signal) return fail(`was stopped (${signal}${signal === 'SIGTERM' ? `, over ${timeoutMs / 1000} s?` : ''})`);
      if (code !== 0) return fail(`exited with code ${code}`);
      const sign = Buffer.concat(out).toString('utf8').trim();
      if (!sign) return fail('printed nothing');
      if (/[\r\n]/.test(sign)) return fail('printed more than one line');
      resolve(sign);
    });
    // A command that does not read its stdin closes the pipe early; that is its business.
    child.stdin.on('error', () => {});
    child.stdin.end(body);
  });
}
