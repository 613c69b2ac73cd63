/**
 * A request that may not heed its abort signal (undici reconnecting to a proxy that refuses every
 * tunnel, nodejs/undici#3897), ended by the signal all the same.
 */

/** How long a request may take to heed its abort signal before it is taken as stuck. */
const ABORT_GRACE_MS = 100;

/**
 * `work`, or the signal's reason once it aborts and `work` has not settled a moment later (undici
 * rejects at once when it heeds the signal; `stuck` is called when it did not).
 */
export function settledBy<T>(work: Promise<T>, signal: AbortSignal, stuck: () => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let grace: NodeJS.Timeout | undefined;
    const onAbort = () => {
      grace = setTimeout(() => {
        stuck();
        reject(signal.reason);
      }, ABORT_GRACE_MS);
    };
    const done = () => {
      clearTimeout(grace);
      signal.removeEventListener('abort', onAbort);
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        done();
        resolve(value);
      },
      (error: unknown) => {
        done();
        reject(error);
      },
    );
  });
}
