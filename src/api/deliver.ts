import type { z } from 'zod';
import { NetworkError } from '../errors.js';
import { SEND_SUCCESS_CODES } from '../limits.js';
import type { HttpResponse, Transport } from './transport.js';

/** One request that places a call or sends a message, ready to go. */
export interface PreparedRequest {
  url: string;
  /** Free of secrets: `POST https://flex.example/api/push/***`. */
  endpoint: string;
  headers: Record<string, string>;
  /** The exact bytes sent (and signed). */
  body: Buffer;
}

/**
 * What came of one send. Only `uncertain` leaves it unknown whether a person was reached. `sent`
 * with a `warning`: the service accepted it, but its answer was not the shape the spec gives.
 */
export type Delivery =
  | {
      outcome: 'sent';
      httpStatus: number;
      code?: number;
      message: string;
      id: string;
      answer: Record<string, unknown>;
      warning?: string;
    }
  | { outcome: 'failed'; httpStatus: number; code?: number; message: string; id?: string; answer?: unknown }
  /** The connection failed after the body may have reached the service. */
  | { outcome: 'uncertain'; error: NetworkError }
  /** The connection was never made: nothing reached the service. */
  | { outcome: 'not-sent'; error: NetworkError };

/** How one endpoint's answer is read: its schema, and where its identifiers are. */
export interface AnswerReader<T extends z.ZodType> {
  schema: T;
  /** The identifier reported for a success (trace_id, task_id). */
  successId(answer: z.infer<T>): string;
  /** The identifier reported with an error (trace_id, request_id), read from a loose object. */
  errorId(answer: Record<string, unknown>): string | undefined;
  /** Its name in messages. */
  idName: string;
}

/**
 * Sends once and never again (`retry: 'never'`: the transport repeats only a refused connection,
 * before any byte went out). Success is HTTP 2xx with a code in SEND_SUCCESS_CODES.
 */
export async function deliver<T extends z.ZodType>(
  transport: Transport,
  req: PreparedRequest,
  reader: AnswerReader<T>,
): Promise<Delivery> {
  let res: HttpResponse;
  try {
    res = await transport.send({
      method: 'POST',
      url: req.url,
      headers: req.headers,
      body: req.body,
      retry: 'never',
      endpoint: req.endpoint,
    });
  } catch (error) {
    if (!(error instanceof NetworkError)) throw error;
    return error.details.mayHaveBeenSent === false ? { outcome: 'not-sent', error } : { outcome: 'uncertain', error };
  }
  return readAnswer(res, reader);
}

/**
 * Reads a push or template answer. The spec gives no success value and no error shape for these
 * endpoints; callctl's reading (README, "How callctl reads the spec's gaps"): HTTP 2xx is accepted
 * unless the answer carries a code outside SEND_SUCCESS_CODES. An accepted answer of another
 * shape (a field missing or null, no code, a body that is not JSON) is recorded as sent with a
 * warning naming what was odd: never as failed, so that no re-run or --retry-failed sends it again.
 */
export function readAnswer<T extends z.ZodType>(res: HttpResponse, reader: AnswerReader<T>): Delivery {
  const ok = res.status >= 200 && res.status < 300;
  let json: unknown;
  try {
    json = JSON.parse(res.text);
  } catch {
    if (ok) {
      const warning = `HTTP ${res.status} with ${res.text.trim() === '' ? 'an empty body' : 'a body that is not JSON'}: taken as accepted (recorded as sent, not sent again); check with the service`;
      return { outcome: 'sent', httpStatus: res.status, message: '', id: '', answer: {}, warning };
    }
    return { outcome: 'failed', httpStatus: res.status, message: `HTTP ${res.status}` };
  }
  const loose =
    json !== null && typeof json === 'object' && !Array.isArray(json) ? (json as Record<string, unknown>) : {};
  const code =
    typeof loose.code === 'number'
      ? loose.code
      : typeof loose.code === 'string' && /^-?\d+$/.test(loose.code)
        ? Number(loose.code)
        : undefined;
  const message = typeof loose.message === 'string' ? loose.message.replace(/\s+/g, ' ').trim() : '';
  if (ok && (code === undefined || SEND_SUCCESS_CODES.includes(code))) {
    const parsed = reader.schema.safeParse(json);
    if (parsed.success) {
      return {
        outcome: 'sent',
        httpStatus: res.status,
        code,
        message,
        id: reader.successId(parsed.data),
        answer: parsed.data as Record<string, unknown>,
      };
    }
    // Accepted, in an answer of another shape: sent, with a warning naming the odd fields.
    const odd = [
      ...new Set(
        parsed.error.issues.map(
          (i) =>
            `${i.path.join('.') || '(the answer)'} ${i.input === undefined ? 'missing' : i.input === null ? 'null' : 'unexpected'}`,
        ),
      ),
    ];
    let id: string | undefined;
    try {
      id = reader.successId(json as z.infer<T>);
    } catch {
      id = undefined;
    }
    id = typeof id === 'string' ? id : reader.errorId(loose);
    return {
      outcome: 'sent',
      httpStatus: res.status,
      code,
      message,
      id: id ?? '',
      answer: loose,
      warning: `HTTP ${res.status}${code !== undefined ? `, code ${code}` : ', no code'}: accepted, but the answer has ${odd.slice(0, 4).join(', ')}; recorded as sent`,
    };
  }
  const what = ok ? `code ${code ?? 'missing'}` : `HTTP ${res.status}${code !== undefined ? `, code ${code}` : ''}`;
  return {
    outcome: 'failed',
    httpStatus: res.status,
    code,
    message: message ? `${what}: ${message}` : what,
    id: reader.errorId(loose),
    answer: json,
  };
}
