import type { Dispatcher } from 'undici';
import { assertTimerMs } from '../timers.js';
import { CliError, NetworkError } from '../errors.js';
import { MAX_RETRIES, RETRY_AFTER_MAX_MS, RETRY_BASE_MS, RETRY_MAX_MS } from '../limits.js';
import { addSecret, redact, redactHeader } from '../redact.js';
import { settledBy } from './settled-by.js';
import { CLOSED_EARLY, describeFailure, errorCode, wrongScheme } from './failure.js';
import { proxiesOf, proxyAuthError, proxyFor, proxyPasswords, routeNote, throughProxy, tunnelStatus } from './proxy.js';
import type { Proxies } from './proxy.js';
import { Said, said } from '../said.js';

/**
 * The headers a request goes out with: the transport's defaults, then the request's own. One
 * place, so that a dry run shows exactly what would be sent.
 */
export function requestHeaders(
  userAgent: string,
  hasBody: boolean,
  own: Record<string, string> = {},
): Record<string, string> {
  return {
    'user-agent': userAgent,
    accept: 'application/json',
    ...(hasBody ? { 'content-type': 'application/json' } : {}),
    ...own,
  };
}

export interface HttpRequest {
  method: 'GET' | 'POST';
  /** Absolute URL. */
  url: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /**
   * `idempotent`: retried on network errors, 429 and 5xx. `never`: a request that places a call
   * or sends a message; retried only when the connection was refused, before any byte was sent.
   * `answered`: retried when the connection was refused and on a 429 or 5xx answer (the
   * service took nothing), never once the body may have gone out without an answer (a list
   * update: its contacts get called).
   */
  retry: 'idempotent' | 'never' | 'answered';
  /** A label for messages, free of secrets, such as `GET /service/cloud/robot`. */
  endpoint: string;
  /** Send `headers` only, none of callctl's own (forwarding a notification as it came). */
  exactHeaders?: boolean;
  /**
   * Whether an answer is trouble that may pass (and so is retried when `retry` is `idempotent`).
   * Default: HTTP 408, 429 and 5xx. The cloud client adds an envelope code 5xx or 429 on HTTP 200.
   */
  transient?: (res: HttpResponse) => boolean;
  /** Told of each failed attempt before the wait, with how long the wait will be. */
  onRetry?: (attempt: number, failure: ({ status: number } | { error: string }) & { waitMs: number }) => void;
  /**
   * Reads an HTTP 200 answer's body as it arrives instead of holding it whole; returns the text
   * that stands for the body from then on (what is left once the consumer took its part). Called
   * again from the start for each attempt. Other statuses are read as text, as usual.
   */
  consume?: (body: AsyncIterable<Buffer>, attempt: number) => Promise<string>;
  /**
   * Whether another attempt could start over (no record of a streamed answer shown yet). Once it
   * says no, nothing is tried again: neither a transient answer nor a lost connection.
   */
  restartable?: () => boolean;
  /** Ends the request (and its retries) when it aborts: the attempt under way is cut, no other starts. */
  signal?: AbortSignal;
  /** Headers of each attempt, given its number (a forward's attempt count, signature and time). */
  attemptHeaders?: (attempt: number) => Record<string, string>;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** How many attempts were made (1 when the first one answered). */
  attempts: number;
}

export interface TransportOptions {
  userAgent: string;
  timeoutMs: number;
  maxRetries?: number;
  sleep: (ms: number) => Promise<void>;
  random?: () => number;
  /** Verbose sink: each exchange, every secret already redacted. */
  log?: (line: string) => void;
  /** Values that must never be printed (tokens, secrets, push tokens). */
  secrets: () => readonly (string | undefined)[];
  dispatcher?: Dispatcher;
  /** Environment holding HTTPS_PROXY, HTTP_PROXY and NO_PROXY (either case). */
  env?: Record<string, string | undefined>;
  /**
   * Where the address of a URL came from, for connection errors ("the base URL, from
   * CALLCTL_BASE_URL"): a person fixes the setting, not the URL.
   */
  addressFrom?: (url: string) => Said | undefined;
}

