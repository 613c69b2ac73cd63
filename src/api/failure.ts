import { WrongSchemeError } from '../errors.js';
import { tunnelStatus } from './proxy.js';
import { Said, said } from '../said.js';

/*
 * How a failed attempt reads: its code, its words, and whether the address has the wrong scheme.
 *
 * An address with the wrong scheme fails in a way that reads like a network failure, retried and
 * reported as exit 5 with OpenSSL's words: https:// to a plain HTTP server ends the TLS handshake
 * with "wrong version number" (EPROTO), and http:// to a TLS server is closed without an answer.
 * Both are told apart here, so that the error says which scheme to use, once (exit 1).
 */

/** The TLS layer refusing what came back: an https:// address of a server that speaks plain HTTP. */
function plainAnswerToTls(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown; cause?: { code?: unknown; message?: unknown } };
  const text = `${String(e?.message ?? '')} ${String(e?.cause?.message ?? '')}`;
  const code = String(e?.code ?? e?.cause?.code ?? '');
  return (
    (code === 'EPROTO' || code.startsWith('ERR_SSL_')) &&
    /wrong version number|packet length too long|http request/i.test(text)
  );
}

/** Whether a TLS handshake with `host:port` completes (nothing else is sent). */
async function speaksTls(host: string, port: number, timeoutMs: number): Promise<boolean> {
  const tls = process.getBuiltinModule('node:tls');
  return new Promise((resolve) => {
    const socket = tls.connect({
      host,
      port,
      // Only the protocol is asked about: the certificate is for the real request to judge.
      rejectUnauthorized: false,
      ...(/^[\d.]+$|:/.test(host) ? {} : { servername: host }),
    });
    const done = (answer: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    socket.once('secureConnect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/**
 * The wrong-scheme error for a failed attempt at `url`, or undefined when the scheme is not the
 * trouble. `closedEarly` says the connection was closed before any answer (the sign of a TLS
 * server reading plain HTTP), which is confirmed by a TLS handshake of its own.
 */
export async function wrongScheme(
  url: string,
  error: unknown,
  closedEarly: boolean,
  o: { endpoint: string; from?: Said; timeoutMs: number },
): Promise<WrongSchemeError | undefined> {
  const target = new URL(url);
  const from = o.from ? said` (${o.from})` : '';
  if (target.protocol === 'https:' && plainAnswerToTls(error)) {
    return new WrongSchemeError(
      said`${o.endpoint}: ${target.origin} answers in plain HTTP, not HTTPS: use http://${target.host}${from}; nothing was sent`,
      { endpoint: o.endpoint, use: 'http' },
    );
  }
  if (target.protocol === 'http:' && closedEarly) {
    const port = Number(target.port || 80);
    if (await speaksTls(target.hostname.replace(/^\[|\]$/g, ''), port, Math.min(o.timeoutMs, 3000))) {
      return new WrongSchemeError(
        said`${o.endpoint}: ${target.origin} speaks HTTPS (TLS), not plain HTTP: use https://${target.host}${from}; nothing was sent`,
        { endpoint: o.endpoint, use: 'https' },
      );
    }
  }
  return undefined;
}

/** The code of a failed attempt: Node's, undici's (on the cause), or the error's name. */
export function errorCode(error: unknown): string {
  const e = error as { code?: unknown; cause?: { code?: unknown }; name?: string };
  // A DOMException (the timeout signal's reason) has a numeric code; its name tells what it is.
  if (typeof e?.code === 'string') return e.code;
  if (typeof e?.cause?.code === 'string') return e.cause.code;
  return e?.name ?? '';
}

/** A failed attempt in words, and what to check when there is an obvious thing to. */
export function describeFailure(error: unknown, timeoutMs?: number): { what: Said; advice?: Said } {
  const code = errorCode(error);
  if (
    code === 'TimeoutError' ||
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_BODY_TIMEOUT' ||
    code === 'UND_ERR_CONNECT_TIMEOUT'
  ) {
    return { what: timeoutMs ? said`timed out after ${timeoutMs / 1000} s` : said`timed out` };
  }
  const tunnel = tunnelStatus(error);
  if (tunnel !== undefined)
    return {
      what: said`tunnel refused with HTTP ${tunnel}`,
      advice: said`can the proxy reach the service, and may it?`,
    };
  if (code === 'ECONNREFUSED')
    return { what: said`connection refused`, advice: said`is it running, and is the address right?` };
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return { what: said`host not found`, advice: said`is the address right?` };
  if (CLOSED_EARLY.has(code)) return { what: said`connection closed by the server before it answered` };
  // A streamed body that ended inside its JSON (src/api/array-stream.ts).
  if (code === 'ANSWER_CUT') return { what: (error as { said?: Said }).said ?? Said.of((error as Error).message) };
  // One line: OpenSSL's messages carry a newline and the path of its source file.
  const message = ((error as Error)?.message ?? String(error)).split('\n')[0]!.replace(/:\.\.\/deps\/\S*$/, '');
  return { what: code ? said`${message} (${code})` : Said.of(message) };
}

/** The connection closed before any answer came. */
export const CLOSED_EARLY = new Set(['UND_ERR_SOCKET', 'ECONNRESET']);
