import type { IncomingMessage, ServerResponse } from 'node:http';
import { printable } from '../output/printable.js';

/** Which request handler failed: the receiver's notifications, /healthz and /readyz, the metrics, the inspector. */
export type Handler = 'receiver' | 'health' | 'metrics' | 'inspector';

const NAMES: Record<Handler, string> = {
  receiver: 'the receiver',
  health: '/healthz or /readyz',
  metrics: 'the metrics',
  inspector: 'the inspector',
};

/** Distinct failures told at most (a request that fails the same way again is counted, not told). */
const MAX_TOLD = 20;

/**
 * Unexpected failures of request handlers (a bug of ours, never what a request may send): each is
 * counted, and told once per handler and message, so that a peer repeating the request that
 * fails one cannot fill a disk with the same line.
 */
export class HandlerErrors {
  count = 0;
  private readonly told = new Set<string>();

  constructor(
    private readonly tell: (message: string) => void,
    private readonly counted?: (handler: Handler) => void,
  ) {}

  failed(handler: Handler, error: unknown): void {
    this.count += 1;
    this.counted?.(handler);
    const what = printable(error instanceof Error ? `${error.name}: ${error.message}` : String(error)).slice(0, 300);
    const key = `${handler}\n${what}`;
    if (this.told.has(key) || this.told.size >= MAX_TOLD) return;
    // Remembered before it is told: a teller that fails in turn comes back here, and stops.
    this.told.add(key);
    this.tell(
      `internal error in ${NAMES[handler]}, answered 500 and going on (the same error again is not told): ${what}`,
    );
  }
}

/** The answer to a request whose handler failed: 500, or the connection cut when an answer had begun. */
export function answerFailed(res: ServerResponse): void {
  try {
    if (res.headersSent) return void res.destroy();
    res.writeHead(500, { 'content-type': 'application/json', connection: 'close' });
    res.end('{"error":"internal error"}');
  } catch {
    res.destroy();
  }
}

/**
 * A request handler whose failures, thrown at once or later, are answered 500 and told to
 * `failed`: none reaches the process (an uncaught exception ends it, and every listener with it).
 */
export function guarded(
  handle: (req: IncomingMessage, res: ServerResponse) => void | Promise<void>,
  failed: (error: unknown) => void,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const fail = (error: unknown) => {
      try {
        failed(error);
      } catch {
        // telling it failed in turn: the answer still goes
      }
      answerFailed(res);
    };
    try {
      const done = handle(req, res);
      if (done) done.catch(fail);
    } catch (error) {
      fail(error);
    }
  };
}
