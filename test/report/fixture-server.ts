import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A loopback listener that answers each path with a fixed envelope (the test's own tiny service). */
export async function fixtureServer(
  routes: Record<string, () => string | Buffer>,
  options: { cutFirst?: number; pieceDelayMs?: number } = {},
): Promise<{ url: string; hits: string[]; close(): Promise<void> }> {
  const hits: string[] = [];
  // The first `cutFirst` answers lose their connection half-way through the body.
  let cuts = options.cutFirst ?? 0;
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0]!;
    const query = (req.url ?? '').split('?')[1] ?? '';
    hits.push(`${req.method} ${req.url}`);
    req.resume();
    req.on('end', () => {
      const route = routes[`${path}?${query}`] ?? routes[path];
      if (!route) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ data: null, status: `no such thing: ${path}`, code: 404 }));
        return;
      }
      const body = route();
      const bytes = Buffer.from(body);
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': bytes.length });
      const cutAt = cuts-- > 0 ? Math.floor(bytes.length / 2) : Infinity;
      // In small pieces, so that records are cut by chunk boundaries.
      let i = 0;
      const step = () => {
        if (i >= cutAt) return res.socket?.destroy();
        if (i >= bytes.length) return res.end();
        res.write(bytes.subarray(i, i + 97));
        i += 97;
        if (options.pieceDelayMs) setTimeout(step, options.pieceDelayMs);
        else setImmediate(step);
      };
      step();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, hits, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
