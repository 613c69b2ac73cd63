/**
 * Calls made while a statement runs go together in the next one: one statement, one round trip
 * and one commit for many. `run` answers for each item, in order. Items of one `key` never share
 * a statement (an UPDATE ... FROM joins a row once): the second waits for the next.
 */
export function coalesced<I, O>(
  run: (items: I[]) => Promise<O[]>,
  key: (item: I) => string,
  max = 500,
): (item: I) => Promise<O> {
  let queue: Array<{ item: I; resolve: (o: O) => void; reject: (e: unknown) => void }> = [];
  let running = false;
  const next = (): void => {
    if (running || queue.length === 0) return;
    running = true;
    const keys = new Set<string>();
    const batch: typeof queue = [];
    const rest: typeof queue = [];
    for (const q of queue) {
      const k = key(q.item);
      if (batch.length < max && !keys.has(k)) {
        keys.add(k);
        batch.push(q);
      } else rest.push(q);
    }
    queue = rest;
    run(batch.map((b) => b.item))
      .then(
        (out) => batch.forEach((b, i) => b.resolve(out[i]!)),
        (error: unknown) => batch.forEach((b) => b.reject(error)),
      )
      .finally(() => {
        running = false;
        next();
      });
  };
  return (item) =>
    new Promise<O>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      next();
    });
}
