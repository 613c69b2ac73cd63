import { Transport, type TransportOptions } from '../api/transport.js';
import { NetworkError } from '../errors.js';
import { USER_AGENT } from '../version.js';
import { webhookHeaders } from '../signing/webhook.js';
import { REDACTED } from '../redact.js';
import { recordBody, type HookRecord } from '../store/events.js';

/** `--forward-to`: retries after a failed attempt (the transport's back-off) and the timeout of each. */
const FORWARD_RETRIES = 3;
const FORWARD_TIMEOUT_MS = 10_000;

/** Headers that belong to one connection, not to the message, and are never passed on. */
const HOP_BY_HOP = new Set([
  'host',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
  'te',
  'trailer',
  'upgrade',
  'proxy-authorization',
  'proxy-connection',
  'expect',
]);

/** The header that tells the app behind serve-hooks what callctl found of a forwarded event. */
export const VERDICT_HEADER = 'x-callctl-verdict';
/** A forwarded event's number, as the live view, `hooks events` and `hooks show` give it. */
export const EVENT_HEADER = 'x-callctl-event';
/**
 * A forwarded event's id: its number and its first arrival's time, the same on every attempt by
 * any receiver and different for different events (as Standard Webhooks' `webhook-id`).
 */
export const EVENT_ID_HEADER = 'x-callctl-event-id';
/** Which attempt at forwarding the event this is (1 for the first), counted across receivers. */
export const ATTEMPT_HEADER = 'x-callctl-attempt';

/**
 * The headers of a received request that are sent on with its bytes. `X-Callctl-*` and `Webhook-*`
 * headers that came with the request are dropped: only callctl sets them (a sender can claim
 * neither a verdict nor a signature).
 */
export function passOnHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (value === undefined || HOP_BY_HOP.has(lower) || /^(x-callctl|webhook)-/.test(lower)) continue;
    out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/** A recorded request's bytes, and the headers its forward carries (a redacted value was never kept). */
export function recorded(record: HookRecord): { raw: Buffer; headers: Record<string, string> } {
  const headers = Object.fromEntries(Object.entries(record.headers).filter(([, v]) => v !== REDACTED));
  return {
    raw: recordBody(record),
    headers: { ...passOnHeaders(headers), [VERDICT_HEADER]: record.verdict ?? 'unsigned' },
  };
}

/**
 * How a forward or a replay of an event is signed (Standard Webhooks, `id` its webhook-id): with
 * `key`, when callctl stands behind the event (its verdict `verified`, or `unsigned`: a type the
 * spec does not sign). Any other goes unsigned: a signature never makes it look verified.
 */
export function signedAs(key: Buffer | undefined, id: string, verdict: string | undefined): Pick<PostOptions, 'sign'> {
  return key && (verdict === 'verified' || verdict === 'unsigned') ? { sign: { key, id } } : {};
}

/** A transport for sending notifications on (the shared one, with the forwarding defaults). */
export function notificationTransport(options: Partial<TransportOptions> = {}): Transport {
  return new Transport({
    userAgent: USER_AGENT,
    timeoutMs: FORWARD_TIMEOUT_MS,
    maxRetries: FORWARD_RETRIES,
    sleep: (ms) => new Promise<void>((r) => setTimeout(r, ms)),
    secrets: () => [],
    ...options,
  });
}

export interface SendAnswer {
  status: number;
  /** The answer's body, at most 4 KiB of it. */
  body: string;
  ms: number;
}

export interface SendOutcome {
  answer?: SendAnswer;
  error?: string;
  attempts: number;
}

export interface PostOptions {
  /** `idempotent` retries network errors, 429 and 5xx (forwarding, replay); `never` sends once. */
  retry?: 'idempotent' | 'never';
  /** Told of each failed attempt before the wait. */
  onRetry?: (attempt: number, failure: ({ status: number } | { error: string }) & { waitMs?: number }) => void;
  /** Cuts the delivery (and its retries) when it aborts. */
  signal?: AbortSignal;
  /** A header carrying each attempt's number, counted from `first`. */
  attemptHeader?: { name: string; first: number };
  /** Signs each attempt as Standard Webhooks defines (its own timestamp), `id` its webhook-id. */
  sign?: { key: Buffer; id: string };
}

/**
 * POSTs exact bytes with exact headers through the shared transport. Never throws: the outcome
 * says how it ended. Messages name the origin only (a path may carry a secret segment).
 */
export async function post(
  transport: Transport,
  url: string,
  body: Buffer,
  headers: Record<string, string>,
  options: PostOptions = {},
): Promise<SendOutcome> {
  const started = performance.now();
  const { attemptHeader, sign } = options;
  try {
    const res = await transport.send({
      method: 'POST',
      url,
      body,
      headers,
      exactHeaders: true,
      retry: options.retry ?? 'idempotent',
      endpoint: `POST ${new URL(url).origin}`,
      onRetry: options.onRetry,
      ...(options.signal ? { signal: options.signal } : {}),
      attemptHeaders: (attempt) => ({
        ...(attemptHeader ? { [attemptHeader.name]: String(attemptHeader.first + attempt - 1) } : {}),
        ...(sign ? webhookHeaders(sign.key, sign.id, body) : {}),
      }),
    });
    return {
      answer: { status: res.status, body: res.text.slice(0, 4096), ms: Math.round(performance.now() - started) },
      attempts: res.attempts,
    };
  } catch (error) {
    if (!(error instanceof NetworkError)) throw error;
    return { error: error.message, attempts: Number(error.details.attempts ?? 1) };
  }
}
