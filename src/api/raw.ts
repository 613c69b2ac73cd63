import { z } from 'zod';
import { ServiceError } from '../errors.js';
import { answerSchema } from '../schemas/answers.js';
import type { CloudClient } from './client.js';
import type { HttpResponse, Transport } from './transport.js';
import { readAnswer } from './deliver.js';
import { isRead } from './reads.js';
import { said } from '../said.js';

/**
 * Any request of the spec, including the operations it lists by title only, through the one
 * transport: the cloud endpoints with the profile's token and the envelope (typed errors,
 * re-authentication), or the flex-route and template addresses with their own headers and the
 * push/template answer's rules. Reads are retried; anything else is sent once (it may reach people).
 */
export interface RawRequest {
  method: 'GET' | 'POST';
  /** Path under the address, with its query already in place. */
  path: string;
  query: Record<string, string>;
  body?: Buffer;
  /** More headers (`-H`); never Authorization, which the token gives. */
  headers?: Record<string, string>;
}

/** What came back: the part to print by default, and the whole answer. */
export interface RawAnswer {
  /** The envelope's `data` (cloud), or the whole answer (flex-route, template API). */
  data: unknown;
  /** The whole answer as the service sent it. */
  text: string;
  status: number;
  headers: HttpResponse['headers'];
}

/** A cloud endpoint (`/service/cloud/...`): the envelope's `data`, or a typed error. */
export async function cloudRequest(
  client: CloudClient,
  req: RawRequest,
  onAnswer: (res: HttpResponse) => void,
): Promise<RawAnswer> {
  let res: HttpResponse | undefined;
  try {
    const data = await client.call({
      method: req.method,
      path: req.path,
      query: req.query,
      ...(req.body !== undefined ? { jsonBody: req.body } : {}),
      ...(req.headers ? { headers: req.headers } : {}),
      data: answerSchema('unknown'),
      // A read (any GET, and the POSTs of READ_ENDPOINTS) is retried; anything else may reach people.
      retry: isRead(req.method, req.path) ? 'idempotent' : 'never',
      onResponse: (r) => (res = r),
    });
    return { data, text: res!.text, status: res!.status, headers: res!.headers };
  } catch (error) {
    // The whole answer of a refusal is still worth seeing with --raw or -i.
    if (error instanceof ServiceError && res) onAnswer(res);
    throw error;
  }
}

const looseAnswer = z.looseObject({});

/**
 * The flex-route address or the template API: no envelope and no token; success is HTTP 2xx with
 * a code of 0 or 200 (README, "How callctl reads the spec's gaps"), anything else a ServiceError naming the code and message.
 * Only a read is retried; a POST that may have reached the service is reported, never repeated.
 */
export async function directRequest(
  transport: Transport,
  req: RawRequest & { url: string; endpoint: string; headers: Record<string, string> },
  onAnswer: (res: HttpResponse) => void,
): Promise<RawAnswer> {
  const url = new URL(req.url);
  for (const [k, v] of Object.entries(req.query)) url.searchParams.set(k, v);
  const res = await transport.send({
    method: req.method,
    url: url.toString(),
    headers: req.headers,
    body: req.body,
    retry: req.method === 'GET' ? 'idempotent' : 'never',
    endpoint: req.endpoint,
  });
  const delivery = readAnswer(res, {
    schema: looseAnswer,
    successId: () => '',
    errorId: (a) => idOf(a),
    idName: 'trace_id',
  });
  if (delivery.outcome === 'sent')
    return { data: JSON.parse(res.text) as unknown, text: res.text, status: res.status, headers: res.headers };
  onAnswer(res);
  const failed = delivery as Extract<typeof delivery, { outcome: 'failed' }>;
  throw new ServiceError(
    said`${req.endpoint}: ${failed.message}${failed.id ? ` (${failed.id})` : ''}`,
    req.endpoint,
    res.status,
    failed.code,
  );
}

function idOf(answer: Record<string, unknown>): string | undefined {
  for (const key of ['trace_id', 'request_id'])
    if (typeof answer[key] === 'string' && answer[key]) return `${key} ${answer[key] as string}`;
  return undefined;
}
