import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { UsageError } from '../../errors.js';
import type { EventFilter, EventStore, StoredEvent } from '../../store/events.js';
import { guarded, type Handler } from '../guard.js';
import type { Resent } from '../resend.js';
import { admit, redirectWithCookie, type Access } from './access.js';
import { detailAnswer, listAnswer, PAGE } from './api.js';
import { ASSETS, SECURITY_HEADERS, shell } from './page.js';

export interface InspectorOptions {
  /** The events to show: the NDJSON log or the PostgreSQL store (read only). */
  store: EventStore;
  host: string;
  port: number;
  /** Required by every request; undefined only on a loopback address. */
  token?: string;
  /** The URL's filters, read as `hooks events` reads its flags; throws an Error whose message says what is wrong. */
  filterOf(query: URLSearchParams): EventFilter;
  /** The export's lines, as `hooks events --format csv|ndjson` writes them. */
  exportLines(format: 'csv' | 'ndjson', reveal: boolean): { head: string; line(e: StoredEvent): string };
  /** Sending an event again (as `hooks replay`), when there is a forward target. */
  forward?: { to: string; send(event: StoredEvent, includeUnverified: boolean): Promise<Resent> };
  /** A request whose handling failed unexpectedly (a bug of ours): answered 500, told here. */
  onError(handler: Handler, error: unknown): void;
}

export interface Inspector {
  /** The address to open (with the token, when there is one). */
  url: string;
  close(): Promise<void>;
}

/** Clients of the live stream, woken together when the store grows. */
class Live {
  private readonly clients = new Set<ServerResponse>();
  private watching: AbortController | undefined;
  private newest = '';

  constructor(private readonly store: EventStore) {}

  add(res: ServerResponse): void {
    res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': 'text/event-stream', connection: 'keep-alive' });
    res.write('retry: 2000\n\n');
    this.clients.add(res);
    const ping = setInterval(() => res.write(': ping\n\n'), 15_000);
    res.on('close', () => {
      clearInterval(ping);
      this.clients.delete(res);
      if (this.clients.size === 0) this.watching?.abort();
    });
    // A store that cannot be read now: the client is told at the next wake.
    this.tell(res).catch(() => undefined);
    if (!this.watching) void this.watch();
  }

  private async tell(res?: ServerResponse): Promise<void> {
    const { newest } = await this.store.page({}, { limit: 0 });
    if (res) res.write(`data: ${JSON.stringify({ newest })}\n\n`);
    else if (newest !== this.newest) for (const c of this.clients) c.write(`data: ${JSON.stringify({ newest })}\n\n`);
    this.newest = newest;
  }

  /** One watch of the store for all clients, while there are any. */
  private async watch(): Promise<void> {
    const stop = (this.watching = new AbortController());
    try {
      while (!stop.signal.aborted && (await this.store.waitForMore(stop.signal))) await this.tell();
    } catch {
      // the store went away: clients reconnect (retry) and are told again
      for (const c of this.clients) c.end();
    } finally {
      if (this.watching === stop) this.watching = undefined;
    }
  }

  close(): void {
    this.watching?.abort();
    for (const c of this.clients) c.end();
  }
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, {
    ...SECURITY_HEADERS,
    'content-type': typeof body === 'string' ? 'text/plain; charset=utf-8' : 'application/json',
  });
  res.end(text);
}

/** What the request got wrong (400), as a filter's UsageError is. */
class BadRequest extends Error {}

/** A failure of the store's (503), apart from the inspector's own (500). */
class ReadFailed extends Error {}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  let text = '';
  for await (const chunk of req) {
    text += chunk;
    if (text.length > 4096) throw new BadRequest('body too large');
  }
  let v: unknown;
  try {
    v = text ? JSON.parse(text) : {};
  } catch {
    throw new BadRequest('the body is not JSON');
  }
  return v && typeof v === 'object' ? (v as Record<string, unknown>) : {};
}

/** The store, whatever its methods reject with (or an iteration throws) marked as the store's failure. */
function marked(store: EventStore): EventStore {
  const mark = (error: unknown): never => {
    throw new ReadFailed(error instanceof Error ? error.message : String(error));
  };
  async function* iterated(items: AsyncIterable<unknown>) {
    try {
      yield* items;
    } catch (error) {
      mark(error);
    }
  }
  return new Proxy(store, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const result: unknown = value.apply(target, args);
        if (result instanceof Promise) return result.catch(mark);
        if (result !== null && typeof result === 'object' && Symbol.asyncIterator in result)
          return iterated(result as AsyncIterable<unknown>);
        return result;
      };
    },
  });
}

