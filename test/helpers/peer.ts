import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a test peer received. */
export interface PeerRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: string;
}

/** What a test peer answers: a status, a body (an object is sent as JSON), headers. */
export interface PeerAnswer {
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface Peer {
  url: string;
  requests: PeerRequest[];
  /** Requests on one path (without the query). */
  on(path: string): PeerRequest[];
  close(): Promise<void>;
}

/**
 * A small HTTP listener over loopback that answers as a test tells it to: the real service's
 * answers that the spec allows (and some it does not), where the sandbox has no variant for them.
 */
export async function startPeer(answer: (req: PeerRequest) => PeerAnswer | Promise<PeerAnswer>): Promise<Peer> {
  const requests: PeerRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const url = new URL(req.url ?? '/', 'http://peer');
      const r: PeerRequest = {
        method: req.method ?? '',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(r);
      const a = await answer(r);
      const body = a.body === undefined ? '' : typeof a.body === 'string' ? a.body : JSON.stringify(a.body);
      res.writeHead(a.status ?? 200, { 'content-type': 'application/json', ...a.headers });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    on: (path) => requests.filter((r) => r.path === path),
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

/** The spec's envelope. */
export const envelope = (data: unknown, code = 200, status = 'OK') => ({ data, status, code });
