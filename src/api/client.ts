import type { z } from 'zod';
import { AuthError, ServiceError } from '../errors.js';
import { errorEnvelopeSchema } from '../schemas/common.js';
import { tokenDataSchema } from '../schemas/auth.js';
import type { HttpResponse, Transport } from './transport.js';

export interface Credentials {
  appKey: string;
  appSecret: string;
}

export interface CloudClientOptions {
  baseUrl: string;
  token?: string;
  /** When at hand, a rejected token is renewed once and the request repeated once. */
  credentials?: Credentials;
  /** Told of every new token (kept in memory; only `auth login` stores one). */
  onToken?: (token: string) => void;
}

export interface CloudCall<T extends z.ZodType> {
  method: 'GET' | 'POST';
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  /**
   * The body already serialized as JSON; wins over `body`. For large requests built from text
   * (an upload's batch of 10,000 entries), without an object per entry in between.
   */
  jsonBody?: string | Buffer;
  /** Schema of the envelope's `data`. */
  data: T;
  /** Reads and list updates may be repeated; default `idempotent`. */
  retry?: 'idempotent' | 'never';
}

/** The envelope's code when the token is rejected. */
const TOKEN_REJECTED = new Set([401, 403]);

/**
 * The cloud endpoints under `/service/cloud/`: `Authorization: Token`, the envelope, typed
 * errors, one re-authentication when the token is rejected and credentials are at hand.
 */
export class CloudClient {
  private token: string | undefined;

  constructor(
    readonly transport: Transport,
    private readonly options: CloudClientOptions,
  ) {
    this.token = options.token;
  }

  get currentToken(): string | undefined {
    return this.token;
  }

  /** POST /service/cloud/auth: exchanges APPKey and APPSecret for a token. */
  async authenticate(credentials = this.options.credentials): Promise<string> {
    if (!credentials) throw new AuthError('no credentials: run `callctl auth login` or set CALLCTL_APP_KEY and CALLCTL_APP_SECRET');
    const endpoint = 'POST /service/cloud/auth';
    const res = await this.transport.send({
      method: 'POST',
      url: this.url('/service/cloud/auth'),
      body: JSON.stringify({ APPKey: credentials.appKey, APPSecret: credentials.appSecret }),
      retry: 'idempotent',
      endpoint,
    });
    const envelope = parseEnvelope(endpoint, res);
    if (res.status === 401 || res.status === 403 || TOKEN_REJECTED.has(envelope.code ?? 0)) {
      throw new AuthError(`credentials rejected by the service (code ${envelope.code ?? res.status}${messageOf(envelope) ? `: ${messageOf(envelope)}` : ''})`);
    }
    const data = checkEnvelope(endpoint, res, envelope, tokenDataSchema);
    this.token = data.token;
    this.options.onToken?.(data.token);
    return data.token;
  }

  /** Calls one cloud endpoint and returns the envelope's `data`, checked against its schema. */
  async call<T extends z.ZodType>(spec: CloudCall<T>): Promise<z.infer<T>> {
    const endpoint = `${spec.method} ${spec.path}`;
    if (!this.token) {
      if (!this.options.credentials) {
        throw new AuthError('not logged in: run `callctl auth login`, or set CALLCTL_TOKEN, or CALLCTL_APP_KEY with CALLCTL_APP_SECRET');
      }
      await this.authenticate();
    }
    let res = await this.send(spec, endpoint);
    let envelope = parseEnvelope(endpoint, res);
    if (rejected(res, envelope)) {
      if (!this.options.credentials) {
        throw new AuthError(`token rejected by the service (${endpoint}): run \`callctl auth login\``);
      }
      await this.authenticate();
      res = await this.send(spec, endpoint);
      envelope = parseEnvelope(endpoint, res);
      if (rejected(res, envelope)) throw new AuthError(`token rejected by the service again after re-authenticating (${endpoint})`);
    }
    return checkEnvelope(endpoint, res, envelope, spec.data);
  }

  private send(spec: CloudCall<z.ZodType>, endpoint: string): Promise<HttpResponse> {
    return this.transport.send({
      method: spec.method,
      url: this.url(spec.path, spec.query),
      headers: { authorization: `Token ${this.token}` },
      body: spec.jsonBody ?? (spec.body === undefined ? undefined : JSON.stringify(spec.body)),
      retry: spec.retry ?? 'idempotent',
      endpoint,
    });
  }

  private url(path: string, query?: Record<string, string | number | undefined>): string {
    const url = new URL(this.options.baseUrl.replace(/\/+$/, '') + path);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    return url.toString();
  }
}

type ErrorEnvelope = z.infer<typeof errorEnvelopeSchema>;

function rejected(res: HttpResponse, envelope: ErrorEnvelope): boolean {
  return res.status === 401 || (res.status === 200 && envelope.code === 401);
}

function messageOf(envelope: ErrorEnvelope): string | undefined {
  return envelope.message ?? envelope.msg ?? (typeof envelope.data === 'string' ? envelope.data : undefined);
}

function parseEnvelope(endpoint: string, res: HttpResponse): ErrorEnvelope {
  let json: unknown;
  try {
    json = JSON.parse(res.text);
  } catch {
    if (res.status !== 200) throw new ServiceError(`${endpoint}: HTTP ${res.status}`, endpoint, res.status, undefined);
    throw new ServiceError(`${endpoint}: the service answered with something that is not JSON`, endpoint, res.status, undefined);
  }
  const parsed = errorEnvelopeSchema.safeParse(json);
  return parsed.success ? parsed.data : {};
}

function checkEnvelope<T extends z.ZodType>(
  endpoint: string,
  res: HttpResponse,
  envelope: ErrorEnvelope,
  schema: T,
): z.infer<T> {
  const message = messageOf(envelope);
  if (res.status !== 200 || envelope.code !== 200 || envelope.status !== 'OK') {
    const code = envelope.code;
    const what = res.status !== 200 ? `HTTP ${res.status}${code !== undefined ? `, code ${code}` : ''}` : `code ${code ?? 'missing'}`;
    throw new ServiceError(`${endpoint}: ${what}${message ? `: ${message}` : ''}`, endpoint, res.status, code, {
      ...(message ? { message } : {}),
    });
  }
  const data = schema.safeParse(envelope.data);
  if (!data.success) {
    const issue = data.error.issues[0]!;
    const path = ['data', ...issue.path].join('.');
    throw new ServiceError(`${endpoint}: unexpected response: ${path}: ${issue.message}`, endpoint, res.status, envelope.code, {
      issues: data.error.issues.slice(0, 5).map((i) => ({ path: ['data', ...i.path].join('.'), message: i.message })),
    });
  }
  return data.data;
}
