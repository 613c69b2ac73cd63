import type { z } from 'zod';
import { AuthError, ServiceError, ServiceUnavailableError } from '../errors.js';
import { answerSchema, type AnswerSchema } from '../schemas/answers.js';
import { describeAnswer, firstBytes, judge, transientAnswer, type Envelope } from './envelope.js';
import { tolerantParse } from './tolerant.js';
import type { HttpRequest, HttpResponse, Transport } from './transport.js';
import { Said, said } from '../said.js';

export interface Credentials {
  appKey: string;
  appSecret: string;
  /** Where each came from (`CALLCTL_APP_KEY`, `--app-secret-stdin`...), named when the service rejects them. */
  from?: { appKey: Said; appSecret: Said };
}

export interface CloudClientOptions {
  baseUrl: string;
  token?: string;
  /** When at hand, a rejected token is renewed once and the request repeated once. */
  credentials?: Credentials;
  /** Told of every new token (kept in memory; only `auth login` stores one). */
  onToken?: (token: string) => void;
  /** Told of what was read leniently (a record left out, an odd value); the command renders it. */
  onWarning?: (message: string) => void;
  /** Put the first bytes of a body that is not an envelope into the error (`--verbose`). */
  showBody?: boolean;
  /** The environment variable the token came from (`CALLCTL_TOKEN`), named when it is rejected. */
  tokenFrom?: Said;
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
  /** The schema of the envelope's `data` (loaded only when its check cannot vouch). */
  data: AnswerSchema<T>;
  /** Reads may be repeated; default `idempotent` (see HttpRequest.retry). */
  retry?: HttpRequest['retry'];
  /** Streams an HTTP 200 body (see `HttpRequest.consume`); the envelope is checked on what it returns. */
  consume?: HttpRequest['consume'];
  /** Whether a streamed answer may be asked again (not once part of it was shown); default yes. */
  restartable?: () => boolean;
  /** Told of the answer the result is read from (`callctl api --raw` prints it whole). */
  onResponse?: (res: HttpResponse) => void;
  /** More request headers (`callctl api -H`); the token's `Authorization` is always callctl's own. */
  headers?: Record<string, string>;
}

