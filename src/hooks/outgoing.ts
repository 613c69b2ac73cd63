import type { EventType } from '../schemas/events.js';
import { runSignCommand } from '../signing/sign-command.js';
import { defaultServiceSign, planSign, taskSign } from '../signing/sign.js';
import { flipChar } from './samples.js';

type Json = Record<string, unknown>;

/** How a chatbot `X-Service-Sign` is made, in README's order: explicit, command, default HMAC. */
export interface ServiceSigner {
  signature?: string;
  command?: string;
  secret?: string;
}

export interface SignOptions {
  /** KEY for plan and task `Sign`. */
  key?: string;
  chatbot?: ServiceSigner;
  /** For negative tests: a wrong signature, or a body changed after signing. */
  tamper?: 'sign' | 'body';
  userAgent?: string;
}

export interface OutgoingRequest {
  body: Buffer;
  headers: Record<string, string>;
}

/** Types whose notifications carry a signature the spec defines (in the body or a header). */
export const SIGNED_TYPES: ReadonlySet<EventType> = new Set([
  'plan.end',
  'task.end',
  'chatbot.session_closed',
  'chatbot.transfer',
]);

/** Thrown when a signature cannot be made; the message names what is missing. */
export class SignError extends Error {}

/**
 * Serialises `body` and signs it as the spec says: plan and task `Sign` in the body (a `Sign`
 * already set is kept), chatbot `X-Service-Sign` over the exact bytes. `body` is changed in place.
 */
export async function signNotification(
  type: EventType,
  body: Json,
  options: SignOptions = {},
): Promise<OutgoingRequest> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': options.userAgent ?? 'callctl',
  };
  if (type === 'plan.end' || type === 'task.end') {
    const field = type === 'plan.end' ? 'Timestamp' : 'TaskID';
    if (!body.Sign) {
      if (!options.key) throw new SignError(`a KEY is needed to sign ${type}`);
      const value = String(body[field] ?? '');
      body.Sign = type === 'plan.end' ? planSign(value, options.key) : taskSign(value, options.key);
    }
    if (options.tamper === 'sign') body.Sign = flipChar(String(body.Sign));
    if (options.tamper === 'body') {
      const value = body[field];
      body[field] = typeof value === 'number' ? value + 1 : flipChar(String(value ?? ''));
    }
    return { body: Buffer.from(JSON.stringify(body), 'utf8'), headers };
  }
  if (options.tamper && !SIGNED_TYPES.has(type)) throw new SignError(`${type} is not signed: --tamper does not apply`);
  let raw = Buffer.from(JSON.stringify(body), 'utf8');
  if (type === 'chatbot.session_closed' || type === 'chatbot.transfer') {
    const signer = options.chatbot ?? {};
    const sign =
      signer.signature ??
      (signer.command ? await runSignCommand(signer.command, raw) : undefined) ??
      (signer.secret ? defaultServiceSign(raw, signer.secret) : undefined);
    if (options.tamper && !sign)
      throw new SignError(`no X-Service-Sign to tamper with: give a chatbot secret, --sign-command or --service-sign`);
    if (sign !== undefined) headers['x-service-sign'] = options.tamper === 'sign' ? flipChar(sign) : sign;
    if (options.tamper === 'body') {
      body.call_id = flipChar(String(body.call_id ?? ''));
      raw = Buffer.from(JSON.stringify(body), 'utf8');
    }
  }
  return { body: raw, headers };
}