/** An answer's head, and its body to stream or to read whole. */
interface Answer {
  statusCode: number;
  headers: HttpResponse['headers'];
  body: AsyncIterable<Buffer>;
  text(): Promise<string>;
}

/** Errors where the connection was never made, so no byte of the request reached the service. */
const NOT_CONNECTED = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_CONNECT_TIMEOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/**
 * The one transport: keep-alive pool per origin (undici's agent, through HTTPS_PROXY / HTTP_PROXY
 * when set, honouring NO_PROXY too), explicit timeouts, retries with back-off and jitter honouring
 * Retry-After for requests that may be repeated, and verbose logging with secrets redacted.
 */
export class Transport {
  private dispatcher: Dispatcher | undefined;
  /** The proxies of the environment (src/api/proxy.ts), named by every error through one. */
  private readonly proxies: Proxies;

  constructor(private readonly options: TransportOptions) {
    // A fraction or an overflow here would make every request fail (or time out at once) and be
    // reported as a network failure; `--timeout` is checked when parsed, this catches a bug.
    assertTimerMs(options.timeoutMs, 'timeoutMs');
    this.dispatcher = options.dispatcher;
    this.proxies = proxiesOf(options.env ?? process.env);
    for (const password of proxyPasswords(this.proxies)) addSecret(password);
  }

  private async agent(): Promise<Dispatcher> {
    if (!this.dispatcher) {
      // undici's HTTP parser is WebAssembly; V8 optimises it in the background after first use,
      // and the process cannot exit until that is done (~80 ms after every command that got an
      // answer). callctl's requests are few and small: V8's baseline compiler is plenty. Set
      // here, before undici compiles its parser, so that commands without HTTP do not pay for it.
      const { setFlagsFromString } = await import('node:v8');
      setFlagsFromString('--liftoff-only');
      const { EnvHttpProxyAgent } = await import('./undici.js');
      // The values messages name, never process.env behind them ('' stops undici's own lookup).
      this.dispatcher = new EnvHttpProxyAgent({
        httpProxy: this.proxies.http?.url ?? '',
        httpsProxy: this.proxies.https?.url ?? '',
        noProxy: this.proxies.noProxy?.url ?? '',
        keepAliveTimeout: 10_000,
        connect: { timeout: this.options.timeoutMs },
      });
    }
    return this.dispatcher;
  }

  async send(req: HttpRequest): Promise<HttpResponse> {
    const maxRetries = this.options.maxRetries ?? MAX_RETRIES;
    for (let attempt = 1; ; attempt++) {
      if (req.signal?.aborted) throw this.networkError(req, req.signal.reason, true, attempt - 1);
      let outcome: { response: HttpResponse } | { error: unknown; connected: boolean };
      try {
        outcome = { response: await this.once(req, attempt) };
      } catch (error) {
        // A bug (a TypeError, a RangeError from a bad argument) is not a network failure: no
        // retry, no exit 5, and never "may have been sent" (nothing left the process). Nor is a
        // typed error a body consumer raised (an answer it could not read): it is final.
        if (
          !errorCode(error) ||
          errorCode(error) === 'TypeError' ||
          error instanceof RangeError ||
          error instanceof CliError
        )
          throw error;
        // A proxy that refused the tunnel passed nothing on; one that refused its credentials will again.
        const tunnel = tunnelStatus(error);
        const proxy = tunnel === undefined ? undefined : proxyFor(this.proxies, req.url).proxy;
        if (tunnel === 407 && proxy) throw proxyAuthError(req.endpoint, proxy);
        outcome = { error, connected: !NOT_CONNECTED.has(errorCode(error)) && tunnel === undefined };
        // The wrong scheme fails alike every time, and nothing reached the service: said once.
        const wrong = await wrongScheme(req.url, error, CLOSED_EARLY.has(errorCode(error)), {
          endpoint: req.endpoint,
          from: this.options.addressFrom?.(req.url),
          timeoutMs: this.options.timeoutMs,
        });
        if (wrong) throw wrong;
      }
      const canRetry =
        attempt <= maxRetries &&
        req.restartable?.() !== false &&
        ('response' in outcome
          ? req.retry !== 'never' &&
            (req.transient ? req.transient(outcome.response) : retryableStatus(outcome.response.status))
          : req.retry === 'idempotent' || !outcome.connected);
      if (!canRetry) {
        if ('response' in outcome) return outcome.response;
        throw this.networkError(req, outcome.error, outcome.connected, attempt);
      }
      // Undefined: a Retry-After longer than callctl waits, and the answer stands.
      const wait = this.delay(attempt, 'response' in outcome ? outcome.response : undefined);
      if (wait === undefined && 'response' in outcome) return outcome.response;
      // An HTTP 200 retried carries its trouble in the body (an envelope code 500): say so.
      const why =
        'response' in outcome
          ? `HTTP ${outcome.response.status}${outcome.response.status === 200 ? ' with an error code in the answer' : ''}`
          : describeFailure(outcome.error).what;
      this.log(redact(said`! ${req.endpoint}: ${why}; retry ${attempt} of ${maxRetries} in ${wait} ms`));
      req.onRetry?.(attempt, {
        ...('response' in outcome
          ? { status: outcome.response.status }
          : { error: redact(why, this.options.secrets()) }),
        waitMs: wait ?? 0,
      });
      await this.wait(wait ?? 0, req.signal);
    }
  }

