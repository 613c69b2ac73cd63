import { ENVELOPE_OK } from '../schemas/formats.js';
import type { HttpResponse } from './transport.js';

/**
 * The envelope of a `/service/cloud/` answer, read as the spec gives it (Errors, 1): the outcome's
 * text is `status`, its number `code`; success is `OK` with `200`. A `message` is not in the spec
 * but is kept when a service adds one.
 */
export interface Envelope {
  code?: number;
  status?: string;
  message?: string;
  data?: unknown;
}

/** How an answer of a cloud endpoint is taken (the reading of the spec's gaps lives here). */
export type Verdict =
  | { kind: 'ok'; envelope: Envelope }
  /** 401 or 403 as HTTP status or envelope code: the token (or the app key and secret) was rejected. */
  | { kind: 'rejected'; envelope?: Envelope }
  /** 5xx, 429 or 408 as HTTP status or envelope code: may pass by itself. */
  | { kind: 'transient'; envelope?: Envelope }
  /** Any other code, or `status` not `OK` (the list update's 200 error variant, verify-push's 200 exception variant). */
  | { kind: 'refused'; envelope: Envelope }
  /** A body that is not JSON, or JSON without `code` or `status`. */
  | { kind: 'not-envelope' };

export const REJECTED_CODES: ReadonlySet<number> = new Set([401, 403]);

/** HTTP's own numbers only: a service code such as 500100 is the service's, not a 5xx. */
export function isTransientCode(code: number | undefined): boolean {
  return code !== undefined && (code === 408 || code === 429 || (code >= 500 && code <= 599));
}

/** The body as an envelope, or undefined when it is not JSON or has neither `code` nor `status`. */
export function readEnvelope(text: string): Envelope | undefined {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json)) return undefined;
  const o = json as Record<string, unknown>;
  const code = typeof o.code === 'number' && Number.isInteger(o.code) ? o.code : undefined;
  // Some services send the code as text ("403"); read it as the number it names.
  const codeText = typeof o.code === 'string' && /^\d{1,4}$/.test(o.code) ? Number(o.code) : undefined;
  const status = typeof o.status === 'string' ? o.status : undefined;
  if (code === undefined && codeText === undefined && status === undefined) return undefined;
  const message = typeof o.message === 'string' ? o.message : typeof o.msg === 'string' ? o.msg : undefined;
  return { code: code ?? codeText, status, ...(message !== undefined ? { message } : {}), data: o.data };
}

/** Reads one answer: HTTP status first (401/403, 5xx), then the envelope's code and status. */
export function judge(res: Pick<HttpResponse, 'status' | 'text'>): Verdict {
  const envelope = readEnvelope(res.text);
  if (REJECTED_CODES.has(res.status) || REJECTED_CODES.has(envelope?.code ?? 0)) return { kind: 'rejected', envelope };
  if (isTransientCode(res.status) || isTransientCode(envelope?.code)) return { kind: 'transient', envelope };
  if (!envelope) return { kind: 'not-envelope' };
  if (res.status === 200 && envelope.code === ENVELOPE_OK.code && envelope.status === ENVELOPE_OK.status)
    return { kind: 'ok', envelope };
  return { kind: 'refused', envelope };
}

/** For the transport's retry decision: an HTTP 200 carrying code 500 may pass as well as HTTP 500. */
export function transientAnswer(res: Pick<HttpResponse, 'status' | 'text'>): boolean {
  return judge(res).kind === 'transient';
}

/**
 * The service's own words: `code 403: token expired`, with the HTTP status when it is not 200 and
 * `message` when the service adds one that differs from `status`.
 */
export function describeAnswer(httpStatus: number, envelope: Envelope | undefined): string {
  const parts: string[] = [];
  if (httpStatus !== 200) parts.push(`HTTP ${httpStatus}`);
  if (envelope?.code !== undefined) parts.push(`code ${envelope.code}`);
  else if (envelope) parts.push('no code');
  let text = parts.join(', ');
  // One line: the service's text may hold line breaks.
  const status = oneLine(envelope?.status);
  if (status) text += `: ${status}`;
  const message = oneLine(envelope?.message);
  if (message && message !== status) text += status ? ` (${message})` : `: ${message}`;
  return text;
}

/** The first bytes of a body, on one line, for `--verbose` (the caller redacts). */
export function firstBytes(text: string, max = 200): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max)}...` : line;
}

/** Text on one line, for an error that is one line on stderr. */
export function oneLine(text: string | undefined): string | undefined {
  return text?.replace(/\s+/g, ' ').trim();
}
