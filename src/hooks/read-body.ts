import type { IncomingMessage } from 'node:http';

/**
 * Reads a body up to `max` bytes; undefined when it is bigger (the rest is not read). Rejects when
 * the client goes away (or is cut off by the request timeout) before the end.
 */
export function readBody(req: IncomingMessage, max: number): Promise<Buffer | undefined> {
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
    // A body cut short by its sender ("aborted", ECONNRESET) is the sender's trouble, not ours.
    req.on('error', () => reject(new ClientGone()));
  });
}

/** The client went away (or was cut off by the request timeout) before its body ended. */
export class ClientGone extends Error {}
