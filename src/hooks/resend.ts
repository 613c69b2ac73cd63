import type { Transport } from '../api/transport.js';
import { recordBody, type HookRecord, type StoredEvent } from '../store/events.js';
import { runSignCommand } from '../signing/sign-command.js';
import { defaultServiceSign } from '../signing/sign.js';
import { post, signedAs, type SendOutcome } from './send.js';

/*
 * Sending a recorded event again (`hooks replay`, and the inspector's "send again"): the same
 * rules for both, kept here.
 */

/**
 * Whether a record is an event to send again: a JSON body that was not refused or rejected, and
 * the first arrival (retries of the same event are not sent twice).
 */
export function replayable(r: HookRecord): boolean {
  return (
    r.type !== null &&
    r.body !== undefined &&
    !r.duplicate &&
    r.verdict !== 'rejected' &&
    r.verdict !== 'unavailable' &&
    r.status === 200
  );
}

/**
 * Whether callctl stands behind a record's authenticity: verified on arrival, or of a type the
 * spec does not sign. Only verified events are signed again; an event that was not verified
 * (no secret at the time, `--skip-verify`) is never made to look verified.
 */
export function vouched(r: HookRecord): boolean {
  return r.verdict === 'verified' || r.verdict === 'unsigned';
}

export interface ResendOptions {
  /** How chatbot events verified on arrival are signed again (the log never keeps X-Service-Sign). */
  chatbot: { secret?: string; command?: string };
  /** Also send events that were not verified on arrival, as they came (never signed by callctl). */
  includeUnverified?: boolean;
  /** Signs what is sent as forwards are (Standard Webhooks, the same webhook-id), when given. */
  key?: Buffer;
}

export type Resent =
  /** Not sent: not an event to send again, or not verified on arrival and not asked for. */
  | { skipped: 'not replayable' | 'not verified' }
  /** Sent; `unsigned`: a chatbot event verified on arrival went without X-Service-Sign (no secret or command). */
  | { outcome: SendOutcome; unsigned: boolean };

/** Sends one recorded event again to `to`, byte for byte with its Content-Type and User-Agent. */
export async function resend(
  transport: Transport,
  to: string,
  { id, record: r }: Pick<StoredEvent, 'id' | 'record'>,
  options: ResendOptions,
): Promise<Resent> {
  if (!replayable(r)) return { skipped: 'not replayable' };
  const trusted = vouched(r);
  if (!trusted && !options.includeUnverified) return { skipped: 'not verified' };
  const body = recordBody(r);
  const headers: Record<string, string> = { 'content-type': r.headers['content-type'] ?? 'application/json' };
  if (r.headers['user-agent']) headers['user-agent'] = r.headers['user-agent'];
  let unsigned = false;
  // Not verified on arrival (includeUnverified): sent as it came, without a signature of ours.
  if (trusted && 'x-service-sign' in r.headers) {
    const { chatbot } = options;
    if (chatbot.command) headers['x-service-sign'] = await runSignCommand(chatbot.command, body).catch(() => '');
    else if (chatbot.secret) headers['x-service-sign'] = defaultServiceSign(body, chatbot.secret);
    else unsigned = true;
    if (headers['x-service-sign'] === '') delete headers['x-service-sign'];
  }
  // Signed as its forward was, with the same webhook-id (the app drops it if it has it already).
  const sign = signedAs(options.key, `${id}@${r.time}`, r.verdict);
  return { outcome: await post(transport, to, body, headers, sign), unsigned };
}