  private async once(req: HttpRequest, attempt: number): Promise<HttpResponse> {
    const secrets = this.options.secrets();
    const headers: Record<string, string> = req.exactHeaders
      ? { ...req.headers }
      : requestHeaders(this.options.userAgent, req.body !== undefined, req.headers);
    if (req.attemptHeaders) Object.assign(headers, req.attemptHeaders(attempt));
    if (this.options.log) {
      this.log(`> ${req.method} ${redact(req.url, secrets)}${attempt > 1 ? ` (attempt ${attempt})` : ''}`);
      const route = routeNote(this.proxies, req.url);
      if (route) this.log(`* ${route}`);
      for (const [k, v] of Object.entries(headers)) this.log(`> ${k}: ${redactHeader(k, v, secrets)}`);
      if (req.body !== undefined) this.log(`> ${redact(req.body.toString(), secrets)}`);
    }
    const started = Date.now();
    // The whole exchange is bounded by the timeout, except a streamed body (`consume`) once its
    // head arrived: a large task read into a pipe that someone pages through slowly may take
    // longer, and undici's bodyTimeout still ends it when no byte comes for that long.
    const controller = new AbortController();
    const timer = setTimeout(
      () => controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')),
      this.options.timeoutMs,
    );
    const cut = () => controller.abort(req.signal!.reason);
    req.signal?.addEventListener('abort', cut, { once: true });
    let text: string;
    let res: Answer;
    try {
      res = await this.exchange(req, headers, controller.signal);
      if (req.consume && res.statusCode === 200) {
        clearTimeout(timer);
        // Cut once the answer began: said so, not "closed before it answered".
        text = await req.consume(res.body, attempt).catch((error: unknown) => {
          if (!CLOSED_EARLY.has(errorCode(error))) throw error;
          const words = said`the connection was lost in the middle of the answer`;
          throw Object.assign(new Error(String(words)), {
            code: 'ANSWER_CUT',
            said: words,
            cause: error,
          });
        });
      } else text = await res.text();
    } finally {
      clearTimeout(timer);
      req.signal?.removeEventListener('abort', cut);
    }
    if (this.options.log) {
      this.log(`< ${res.statusCode} ${req.endpoint} (${Date.now() - started} ms)`);
      this.log(`< ${redact(text.length > 4000 ? `${text.slice(0, 4000)}...` : text, secrets)}`);
    }
    return { status: res.statusCode, headers: res.headers, text, attempts: attempt };
  }

