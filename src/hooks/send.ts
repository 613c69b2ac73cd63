import type { Dispatcher } from 'undici';
import { FORWARD_BACKOFF_MS, FORWARD_RETRIES, FORWARD_TIMEOUT_MS } from './defaults.js';

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

/** The headers of a received request that are sent on with its bytes. */
export function passOnHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name.toLowerCase())) continue;
    out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

export interface SendAnswer {
  status: number;
  /** The answer's body, at most 4 KiB of it. */
  body: string;
  ms: number;
}

export interface SendOptions {
  dispatcher?: Dispatcher;
  timeoutMs?: number;
}

let localAgent: Dispatcher | undefined;

/** POSTs exact bytes with exact headers; no retry. Throws on network errors and timeouts. */
export async function postRaw(url: string, body: Buffer, headers: Record<string, string>, options: SendOptions = {}): Promise<SendAnswer> {
  const { request, Agent } = await import('../api/undici.js');
  localAgent ??= new Agent({ keepAliveTimeout: 5_000 });
  const timeoutMs = options.timeoutMs ?? FORWARD_TIMEOUT_MS;
  const started = performance.now();
  const res = await request(url, {
    method: 'POST',
    headers,
    body,
    dispatcher: options.dispatcher ?? localAgent,
    signal: AbortSignal.timeout(timeoutMs),
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });
  const text = (await res.body.text()).slice(0, 4096);
  return { status: res.statusCode, body: text, ms: Math.round(performance.now() - started) };
}

/** Whether an answer is worth another try: timeouts, rate limits and server errors. */
export const retryableStatus = (status: number) => status === 408 || status === 429 || status >= 500;

export interface RetryOptions extends SendOptions {
  retries?: number;
  backoffMs?: number;
  sleep?: (ms: number) => Promise<void>;
  /** Told of each failed attempt before the wait. */
  onAttempt?: (attempt: number, outcome: SendAnswer | Error) => void;
}

export interface SendOutcome {
  answer?: SendAnswer;
  error?: string;
  attempts: number;
}

/**
 * POSTs with retries on network errors and retryable statuses, back-off doubling from
 * `backoffMs`. Never throws: the outcome says how it ended.
 */
export async function postWithRetry(
  url: string,
  body: Buffer,
  headers: Record<string, string>,
  options: RetryOptions = {},
): Promise<SendOutcome> {
  const retries = options.retries ?? FORWARD_RETRIES;
  const backoff = options.backoffMs ?? FORWARD_BACKOFF_MS;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  for (let attempt = 1; ; attempt++) {
    let outcome: SendAnswer | Error;
    try {
      outcome = await postRaw(url, body, headers, options);
    } catch (error) {
      outcome = new Error(describeError(error));
    }
    const failed = outcome instanceof Error || retryableStatus(outcome.status);
    if (!failed || attempt > retries) {
      return outcome instanceof Error ? { error: outcome.message, attempts: attempt } : { answer: outcome, attempts: attempt };
    }
    options.onAttempt?.(attempt, outcome);
    await sleep(backoff * 2 ** (attempt - 1));
  }
}

/** A one-line description of a network error, without URLs (they may carry a secret path). */
export function describeError(error: unknown): string {
  const e = error as { code?: string; name?: string; cause?: { code?: string }; message?: string };
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') return 'timed out';
  const code = e?.code ?? e?.cause?.code;
  return code ? `network error ${code}` : 'network error';
}
