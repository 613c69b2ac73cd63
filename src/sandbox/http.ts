import type { IncomingMessage } from 'node:http';
import type { Engine } from './types.js';
import type { RefusalKind } from './variants.js';

/** What a handler answers: the router serialises it. `drop` destroys the socket instead. */
export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Destroy the connection instead of answering (the body has been read). */
  drop?: boolean;
  /** Send these bytes as is (`text/plain`) instead of `body` as JSON. */
  raw?: string;
  /** What kind of refusal this envelope is, so the router can apply the variants (variants.ts). */
  refusal?: RefusalKind;
}

export interface RouteContext {
  engine: Engine;
  req: IncomingMessage;
  method: string;
  /** Path without the query. */
  path: string;
  query: URLSearchParams;
  rawBody: Buffer;
  /** The body parsed as JSON; throws `HttpError` 400 on invalid JSON. */
  json(): unknown;
  /** Path parameters captured by the route (e.g. the push token). */
  params: Record<string, string>;
}

export type Handler = (ctx: RouteContext) => Reply | Promise<Reply>;

/** An error a handler throws to answer with a given HTTP status and envelope. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** The envelope's success: HTTP 200, `{data, status: 'OK', code: 200}`. */
export function ok(data: unknown): Reply {
  return { status: 200, body: { data, status: 'OK', code: 200 } };
}

/**
 * The envelope of a refusal, as the spec gives it (Errors 1: "Cloud endpoints report the outcome
 * in `status` and `code` of the envelope"): `{data, status: <the reason text>, code}`. `data` is
 * null, or what is useful (e.g. which entries were invalid). HTTP 200 by default: the service
 * reports outcomes in the envelope. No `message`: the spec does not give cloud envelopes one.
 */
export function fail(code: number, text: string, httpStatus = 200, data?: unknown): Reply {
  return {
    status: httpStatus,
    body: { data: data ?? null, status: text, code },
    refusal: httpStatus === 200 ? 'refusal' : 'transport',
  };
}

export const badRequest = (message: string, data?: unknown) => fail(400, message, 200, data);
export const notFound = (message: string) => fail(404, message, 200);

/** Largest request body accepted (413 beyond). 10,000 entries take a few MB. */
export const MAX_BODY_BYTES = 64 * 1024 * 1024;

/**
 * Reads the whole body. Past `MAX_BODY_BYTES` the rest is read and discarded, then it rejects
 * with HttpError 413 (so the client gets an answer rather than a reset).
 */
export function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let ended = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', () => {
      ended = true;
      if (size > MAX_BODY_BYTES) reject(new HttpError(413, 413, `request body larger than ${MAX_BODY_BYTES} bytes`));
      else resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
    });
    req.on('error', reject);
    req.on('close', () => {
      if (!ended) reject(new Error('request aborted'));
    });
  });
}

/** Parses JSON, answering HTTP 400 (envelope code 400) on invalid JSON. */
export function parseJson(raw: Buffer): unknown {
  if (raw.length === 0) throw new HttpError(400, 400, 'request body is empty; expected JSON');
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch (e) {
    throw new HttpError(400, 400, `invalid JSON body: ${(e as Error).message}`);
  }
}

/** A plain JSON object (not an array or null), or an envelope error naming what was expected. */
export function objectBody(ctx: RouteContext): Record<string, unknown> {
  const body = ctx.json();
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new HttpError(200, 400, 'request body must be a JSON object');
  }
  return body as Record<string, unknown>;
}

/** The first issue of a zod error as `path: message`. */
export function describeIssue(issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>, prefix = ''): string {
  const issue = issues[0];
  if (!issue) return 'invalid';
  const path = issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('');
  const where = `${prefix}${path}`.replace(/^\./, '');
  return where ? `${where}: ${issue.message}` : issue.message;
}
