import type { IncomingMessage } from 'node:http';
import type { Engine, RequestRecord } from './types.js';

/** Starts the record of a request and counts it. */
export function startRecord(engine: Engine, req: IncomingMessage, routeKey: string): RequestRecord {
  const { state, requests, options } = engine;
  state.counters.requests++;
  state.counters.byRoute[routeKey] = (state.counters.byRoute[routeKey] ?? 0) + 1;
  const record: RequestRecord = {
    seq: state.counters.requests,
    method: req.method ?? 'GET',
    path: req.url ?? '/',
    time: Date.now(),
    headers: req.headers,
    body: '',
    bodyBytes: 0,
    bodyTruncated: false,
    outcome: 'answered',
    durationMs: 0,
  };
  requests.push(record);
  // Trimmed in slices, so a long run does not pay a splice per request.
  const max = options.maxRequestRecords;
  if (requests.length > max + Math.ceil(max / 10)) requests.splice(0, requests.length - max);
  return record;
}

/** Keeps the body text up to the size cap (a 10,000-entry batch is not copied whole). */
export function recordBody(engine: Engine, record: RequestRecord, raw: Buffer): void {
  const cap = engine.options.maxRecordedBodyBytes;
  record.bodyBytes = raw.length;
  record.bodyTruncated = raw.length > cap;
  record.body = raw.subarray(0, cap).toString('utf8');
}

/** A copy of a record fit to leave the process: tokens, secrets and signatures redacted. */
export function redactRecord(r: RequestRecord): RequestRecord {
  const headers = { ...r.headers };
  for (const name of ['authorization', 'x-service-sign', 'x-service-sign-key']) {
    if (headers[name] !== undefined) headers[name] = name === 'authorization' ? 'Token <redacted>' : '<redacted>';
  }
  return {
    ...r,
    headers,
    path: redactPath(r.path),
    body: r.body.replace(/("APPSecret"\s*:\s*)"(?:[^"\\]|\\.)*"/g, '$1"<redacted>"'),
  };
}

/** The push token is a path segment: replace it. */
export function redactPath(path: string): string {
  return path.replace(/(\/api\/push\/)[^/?]+/, '$1<token>');
}
