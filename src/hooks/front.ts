import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { Handler } from './guard.js';
import { LogWriteError, type RequestMeta } from './intake.js';
import { ClientGone, readBody } from './read-body.js';

/** An answer to an incoming request (an answer, never a delivery: those go out). */
export interface Reply {
  status: number;
  body: string;
  headers?: Record<string, string>;
  /** The judged body's type and verdict, for the count of answers (absent: not judged). */
  labels?: AnswerLabels;
  /** Runs once the answer is written. */
  after?: () => void;
}

export interface AnswerLabels {
  type: string;
  verdict: string;
}

/** A certificate and its key, PEM. */
export interface TlsFiles {
  cert: Buffer;
  key: Buffer;
}

/** Where the listener listens and the bounds of its HTTP side (serve-hooks' flags, in ms and bytes). */
export interface FrontOptions {
  /** Serves HTTPS with this certificate (replaced on the fly by `reloadTls`). */
  tls?: TlsFiles;
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** When set, POSTs are accepted on this path only; it may carry a secret segment and is never shown. */
  path?: string;
  maxBodyBytes: number;
  /** Request headers larger than this are answered 431. */
  maxHeaderBytes: number;
  /** An idle keep-alive connection is closed after this long. */
  keepAliveTimeoutMs: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  /** Open connections at most, and per peer address (so one peer cannot take them all). */
  maxConnections: number;
  maxConnectionsPerPeer: number;
  /**
   * Addresses of reverse proxies in front (`--trust-proxy`): their connections are not capped per
   * peer (they carry many peers); a request through one is from the last address its
   * X-Forwarded-For names, and that peer may have `maxConnectionsPerPeer` requests under way.
   */
  trustProxy?: string[];
}

export interface FrontState extends FrontOptions {
  /** GET paths answered by the front itself (/healthz, /readyz, a metrics path): their handler and answer. */
  routes: Record<string, { handler: Exclude<Handler, 'receiver' | 'inspector'>; answer: () => Reply | Promise<Reply> }>;
  /** A request or connection the front refused before any judging (over a cap, too slow, unreadable). */
  refusedEarly: (reason: 'connections' | 'timeout' | 'malformed' | 'headers_too_large') => void;
  /**
   * Every answer on the notification path (all but the GET routes), once, with its status: a
   * judged one with its body's type and verdict.
   */
  answered: (status: number, labels?: AnswerLabels) => void;
  /** A request refused before its body is judged (405, 404, 415, 413), with what was read of it. */
  refuse: (meta: RequestMeta, status: number, error: string) => Promise<Reply>;
  /** A POST of an acceptable type and size: its body, to judge. */
  judge: (meta: RequestMeta, raw: Buffer) => Promise<Reply>;
  /** Judging failed (the log or store cannot be written): the request is answered 503. */
  failed: (error: LogWriteError) => void;
  /** A handler failed unexpectedly (a bug of ours): the request is answered 500. */
  handlerFailed: (handler: Handler, error: unknown) => void;
  /** A request whose sender went away (or was cut off by a deadline) before its body was all in. */
  cutShort: () => void;
}

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json$/;
const rawAnswer = (status: string, error: string) => {
  const body = JSON.stringify({ error });
  return `HTTP/1.1 ${status}\r\nconnection: close\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`;
};
const MALFORMED = rawAnswer('400 Bad Request', 'malformed request');
const TIMED_OUT = rawAnswer('408 Request Timeout', 'request too slow');
const TOO_MANY: Reply = {
  status: 429,
  body: JSON.stringify({ error: 'too many requests under way from this peer' }),
  headers: { 'retry-after': '1' },
};
const UNAVAILABLE = JSON.stringify({ error: 'cannot record the event now: send it again later' });
const INTERNAL = JSON.stringify({ error: 'internal error' });
const HEADERS_TOO_LARGE = rawAnswer('431 Request Header Fields Too Large', 'request headers too large');