/** Starts the inspector's HTTP server; resolves once it listens. */
export async function startInspector(o: InspectorOptions): Promise<Inspector> {
  const access: Access = {
    port: o.port,
    csrf: randomBytes(18).toString('base64url'),
    ...(o.token ? { token: o.token } : {}),
  };
  const store = marked(o.store);
  const live = new Live(store);

  const route = async (req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> => {
    const q = url.searchParams;
    const reveal = q.get('reveal') === '1';
    const path = url.pathname;
    if (req.method === 'GET' && path === '/') {
      res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': 'text/html; charset=utf-8' });
      res.end(shell({ where: store.where, csrf: access.csrf, canSend: !!o.forward }));
      return;
    }
    const asset = req.method === 'GET' ? ASSETS[path] : undefined;
    if (asset) {
      res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': asset.type });
      res.end(asset.body);
      return;
    }
    if (req.method === 'GET' && path === '/favicon.ico') return void res.writeHead(204, SECURITY_HEADERS).end();
    if (req.method === 'GET' && path === '/api/stream') return live.add(res);
    if (req.method === 'GET' && path === '/api/events') {
      const limit = Math.min(Math.max(Number(q.get('limit') ?? PAGE) || PAGE, 1), 500);
      const before = q.get('before') ?? undefined;
      const after = q.get('after') ?? undefined;
      for (const id of [before, after])
        if (id !== undefined && !/^\d{1,19}$/.test(id)) return send(res, 400, { error: 'bad id' });
      return send(res, 200, await listAnswer(store, o.filterOf(q), { limit, before, after }, reveal));
    }
    const one = /^\/api\/events\/(\d{1,19})(\/send)?$/.exec(path);
    if (one && req.method === 'GET' && !one[2]) {
      const detail = await detailAnswer(store, one[1]!, reveal, o.forward?.to);
      return detail ? send(res, 200, detail) : send(res, 404, { error: `no event ${one[1]}` });
    }
    if (one && req.method === 'POST' && one[2]) {
      if (!o.forward) return send(res, 409, { error: 'no forward target: start with --forward-to URL' });
      const body = await readJson(req);
      const event = await store.get(one[1]!);
      if (!event) return send(res, 404, { error: `no event ${one[1]}` });
      const done = await o.forward.send(event, body.includeUnverified === true);
      if ('skipped' in done)
        return send(res, 422, {
          error:
            done.skipped === 'not verified'
              ? 'not verified on arrival: tick "also unverified" to send it as it came'
              : 'not an event to send again (refused, rejected or a retry)',
        });
      const { outcome } = done;
      return send(res, 200, {
        status: outcome.answer?.status ?? null,
        ...(outcome.error ? { error: outcome.error } : {}),
        attempts: outcome.attempts,
        unsigned: done.unsigned,
      });
    }
    if (req.method === 'GET' && path === '/api/export') {
      const format = q.get('format') === 'ndjson' ? 'ndjson' : 'csv';
      const lines = o.exportLines(format, reveal);
      const filter = o.filterOf(q);
      res.writeHead(200, {
        ...SECURITY_HEADERS,
        'content-type': format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson',
        'content-disposition': `attachment; filename="events.${format}"`,
      });
      // Oldest first as `hooks events` writes them, at the pace the browser reads.
      let pending = lines.head;
      for await (const e of store.read(filter)) {
        pending += lines.line(e);
        if (pending.length >= 65_536) {
          if (!res.write(pending)) await once(res, 'drain');
          pending = '';
        }
        if (res.destroyed) return;
      }
      res.end(pending);
      return;
    }
    send(res, 404, { error: 'not found' });
  };

  const failed = (error: unknown) => o.onError('inspector', error);
  const server = createServer(
    guarded(async (req, res) => {
      let url: URL;
      try {
        url = new URL(req.url ?? '/', 'http://inspector');
      } catch {
        return send(res, 400, 'malformed request target');
      }
      const verdict = admit(req, url, access);
      if (verdict !== 'ok') {
        if ('redirect' in verdict) return redirectWithCookie(res, access, verdict.redirect);
        return send(res, verdict.status, verdict.message);
      }
      try {
        await route(req, res, url);
      } catch (error) {
        // A filter or body the request gets wrong is the visitor's to fix; the store failing is
        // the store's (503); anything else is ours (500, told once).
        const bad = error instanceof UsageError || error instanceof BadRequest;
        if (!bad && !(error instanceof ReadFailed)) throw error;
        if (res.headersSent) return void res.destroy();
        send(res, bad ? 400 : 503, { error: bad ? error.message : `cannot read ${store.where}: ${error.message}` });
      }
    }, failed),
  );
  server.listen(o.port, o.host);
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  access.port = port;
  // Every address of the machine: the address to give is its name (0.0.0.0 is no place to go).
  const named = o.host === '0.0.0.0' || o.host === '::' ? hostname() : o.host;
  const host = named.includes(':') ? `[${named}]` : named;
  return {
    url: `http://${host}:${port}/${o.token ? `?token=${o.token}` : ''}`,
    async close() {
      live.close();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
