import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import {
  DEFAULT_HOOK_HOST,
  DEFAULT_HOOK_PORT,
  HEADERS_TIMEOUT_MS,
  KEEP_ALIVE_TIMEOUT_MS,
  MAX_HEADER_BYTES,
  MAX_BODY_BYTES,
  REQUEST_TIMEOUT_MS,
  SHUTDOWN_GRACE_MS,
  FORWARD_LEASE_MS,
  FORWARD_CONCURRENCY,
  FORWARD_QUEUE,
  FORWARD_QUEUE_BYTES,
  MAX_CONNECTIONS,
  MAX_CONNECTIONS_PER_PEER,
  MAX_DEFERRED,
} from './defaults.js';
import type { EventSummary } from '../schemas/detect.js';
import { recordBody, type HookRecord } from '../state/event-log.js';
import { Intake, LogWriteError, type IntakeOptions, type Outcome, type RequestMeta } from './intake.js';
import type { Transport } from '../api/transport.js';
import { VERDICT_HEADER, notificationTransport, passOnHeaders, post } from './send.js';
import type { StoredEvent } from '../state/types.js';
import { NdjsonStore } from '../state/ndjson.js';
import { REDACTED } from '../redact.js';

export interface ListenerOptions extends IntakeOptions {
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** When set, POSTs are accepted on this path only; it may carry a secret segment and is never shown. */
  path?: string;
  /** Accepted events are sent on, bytes and headers as received, to this URL. */
  forwardTo?: string;
  /** The transport forwards go through (default: one with the forwarding defaults). */
  forwardTransport?: Transport;
  /**
   * How long a forward claimed by this instance holds before another instance sharing the store
   * may take it over (it should outlast a forward's attempts). Default FORWARD_LEASE_MS.
   */
  forwardLeaseMs?: number;
  /** Request headers larger than this are answered 431 (Node's own default: 16 KiB). */
  maxHeaderBytes?: number;
  /** An idle keep-alive connection is closed after this long. */
  keepAliveTimeoutMs?: number;
  maxBodyBytes?: number;
  /** Forwards waiting or under way, at most (count and bytes); past it events wait in the store. */
  forwardQueue?: number;
  forwardQueueBytes?: number;
  /** Open connections at most, and per peer address (so one peer cannot take them all). */
  maxConnections?: number;
  maxConnectionsPerPeer?: number;
  /** Defaults HEADERS_TIMEOUT_MS and REQUEST_TIMEOUT_MS. */
  headersTimeoutMs?: number;
  requestTimeoutMs?: number;
}

/** What the listener tells whoever renders it; it never prints. */
export type ListenerEvent =
  | { kind: 'event'; seq: number; record: HookRecord; summary: EventSummary; forwarding: boolean }
  | { kind: 'refused'; seq: number; record: HookRecord }
  /** `ms`: how long the attempt took; `waitMs` (not final): how long until the next one. */
  | {
      kind: 'forward';
      seq: number;
      attempt: number;
      final: boolean;
      status?: number;
      ms?: number;
      waitMs?: number;
      error?: string;
    }
  | { kind: 'error'; message: string }
  /** Refused requests not recorded since the last such notice (over --refused-log-rate). */
  | { kind: 'unlogged'; count: number; total: number };

/** What /healthz shows: counters of refused requests, connections and forwards. */
export interface ListenerStats {
  refused: number;
  refusedUnlogged: number;
  connectionsRefused: number;
  /** Forwards waiting or under way. */
  forwardQueue: number;
  /** Accepted events past the queue, waiting in the store to be forwarded. */
  forwardDeferred: number;
}

export interface Listener {
  /** Base URL, e.g. `http://127.0.0.1:8787`. */
  url: string;
  port: number;
  on(handler: (event: ListenerEvent) => void): () => void;
  stats(): ListenerStats;
  /** Stops accepting, lets in-flight requests and forwards finish (within a grace period). */
  close(): Promise<void>;
}

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json$/;
const rawAnswer = (status: string, error: string) => {
  const body = JSON.stringify({ error });
  return `HTTP/1.1 ${status}\r\nconnection: close\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`;
};
const MALFORMED = rawAnswer('400 Bad Request', 'malformed request');
const TIMED_OUT = rawAnswer('408 Request Timeout', 'request too slow');
const HEADERS_TOO_LARGE = rawAnswer('431 Request Header Fields Too Large', 'request headers too large');

/**
 * Starts the notification listener: node:http on loopback by default; POST on any path (or only
 * on `path`); `GET /healthz`; 405 for other methods, 413 over the size cap, 415 for a content type
 * that is not JSON, 400 for a body that is not JSON; header and request timeouts.
 */