/** When each socket started waiting for a request's headers, and when its request began. */
interface Clock {
  waiting: number;
  read: number;
  request?: number;
  res?: ServerResponse;
}

/**
 * The side of the listener that speaks HTTP: node:http with its caps (connections in all and per
 * peer, header and body sizes), deadlines of its own, the answers to what it refuses itself (405
 * not POST, 404 another path, 415 not JSON, 413 over the size cap, 400 unreadable, 408 too slow,
 * 431 headers too large) and reading bodies. What a body means is `judge`'s.
 */
export class Front {
  private readonly server: Server;
  private readonly clocks = new Map<Socket, Clock>();
  /** Requests under way per peer behind a trusted proxy. */
  private readonly proxied = new Map<string, number>();
  private readonly deadlines: NodeJS.Timeout;
  /** Requests already answered 408 by a deadline (a late answer of theirs is not counted again). */
  private readonly timedOut = new WeakSet<ServerResponse>();
  private closing = false;
  private readonly trusted: ReadonlySet<string>;
  /** Connections closed at once: over the caps in all or per peer. */
  connectionsRefused = 0;

  constructor(private readonly state: FrontState) {
    this.trusted = new Set(state.trustProxy);
    const options = {
      headersTimeout: state.headersTimeoutMs,
      requestTimeout: state.requestTimeoutMs,
      keepAliveTimeout: state.keepAliveTimeoutMs,
      maxHeaderSize: state.maxHeaderBytes,
      // Node checks the timeouts every 30 s by default, which would let a slow client stay far longer.
      connectionsCheckingInterval: Math.min(1_000, state.headersTimeoutMs),
    };
    const handler = (req: IncomingMessage, res: ServerResponse) => this.request(req, res);
    this.server = state.tls
      ? createTlsServer(
          { ...options, cert: state.tls.cert, key: state.tls.key, handshakeTimeout: state.headersTimeoutMs },
          handler,
        )
      : createServer(options, handler);
    this.capConnections();
    this.deadlines = this.keepDeadlines();
    // Requests the HTTP parser cannot read (garbage, headers over Node's cap) get a plain 400; a
    // client too slow with its headers or body, 408.
    // A TLS handshake that fails (a plain-HTTP client, a scanner) is the peer's trouble.
    this.server.on('tlsClientError', (_error: Error, socket: Socket) => {
      state.refusedEarly('malformed');
      socket.destroy();
    });
    this.server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
      if (!socket.writable || socket.destroyed) return void socket.destroy();
      const [status, answer, reason] =
        error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? ([408, TIMED_OUT, 'timeout'] as const)
          : error.code === 'HPE_HEADER_OVERFLOW'
            ? ([431, HEADERS_TOO_LARGE, 'headers_too_large'] as const)
            : ([400, MALFORMED, 'malformed'] as const);
      state.refusedEarly(reason);
      state.answered(status);
      socket.end(answer);
    });
  }

  /** Listens; resolves with the base URL (`http://127.0.0.1:8787`) and the port. */
  async listen(): Promise<{ url: string; port: number }> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.state.port, this.state.host, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    const address = this.server.address() as AddressInfo;
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    return { url: `${this.state.tls ? 'https' : 'http'}://${host}:${address.port}`, port: address.port };
  }

  /**
   * Takes a new certificate for the handshakes to come; connections already open keep theirs.
   * Throws (and keeps the one it has) when the certificate or key cannot be used.
   */
  reloadTls(tls: TlsFiles): void {
    if (!this.state.tls) throw new Error('not serving TLS');
    (this.server as TlsServer).setSecureContext({ cert: tls.cert, key: tls.key });
  }

  /**
   * Stops accepting; idle keep-alive connections close now, busy ones once answered (their answers
   * carry `connection: close`); when `grace` ends first, the rest are cut. Resolves then, with
   * the server's own closing.
   */
  async stop(grace: Promise<unknown>): Promise<{ closed: Promise<void> }> {
    this.closing = true;
    clearInterval(this.deadlines);
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeIdleConnections();
    if ((await Promise.race([closed, grace.then(() => 'late' as const)])) === 'late') this.server.closeAllConnections();
    return { closed };
  }

  private request(req: IncomingMessage, res: ServerResponse): void {
    const clock = this.clocks.get(req.socket);
    if (clock) {
      clock.request = performance.now();
      clock.res = res;
    }
    const [pathname = '/'] = (req.url ?? '/').split('?');
    const route = req.method === 'GET' ? this.state.routes[pathname] : undefined;
    const handled = route
      ? (async () => this.write(res, await route.answer(), false))()
      : this.handle(req, res, pathname);
    handled.catch((error: unknown) => {
      // Nobody left to answer, nothing was recorded: counted, never an error of ours.
      if (error instanceof ClientGone) return this.state.cutShort();
      // The log or store cannot be written: not acknowledged, so the service will send it again.
      // The answer names no path or address (the error may: it is told to the operator, not to
      // whoever sent it). Anything else is a bug of ours: 500, and the receiver goes on.
      const unavailable = error instanceof LogWriteError;
      try {
        if (unavailable) this.state.failed(error);
        else this.state.handlerFailed(route?.handler ?? 'receiver', error);
        if (res.headersSent) return void res.destroy();
        this.write(
          res,
          unavailable
            ? {
                status: 503,
                body: UNAVAILABLE,
                headers: { connection: 'close', 'retry-after': '5' },
                ...(error.labels ? { labels: error.labels } : {}),
              }
            : { status: 500, body: INTERNAL, headers: { connection: 'close' } },
          !route,
        );
      } catch {
        res.destroy();
      }
    });
  }

  private async handle(req: IncomingMessage, res: ServerResponse, pathname: string): Promise<void> {
    const from = this.peer(req);
    if (from === 'busy') return this.write(res, TOO_MANY);
    try {
      await this.judged(req, res, pathname, from.remote);
    } finally {
      if (from.counted) release(this.proxied, from.remote!);
    }
  }

  /**
   * The peer a request is from: the connection's address, or behind a trusted proxy the last
   * address of X-Forwarded-For (what the proxy added), counted while its request is under way;
   * `busy` when that peer already has its share of requests under way.
   */
  private peer(req: IncomingMessage): { remote?: string; counted: boolean } | 'busy' {
    const direct = req.socket.remoteAddress?.replace(/^::ffff:/, '');
    const forwarded = req.headers['x-forwarded-for'];
    if (!direct || !this.trusted.has(direct) || typeof forwarded !== 'string')
      return { remote: direct, counted: false };
    const peer = forwarded.split(',').at(-1)!.trim() || direct;
    const busy = this.proxied.get(peer) ?? 0;
    if (busy >= this.state.maxConnectionsPerPeer) {
      this.state.refusedEarly('connections');
      return 'busy';
    }
    this.proxied.set(peer, busy + 1);
    return { remote: peer, counted: true };
  }

  private async judged(req: IncomingMessage, res: ServerResponse, pathname: string, remote: string | undefined) {
    const { state } = this;
    const meta: RequestMeta = {
      method: req.method ?? '?',
      path: state.path ? (pathname === state.path ? '(--path)' : '(other path)') : pathname,
      remote,
      headers: req.headers,
    };
    // Answered without reading the body: it is drained (bounded by the request timeout).
    const refuse = async (status: number, error: string) => {
      req.resume();
      this.write(res, await state.refuse(meta, status, error));
    };
    if (req.method !== 'POST') return refuse(405, `method ${req.method} not allowed`);
    if (state.path && pathname !== state.path) return refuse(404, 'no such path');
    const mediaType = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (!JSON_TYPE.test(mediaType)) return refuse(415, 'content type must be application/json');
    const max = state.maxBodyBytes;
    if (Number(req.headers['content-length'] ?? 0) > max) return refuse(413, `body over ${max} bytes`);
    const raw = await readBody(req, max);
    if (raw === undefined) return this.write(res, await state.refuse(meta, 413, `body over ${max} bytes`));
    this.write(res, await state.judge(meta, raw));
  }

  /**
   * Writes an answer, counted when it is one on the notification path (`counted`); 405 and 413 (a
   * body left unread) and answers while stopping close the connection.
   */
  private write(res: ServerResponse, reply: Reply, counted = true): void {
    if (counted && !this.timedOut.has(res)) this.state.answered(reply.status, reply.labels);
    const extra: Record<string, string> = { ...reply.headers };
    if (reply.status === 405) extra.allow = 'POST';
    if (this.closing || reply.status === 405 || reply.status === 413) extra.connection = 'close';
    res.writeHead(reply.status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(reply.body),
      ...extra,
    });
    res.end(reply.body);
    // Answered: the socket waits for its next request's headers from now.
    const clock = this.clocks.get(res.socket!);
    if (clock) {
      clock.request = undefined;
      clock.res = undefined;
      clock.waiting = performance.now();
      clock.read = res.socket!.bytesRead;
    }
    reply.after?.();
  }

  /**
   * Connection caps: the total (Node closes sockets past maxConnections at once), and per peer
   * address, so one peer (or a flood of half-open connections from it) cannot take every slot and
   * lock the service's own notifications out.
   */
  private capConnections(): void {
    this.server.maxConnections = this.state.maxConnections;
    const peers = new Map<string, number>();
    this.server.on('connection', (socket: Socket) => {
      const peer = socket.remoteAddress ?? '?';
      const open = (peers.get(peer) ?? 0) + 1;
      if (open > this.state.maxConnectionsPerPeer && !this.trusted.has(peer.replace(/^::ffff:/, ''))) {
        this.connectionsRefused += 1;
        this.state.refusedEarly('connections');
        socket.destroy();
        return;
      }
      peers.set(peer, open);
      socket.once('close', () => release(peers, peer));
    });
    // The deadlines watch the socket requests come on (with TLS, the one made by the handshake).
    this.server.on(this.state.tls ? 'secureConnection' : 'connection', (socket: Socket) => {
      if (socket.destroyed) return;
      this.clocks.set(socket, { waiting: performance.now(), read: 0 });
      socket.once('close', () => this.clocks.delete(socket));
    });
    this.server.on('drop', () => {
      this.connectionsRefused += 1;
      this.state.refusedEarly('connections');
    });
  }

  /**
   * Our own header and request deadlines. Node's (headersTimeout, requestTimeout) stop checking
   * at the first connection that is not expired, so one idle keep-alive connection let clients
   * trickling bytes stay forever (a slow-client test found it).
   */
  private keepDeadlines(): NodeJS.Timeout {
    const { headersTimeoutMs, requestTimeoutMs } = this.state;
    const timer = setInterval(
      () => {
        const now = performance.now();
        for (const [socket, clock] of this.clocks) {
          const late =
            clock.request !== undefined
              ? now - clock.request > requestTimeoutMs
              : socket.bytesRead > clock.read && now - clock.waiting > headersTimeoutMs;
          if (!late) continue;
          this.clocks.delete(socket);
          this.state.refusedEarly('timeout');
          // Answered 408 as Node's own check does, unless an answer has begun (then it is cut).
          if (socket.writable && !socket.destroyed && !clock.res?.headersSent) {
            this.state.answered(408);
            if (clock.res) this.timedOut.add(clock.res);
            socket.end(TIMED_OUT);
          }
          setTimeout(() => socket.destroy(), 100).unref();
        }
      },
      Math.max(50, Math.min(1_000, headersTimeoutMs / 2)),
    );
    timer.unref();
    return timer;
  }
}

/** One fewer under way for `peer`; none left: forgotten. */
function release(counts: Map<string, number>, peer: string): void {
  const left = (counts.get(peer) ?? 1) - 1;
  if (left <= 0) counts.delete(peer);
  else counts.set(peer, left);
}
