import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import type { Agent as HttpsAgent } from 'node:https';

/**
 * The transport's HTTP client when no proxy is configured: Node's own http and https, which are
 * part of every Node start. undici (needed for HTTPS_PROXY / HTTP_PROXY / NO_PROXY) is half a
 * megabyte of JavaScript to compile, about a third of a read command's time. Errors are made to
 * read as the transport expects from undici: a timeout is the abort signal's TimeoutError, and a
 * connection that was never made says so (`CONNECT_TIMEOUT`), since no byte of the request left.
 */
export interface NodeAnswer {
  statusCode: number;
  headers: IncomingHttpHeaders;
  body: IncomingMessage;
}

export interface NodeRequest {
  method: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  signal: AbortSignal;
  /** No byte of the body for this long ends it (undici's bodyTimeout). */
  idleMs: number;
}

/** Keep-alive connections per scheme, for one transport. */
export class NodeHttp {
  private readonly http = new HttpAgent({ keepAlive: true, keepAliveMsecs: 10_000 });
  // node:https (and with it tls and crypto, a few milliseconds) is loaded by the first HTTPS request.
  private https: HttpsAgent | undefined;

  request(url: string, o: NodeRequest): Promise<NodeAnswer> {
    const target = new URL(url);
    const secure = target.protocol === 'https:';
    const https = secure ? process.getBuiltinModule('node:https') : undefined;
    if (https) this.https ??= new https.Agent({ keepAlive: true, keepAliveMsecs: 10_000 });
    return new Promise((resolve, reject) => {
      let connected = false;
      const req = (https ? https.request : httpRequest)(
        target,
        { method: o.method, headers: o.headers, agent: https ? this.https : this.http, signal: o.signal },
        (res) => {
          res.setTimeout(o.idleMs, () =>
            res.destroy(Object.assign(new Error('body timeout'), { code: 'UND_ERR_BODY_TIMEOUT' })),
          );
          resolve({ statusCode: res.statusCode ?? 0, headers: res.headers, body: res });
        },
      );
      req.on('socket', (socket) => {
        // A reused keep-alive connection is connected already; a new one once its handshake is done.
        if (req.reusedSocket) connected = true;
        else socket.once(secure ? 'secureConnect' : 'connect', () => (connected = true));
      });
      req.on('error', (error) => reject(readable(error, o.signal, connected)));
      req.end(o.body);
    });
  }

  close(): void {
    this.http.destroy();
    this.https?.destroy();
  }
}

/** The whole body as text; an abort or an idle body rejects as the request would. */
export async function bodyText(body: IncomingMessage, signal: AbortSignal): Promise<string> {
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of body) chunks.push(chunk as Buffer);
  } catch (error) {
    throw readable(error, signal, true);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function readable(error: unknown, signal: AbortSignal, connected: boolean): unknown {
  if (!signal.aborted) return error;
  if (!connected) return Object.assign(new Error('connect timed out'), { code: 'CONNECT_TIMEOUT' });
  return signal.reason;
}
