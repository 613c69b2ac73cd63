import { runSignCommand, SignCommandError } from './sign-command.js';
import { defaultServiceSign } from './sign.js';

/**
 * Where `X-Service-Sign` comes from, in the order README gives ("How callctl reads the spec's gaps"): an
 * explicit signature, an external command given the exact body, or the built-in default
 * (HMAC-SHA256 hex of the raw body, an assumption) with a secret from a file or the environment.
 */
export type SignatureSource =
  | { kind: 'explicit'; value: string }
  | { kind: 'command'; command: string }
  | { kind: 'default'; secret: string; from: string };

/** How long `--sign-command` of template send may take. */
export const SEND_SIGN_COMMAND_TIMEOUT_MS = 10_000;

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
 * Runs the sign command (src/signing/sign-command.ts) with the exact body on stdin and returns
 * its stdout, trimmed. A failure, or more than one line, is a SignCommandError (the command
 * names its flag).
 */
export async function runSendSignCommand(
  command: string,
  body: Buffer,
  timeoutMs = SEND_SIGN_COMMAND_TIMEOUT_MS,
): Promise<string> {
  const sign = await runSignCommand(command, body, timeoutMs);
  if (/[\r\n]/.test(sign)) throw new SignCommandError({ kind: 'lines' });
  return sign;
}