/**
 * The cloud endpoints under `/service/cloud/`: `Authorization: Token`, the envelope read as the
 * spec gives it (src/api/envelope.ts), typed errors, one re-authentication when the token is
 * rejected and credentials are at hand.
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

  get baseUrl(): string {
    return this.options.baseUrl;
  }

  /** POST /service/cloud/auth: exchanges APPKey and APPSecret for a token. */
  async authenticate(credentials = this.options.credentials): Promise<string> {
    if (!credentials)
      throw new AuthError(
        said`no credentials: run \`callctl auth login\` or set CALLCTL_APP_KEY and CALLCTL_APP_SECRET`,
      );
    const endpoint = 'POST /service/cloud/auth';
    const res = await this.transport.send({
      method: 'POST',
      url: this.url('/service/cloud/auth'),
      body: JSON.stringify({ APPKey: credentials.appKey, APPSecret: credentials.appSecret }),
      retry: 'idempotent',
      transient: transientAnswer,
      endpoint,
    });
    const verdict = judge(res);
    if (verdict.kind === 'rejected') throw rejection(endpoint, res, verdict.envelope, rejectedCredentials(credentials));
    const data = await this.check(endpoint, res, verdict, answerSchema('token'));
    this.token = data.token;
    this.options.onToken?.(data.token);
    return data.token;
  }

  /** Calls one cloud endpoint and returns the envelope's `data`, checked against its schema. */
  async call<T extends z.ZodType>(spec: CloudCall<T>): Promise<z.infer<T>> {
    const endpoint = `${spec.method} ${spec.path}`;
    if (!this.token) {
      if (!this.options.credentials) {
        throw new AuthError(
          said`not logged in: run \`callctl auth login\`, or set CALLCTL_TOKEN, or CALLCTL_APP_KEY with CALLCTL_APP_SECRET`,
        );
      }
      await this.authenticate();
    }
    let res = await this.send(spec, endpoint);
    let verdict = judge(res);
    if (verdict.kind === 'rejected') {
      if (!this.options.credentials) {
        // A token from the environment wins over the stored login: logging in again cannot help.
        const from = this.options.tokenFrom;
        const fix = from
          ? said`the token in ${from} was rejected: set ${from} to a current token, or unset it so that the profile's login is used (\`callctl auth login\` stores one), or set CALLCTL_APP_KEY and CALLCTL_APP_SECRET so that callctl renews it`
          : said`the token was rejected; log in again (\`callctl auth login\`), or set CALLCTL_APP_KEY and CALLCTL_APP_SECRET so that callctl renews it`;
        throw rejection(endpoint, res, verdict.envelope, fix);
      }
      await this.authenticate();
      // Records of this answer already shown cannot be taken back: not asked again.
      if (spec.restartable?.() === false)
        throw rejection(
          endpoint,
          res,
          verdict.envelope,
          said`the token was rejected once part of the answer was shown; a new one is in use now: run the command again`,
        );
      res = await this.send(spec, endpoint);
      verdict = judge(res);
      if (verdict.kind === 'rejected')
        throw rejection(
          endpoint,
          res,
          verdict.envelope,
          said`a new token was rejected too; check the app's rights with the service`,
        );
    }
    spec.onResponse?.(res);
    return await this.check(endpoint, res, verdict, spec.data);
  }

  /** Tells of something read leniently outside `call` (a streamed record left out). */
  warn(message: string): void {
    this.options.onWarning?.(message);
  }

  private async check<T extends z.ZodType>(
    endpoint: string,
    res: HttpResponse,
    verdict: ReturnType<typeof judge>,
    data: AnswerSchema<T>,
  ): Promise<z.infer<T>> {
    const details = (envelope?: Envelope) => ({
      ...(envelope?.status !== undefined ? { serviceStatus: envelope.status } : {}),
      ...(envelope?.message !== undefined ? { serviceMessage: envelope.message } : {}),
    });
    switch (verdict.kind) {
      case 'ok': {
        // Most answers are vouched for as they are: zod is loaded for the others.
        if ((await data.check())(verdict.envelope.data)) return verdict.envelope.data as z.infer<T>;
        const parsed = tolerantParse(await data.schema(), verdict.envelope.data);
        if (!parsed.ok) {
          throw new ServiceError(
            said`${endpoint}: code 200, but an unexpected answer: ${parsed.problem}`,
            endpoint,
            res.status,
            200,
            { issues: parsed.issues },
          );
        }
        for (const warning of parsed.warnings) this.options.onWarning?.(`${endpoint}: ${warning}`);
        return parsed.data;
      }
      case 'transient': {
        const tries = res.attempts > 1 ? ` after ${res.attempts} attempts` : '';
        const what = verdict.envelope ? describeAnswer(res.status, verdict.envelope) : `HTTP ${res.status}`;
        // "Run again" is added where the error is reported (main.ts), once, after any context.
        throw new ServiceUnavailableError(
          said`${endpoint}: ${what}${tries}`,
          endpoint,
          res.status,
          verdict.envelope?.code,
          {
            attempts: res.attempts,
            ...details(verdict.envelope),
          },
        );
      }
      case 'refused':
        throw new ServiceError(
          said`${endpoint}: ${describeAnswer(res.status, verdict.envelope)}`,
          endpoint,
          res.status,
          verdict.envelope.code,
          details(verdict.envelope),
        );
      case 'not-envelope': {
        const body = this.options.showBody
          ? `; it begins: ${JSON.stringify(firstBytes(res.text))}`
          : ' (run with --verbose to see its first bytes)';
        throw new ServiceError(
          said`${endpoint}: HTTP ${res.status}, and the answer is not the service's envelope (${res.text.length === 0 ? 'empty' : /^\s*[[{]/.test(res.text) ? 'JSON without code or status' : 'not JSON'})${body}; check the base URL`,
          endpoint,
          res.status,
          undefined,
        );
      }
      case 'rejected':
        // Handled by the callers, which know whether credentials are at hand.
        throw new AuthError(said`${endpoint}: ${describeAnswer(res.status, verdict.envelope)}`, { endpoint });
    }
  }

  private send(spec: CloudCall<z.ZodType>, endpoint: string): Promise<HttpResponse> {
    return this.transport.send({
      method: spec.method,
      url: this.url(spec.path, spec.query),
      headers: { ...spec.headers, authorization: `Token ${this.token}` },
      body: spec.jsonBody ?? (spec.body === undefined ? undefined : JSON.stringify(spec.body)),
      retry: spec.retry ?? 'idempotent',
      transient: transientAnswer,
      endpoint,
      ...(spec.consume ? { consume: spec.consume } : {}),
      ...(spec.restartable ? { restartable: spec.restartable } : {}),
    });
  }

  private url(path: string, query?: Record<string, string | number | undefined>): string {
    const url = new URL(this.options.baseUrl.replace(/\/+$/, '') + path);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    return url.toString();
  }
}

/** The token or the credentials rejected (401 or 403), in the service's words and with what to do. */
function rejection(endpoint: string, res: HttpResponse, envelope: Envelope | undefined, fix: Said): AuthError {
  return new AuthError(said`${endpoint}: ${describeAnswer(res.status, envelope)}: ${fix}`, {
    endpoint,
    httpStatus: res.status,
    serviceCode: envelope?.code,
  });
}

/** What to fix when the service rejects the APPKey and APPSecret, naming where they came from. */
function rejectedCredentials(credentials: Credentials): Said {
  const from = credentials.from;
  if (!from)
    return said`the service rejected the APPKey and APPSecret; check them and log in again (\`callctl auth login\`)`;
  const env = [from.appKey, from.appSecret].filter((f) => String(f).startsWith('CALLCTL_'));
  const fix =
    env.length > 0
      ? said`check ${Said.join(env, said` and `)} (the environment is used before the profile and the prompt)`
      : said`check them and log in again (\`callctl auth login\`)`;
  return said`the service rejected the APPKey (from ${from.appKey}) and APPSecret (from ${from.appSecret}): ${fix}`;
}