  /** One request through undici (the proxy's agent, or a dispatcher given). */
  private async exchange(req: HttpRequest, headers: Record<string, string>, signal: AbortSignal): Promise<Answer> {
    const { request } = await import('./undici.js');
    const dispatcher = await this.agent();
    // A proxy that refuses the tunnel makes undici reconnect in a loop that heeds no signal
    // (test/api/client.test.ts: a proxy that refuses every tunnel): the timeout ends the attempt here, and the agent is destroyed (which
    // ends the loop; the next attempt gets a new one).
    const { url, authorization } = userinfoOf(req.url);
    const answer = await settledBy(
      request(url, {
        method: req.method,
        headers:
          authorization && !Object.keys(headers).some((h) => h.toLowerCase() === 'authorization')
            ? { ...headers, authorization }
            : headers,
        body: req.body,
        dispatcher,
        signal,
        headersTimeout: this.options.timeoutMs,
        bodyTimeout: this.options.timeoutMs,
      }),
      signal,
      () => this.dropAgent(dispatcher),
    );
    return {
      statusCode: answer.statusCode,
      headers: answer.headers,
      body: answer.body,
      text: () => answer.body.text(),
    };
  }

  /** The wait between attempts, ended early when `signal` aborts. */
  private async wait(ms: number, signal: AbortSignal | undefined): Promise<void> {
    if (!signal) return this.options.sleep(ms);
    let done = () => {};
    const cut = new Promise<void>((resolve) => (done = resolve));
    signal.addEventListener('abort', done, { once: true });
    try {
      await Promise.race([this.options.sleep(ms), cut]);
    } finally {
      signal.removeEventListener('abort', done);
    }
  }

  /** Back-off: 0.5 s doubling to 8 s with up to 25% jitter; Retry-After wins when given. */
  private delay(attempt: number, response?: HttpResponse): number | undefined {
    const retryAfter = response ? retryAfterMs(response.headers['retry-after']) : undefined;
    if (retryAfter !== undefined) return retryAfter > RETRY_AFTER_MAX_MS ? undefined : retryAfter;
    const base = Math.min(RETRY_BASE_MS * 2 ** (attempt - 1), RETRY_MAX_MS);
    return Math.round(base * (1 - 0.25 * (this.options.random ?? Math.random)()));
  }

  private networkError(req: HttpRequest, error: unknown, connected: boolean, attempts: number): NetworkError {
    const tries = attempts > 1 ? ` after ${attempts} attempts` : '';
    const { what, advice } = describeFailure(error, this.options.timeoutMs);
    // The address and where it came from (a path may hold a secret: the origin only).
    const origin = new URL(req.url).origin;
    const from = this.options.addressFrom?.(req.url);
    const proxy = proxyFor(this.proxies, req.url).proxy;
    const at = req.endpoint.includes(origin) ? '' : ` at ${origin}`;
    const notes = [from, advice].filter((n) => n !== undefined);
    const service = said`${origin}${from ? said` (${from})` : ''}`;
    // Through a proxy, a connection never made (or a tunnel refused) failed at the proxy.
    const why = proxy
      ? throughProxy({ what, advice, proxy, service, atProxy: !connected })
      : said`${what}${at}${notes.length ? said` (${Said.join(notes, said`; `)})` : ''}`;
    return new NetworkError(said`${req.endpoint}: ${why}${tries}`, {
      endpoint: req.endpoint,
      attempts,
      // For a request that places a call or sends a message: did the body possibly reach the service?
      mayHaveBeenSent: connected,
    });
  }

  private log(line: string): void {
    this.options.log?.(line);
  }

  /** Destroys an agent a request is stuck in (its connections and pending requests go with it). */
  private dropAgent(dispatcher: Dispatcher): void {
    if (this.dispatcher === dispatcher) this.dispatcher = undefined;
    dispatcher.destroy().catch(() => undefined);
  }

  async close(): Promise<void> {
    await this.dispatcher?.close();
  }
}

function retryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/** Retry-After as seconds or as an HTTP date, in milliseconds. */
export function retryAfterMs(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) return undefined;
  const seconds = Number(text);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.ceil(seconds * 1000);
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * A URL's user and password (`https://user:pw@host/`) as the Basic credentials Node's http sends
 * for them (undici sends none), and the URL without them.
 */
function userinfoOf(text: string): { url: string; authorization?: string } {
  const url = new URL(text);
  if (!url.username && !url.password) return { url: text };
  const credentials = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
  url.username = '';
  url.password = '';
  return { url: url.href, authorization: `Basic ${Buffer.from(credentials).toString('base64')}` };
}