export async function startListener(options: ListenerOptions): Promise<Listener> {
  const owner = `${process.pid}-${randomBytes(4).toString('hex')}`;
  const leaseMs = options.forwardLeaseMs ?? FORWARD_LEASE_MS;
  const claim = { owner, leaseMs };
  const intake = new Intake({ ...options, ...(options.forwardTo ? { forwardClaim: claim } : {}) });
  const store = intake.store;
  const handlers = new Set<(e: ListenerEvent) => void>();
  const emit = (e: ListenerEvent) => handlers.forEach((h) => h(e));
  const maxBody = options.maxBodyBytes ?? MAX_BODY_BYTES;
  const forwards = new Set<Promise<void>>();
  let seq = 0;
  let closing = false;

  // Our own header and request deadlines (see below): each socket, when it started waiting for a
  // request's headers, and when its request (headers read) began.
  const clocks = new Map<Socket, { waiting: number; read: number; request?: number; res?: ServerResponse }>();

  const shownPath = (path: string) => (options.path ? (path === options.path ? '(--path)' : '(other path)') : path);

  /** Writes the HTTP answer to an incoming request (an answer, never a delivery: those go out). */
  function writeAnswer(res: ServerResponse, status: number, body: string, extra: Record<string, string> = {}) {
    if (closing) extra.connection = 'close';
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...extra });
    res.end(body);
    // Answered: the socket waits for its next request's headers from now.
    const clock = clocks.get(res.socket!);
    if (clock) {
      clock.request = undefined;
      clock.res = undefined;
      clock.waiting = performance.now();
      clock.read = res.socket!.bytesRead;
    }
  }

  let unloggedShown = 0;
  let unloggedAt = -Infinity;
  /** At most one notice every 10 s about refused requests left out of the log. */
  function noteUnlogged() {
    const now = performance.now();
    if (now - unloggedAt < 10_000) return;
    const total = intake.counters.refusedUnlogged;
    emit({ kind: 'unlogged', count: total - unloggedShown, total });
    [unloggedShown, unloggedAt] = [total, now];
  }

  /**
   * Answers an incoming request with its outcome, then tells the command what arrived and, for a
   * new accepted event with --forward-to, starts its forward (the one outgoing delivery).
   */
  function respond(res: ServerResponse, outcome: Outcome, n: number, raw?: Buffer) {
    writeAnswer(
      res,
      outcome.answer,
      outcome.reply,
      outcome.answer === 413 || outcome.answer === 405 ? closeHeaders(outcome.answer) : {},
    );
    if (outcome.unlogged) return noteUnlogged();
    if (raw === undefined) return emit({ kind: 'refused', seq: n, record: outcome.record });
    const appended = outcome.appended;
    const verdict = outcome.record.verdict;
    const ok = outcome.answer === 200 && verdict !== 'rejected' && verdict !== 'unavailable';
    const event = (forwarding: boolean): ListenerEvent => ({
      kind: 'event',
      seq: n,
      record: outcome.record,
      summary: outcome.summary,
      forwarding,
    });
    if (!options.forwardTo || !ok || !appended) return emit(event(false));
    const headers = { ...passOnHeaders(res.req.headers), [VERDICT_HEADER]: verdict ?? 'unsigned' };
    if (appended.claimed) {
      emit(event(true));
      return dispatch({ n, id: appended.firstId, raw, headers }, appended.offset);
    }
    if (!outcome.record.duplicate) return emit(event(false));
    // A retry of an event whose forward failed: sent on again, by one receiver only.
    void store.reclaimFailed(appended, claim).then(
      (mine) => {
        emit(event(mine));
        if (mine) dispatch({ n, id: appended.firstId, raw, headers }, appended.offset);
      },
      () => emit(event(false)),
    );
  }

  // The forward queue: `reserved` counts what waits or is under way (count and bytes). An event
  // past it waits in the store (deferred, by id, and by offset in an NDJSON file) and joins the
  // queue, oldest first, as it empties; nothing is held in memory past the bound.
  const queueCount = options.forwardQueue ?? FORWARD_QUEUE;
  const queueBytes = options.forwardQueueBytes ?? FORWARD_QUEUE_BYTES;
  const reserved = { count: 0, bytes: 0 };
  interface Job {
    n: number;
    id: string;
    raw: Buffer;
    headers: Record<string, string>;
  }
  const waiting: Job[] = [];
  const deferred: Array<{ n: number; id: string; offset?: number }> = [];
  let active = 0;
  let refilling = false;
  /** Where a deferred event can be read back: the log file, or a shared store. */
  const canDefer = store.kind !== 'ndjson' || !!options.log;
  const fits = (bytes: number) =>
    reserved.count < queueCount && (reserved.count === 0 || reserved.bytes + bytes <= queueBytes);
  /** True when an event arriving now could be neither queued nor deferred (no log to keep it in). */
  const queueFull = () => !canDefer && !fits(0);

  function dispatch(job: Job, offset?: number) {
    if (deferred.length === 0 && fits(job.raw.length)) return enqueue(job);
    if (canDefer && deferred.length < MAX_DEFERRED)
      return void deferred.push({ n: job.n, id: job.id, ...(offset !== undefined ? { offset } : {}) });
    // Reached only when the store cannot hold it back either: it goes now rather than be lost.
    enqueue(job);
  }

  function enqueue(job: Job) {
    reserved.count += 1;
    reserved.bytes += job.raw.length;
    waiting.push(job);
    pump();
  }

  function pump() {
    while (active < FORWARD_CONCURRENCY && waiting.length > 0) {
      const job = waiting.shift()!;
      active += 1;
      void forward(job.n, job.id, job.raw, job.headers).finally(() => {
        active -= 1;
        reserved.count -= 1;
        reserved.bytes -= job.raw.length;
        void refill();
        pump();
      });
    }
  }

  /** Deferred events join the queue, oldest first, while it has room. */
  async function refill() {
    if (refilling) return;
    refilling = true;
    try {
      while (deferred.length > 0 && fits(0)) {
        const d = deferred.shift()!;
        const record = await load(d);
        if (!record) {
          emit({
            kind: 'error',
            message: `event #${d.n} can no longer be read back from the store (log rotated?): not forwarded; hooks replay can send it`,
          });
          continue;
        }
        // The recorded headers, less the redacted ones (their values were never kept).
        const recorded = Object.fromEntries(Object.entries(record.headers).filter(([, v]) => v !== REDACTED));
        enqueue({
          n: d.n,
          id: d.id,
          raw: recordBody(record),
          headers: { ...passOnHeaders(recorded), [VERDICT_HEADER]: record.verdict ?? 'unsigned' },
        });
      }
    } finally {
      refilling = false;
    }
  }

  async function load(d: { id: string; offset?: number }): Promise<HookRecord | undefined> {
    if (d.offset !== undefined && store instanceof NdjsonStore) return store.readAt(d.offset);
    return (await store.get(d.id).catch(() => undefined))?.record;
  }

  let connectionsRefused = 0;
  const stats = (): ListenerStats => ({
    refused: intake.counters.refused,
    refusedUnlogged: intake.counters.refusedUnlogged,
    connectionsRefused,
    forwardQueue: reserved.count,
    forwardDeferred: deferred.length,
  });

  let forwardTransport: Transport | undefined;

  function forward(n: number, id: string, raw: Buffer, headers: Record<string, string>): Promise<void> {
    forwardTransport ??= options.forwardTransport ?? notificationTransport();
    const since = performance.now();
    // With a shared store the claim is renewed as the forward starts: an event that waited in the
    // queue past its lease may have been taken over by another receiver, which then forwards it.
    const mine = store.kind === 'ndjson' ? Promise.resolve(true) : store.renewClaim(id, claim).catch(() => false);
    const job = mine.then(async (held) => {
      if (!held) {
        emit({
          kind: 'error',
          message: `event ${id}: its forward is no longer this receiver's (taken over, or the store is unreachable); not sent from here`,
        });
        return;
      }
      return sendOn(n, id, raw, headers, since);
    });
    forwards.add(job);
    void job.finally(() => forwards.delete(job));
    return job;
  }

  function sendOn(n: number, id: string, raw: Buffer, headers: Record<string, string>, since: number): Promise<void> {
    return post(forwardTransport!, options.forwardTo!, raw, headers, {
      onRetry: (attempt, failure) => {
        const ms = Math.round(performance.now() - since);
        emit({ kind: 'forward', seq: n, attempt, final: false, ms, ...failure });
        since = performance.now() + (failure.waitMs ?? 0);
      },
    }).then(async (o) => {
      const okay = o.answer !== undefined && o.answer.status < 300;
      emit({
        kind: 'forward',
        seq: n,
        attempt: o.attempts,
        final: true,
        ...(o.answer ? { status: o.answer.status, ms: o.answer.ms } : { error: o.error }),
      });
      await store
        .finishForward(id, owner, {
          ok: okay,
          attempts: o.attempts,
          ...(o.answer ? { status: o.answer.status } : {}),
          ...(o.error ? { error: o.error } : {}),
        })
        .catch((error: Error) =>
          emit({ kind: 'error', message: `cannot record the forward of event ${id}: ${error.message}` }),
        );
    });
  }

  /** Forwards whose instance stopped before finishing them (their lease ran out) are taken over. */
  async function takeOver(): Promise<void> {
    let taken: StoredEvent[];
    try {
      taken = await store.takeAbandoned(claim, 100);
    } catch {
      return; // the store is unreachable: the next sweep tries again
    }
    for (const e of taken) {
      const raw = Buffer.from(e.record.body ?? '', e.record.encoding === 'base64' ? 'base64' : 'utf8');
      // The recorded headers, less the redacted ones (their values were never kept).
      const recorded = Object.fromEntries(Object.entries(e.record.headers).filter(([, v]) => v !== REDACTED));
      enqueue({
        n: ++seq,
        id: e.id,
        raw,
        headers: { ...passOnHeaders(recorded), [VERDICT_HEADER]: e.record.verdict ?? 'unsigned' },
      });
    }
  }
  const sweeper =
    options.forwardTo && store.kind !== 'ndjson'
      ? setInterval(() => void takeOver(), Math.max(50, Math.min(leaseMs / 2, 5_000)))
      : undefined;
  sweeper?.unref();

  function closeHeaders(status: number): Record<string, string> {
    return status === 405 ? { allow: 'POST', connection: 'close' } : { connection: 'close' };
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const [pathname = '/'] = (req.url ?? '/').split('?');
    if (req.method === 'GET' && pathname === '/healthz')
      return writeAnswer(res, 200, JSON.stringify({ ok: true, ...stats() }));
    const meta: RequestMeta = {
      method: req.method ?? '?',
      path: shownPath(pathname),
      remote: req.socket.remoteAddress,
      headers: req.headers,
    };
    const n = ++seq;
    const refuse = async (status: number, error: string, raw?: Buffer) =>
      respond(res, await intake.refuse(meta, status, error, raw), n);
    if (req.method !== 'POST') return discard(req, () => refuse(405, `method ${req.method} not allowed`));
    if (options.path && pathname !== options.path) return discard(req, () => refuse(404, 'no such path'));
    const mediaType = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (!JSON_TYPE.test(mediaType)) return discard(req, () => refuse(415, 'content type must be application/json'));
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > maxBody) return discard(req, () => refuse(413, `body over ${maxBody} bytes`));
    const raw = await readBody(req, maxBody);
    if (raw === undefined) return refuse(413, `body over ${maxBody} bytes`);
    // Forward queue full and nowhere to keep the event until it has room: not acknowledged (the
    // service sends it again later), and not recorded, so its retry is taken as new.
    if (options.forwardTo && queueFull())
      return writeAnswer(res, 503, JSON.stringify({ error: 'forward queue full: send it again later' }), {
        'retry-after': '5',
      });
    const outcome = await intake.accept(meta, raw);
    if (outcome.record.type === null) return respond(res, outcome, n); // refused: not JSON
    respond(res, outcome, n, raw);
  }

  const headersTimeout = options.headersTimeoutMs ?? HEADERS_TIMEOUT_MS;
  const serverOptions = {
    headersTimeout,
    requestTimeout: options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS,
    keepAliveTimeout: options.keepAliveTimeoutMs ?? KEEP_ALIVE_TIMEOUT_MS,
    maxHeaderSize: options.maxHeaderBytes ?? MAX_HEADER_BYTES,
    // Node checks the timeouts every 30 s by default, which would let a slow client stay far longer.
    connectionsCheckingInterval: Math.min(1_000, headersTimeout),
  };
  const server: Server = createServer(serverOptions, (req, res) => {
    const clock = clocks.get(req.socket);
    if (clock) {
      clock.request = performance.now();
      clock.res = res;
    }
    handle(req, res).catch((error: unknown) => {
      if (error instanceof ClientGone) return; // nobody left to answer, nothing was recorded
      // Only a log that cannot be written gets here: the request is not acknowledged, so the
      // service will send it again.
      const message = error instanceof LogWriteError ? error.message : 'internal error';
      emit({ kind: 'error', message });
      if (!res.headersSent) writeAnswer(res, 503, JSON.stringify({ error: message }), { connection: 'close' });
      else res.destroy();
    });
  });
  // Connection caps: the total (Node closes sockets past maxConnections at once), and per peer
  // address, so one peer (or a flood of half-open connections from it) cannot take every slot and
  // lock the service's own notifications out.
  server.maxConnections = options.maxConnections ?? MAX_CONNECTIONS;
  const perPeer = options.maxConnectionsPerPeer ?? MAX_CONNECTIONS_PER_PEER;
  const peers = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const peer = socket.remoteAddress ?? '?';
    const open = (peers.get(peer) ?? 0) + 1;
    if (open > perPeer) {
      connectionsRefused += 1;
      socket.destroy();
      return;
    }
    peers.set(peer, open);
    socket.once('close', () => {
      const left = (peers.get(peer) ?? 1) - 1;
      if (left <= 0) peers.delete(peer);
      else peers.set(peer, left);
    });
  });
  server.on('drop', () => (connectionsRefused += 1));

  // Our own header and request deadlines. Node's (headersTimeout, requestTimeout) stop checking
  // at the first connection that is not expired, so one idle keep-alive connection let clients
  // trickling bytes stay forever (a slow-client test found it). Each socket: when it started
  // waiting for a request's headers, and when its request (headers read) began.
  server.on('connection', (socket: Socket) => {
    if (socket.destroyed) return;
    clocks.set(socket, { waiting: performance.now(), read: 0 });
    socket.once('close', () => clocks.delete(socket));
  });
  const requestTimeout = options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  const deadlines = setInterval(
    () => {
      const now = performance.now();
      for (const [socket, clock] of clocks) {
        const late =
          clock.request !== undefined
            ? now - clock.request > requestTimeout
            : socket.bytesRead > clock.read && now - clock.waiting > headersTimeout;
        if (!late) continue;
        clocks.delete(socket);
        // Answered 408 as Node's own check does, unless an answer has begun (then it is cut).
        if (socket.writable && !socket.destroyed && !clock.res?.headersSent) socket.end(TIMED_OUT);
        setTimeout(() => socket.destroy(), 100).unref();
      }
    },
    Math.max(50, Math.min(1_000, headersTimeout / 2)),
  );
  deadlines.unref();
  // Requests the HTTP parser cannot read (garbage, headers over Node's cap) get a plain 400; a
  // client too slow with its headers or body, 408.
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    if (socket.writable && !socket.destroyed)
      socket.end(
        error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? TIMED_OUT
          : error.code === 'HPE_HEADER_OVERFLOW'
            ? HEADERS_TOO_LARGE
            : MALFORMED,
      );
    else socket.destroy();
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? DEFAULT_HOOK_PORT, options.host ?? DEFAULT_HOOK_HOST, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;

  return {
    url: `http://${host}:${address.port}`,
    port: address.port,
    stats,
    on(handler) {
      handlers.add(handler);
      return () => handlers.delete(handler);
    },
    async close() {
      closing = true;
      clearInterval(deadlines);
      clearInterval(sweeper);
      // Stops accepting; idle keep-alive connections close now, busy ones once answered (their
      // answers carry `connection: close`); only after the grace period is anything cut.
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      let timer: NodeJS.Timeout | undefined;
      const grace = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), SHUTDOWN_GRACE_MS)));
      if ((await Promise.race([stopped, grace])) === 'late') server.closeAllConnections();
      // Forwards under way, then what waits in the queue, get the rest of the grace period.
      const drained = (async () => {
        while (forwards.size > 0) await Promise.all([...forwards]);
      })();
      await Promise.race([drained, grace]);
      clearTimeout(timer);
      const left = [...waiting.map((j) => j.n), ...deferred.map((d) => d.n)];
      if (left.length > 0 || active > 0) {
        emit({
          kind: 'error',
          message: `${left.length + active} accepted events not forwarded before stopping${left.length ? ` (from event #${Math.min(...left)})` : ''}: they are in the store; hooks replay --since sends them`,
        });
      }
      await stopped;
    },
  };
}

/**
 * Reads a body up to `max` bytes; undefined when it is bigger (the rest is not read). Rejects when
 * the client goes away (or is cut off by the request timeout) before the end.
 */
function readBody(req: IncomingMessage, max: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    req.on('close', () => {
      if (!req.complete) reject(new ClientGone());
    });
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        req.off('data', onData);
        req.resume();
        return resolve(undefined);
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.on('end', () => resolve(Buffer.concat(chunks, size)));
    req.on('error', reject);
  });
}

class ClientGone extends Error {}

/** Answers without reading a body: it is drained (bounded by the request timeout) and the connection closed. */
function discard(req: IncomingMessage, answer: () => Promise<void>): Promise<void> {
  req.resume();
  return answer();
}
