/**
 * Keeps V8's heap near the size a command's work needs, for commands that write many records out
 * as text (`--json` of a large answer, `hooks events`). They make garbage at the speed of their
 * input, and V8 answers by growing its heap: the new space doubles up to 16 MB a semi-space, and
 * the old space grows by up to 2x after each full collection. That growth, not records kept, was
 * what made peak RSS grow with the records read (`task detail --json`: 63 MB for 10,000 records,
 * 102 MB for 1,000,000; `hooks events --json` from PostgreSQL: 77 MB for 10,000 events, 115 MB for
 * 100,000), for no gain in speed here (bench/large-task.mjs, bench/hooks-events.mjs). Not for the
 * exports to a file: the Buffers they queue for writing outlive a small new space, and are freed
 * only by full collections (75 MB at 100,000 records without this, 105 MB with it). V8 reads both
 * flags each time it sizes a space, so setting them at run time is in time.
 */
export function flatHeap(): void {
  process.getBuiltinModule('node:v8').setFlagsFromString('--semi-space-growth-factor=1 --heap-growing-percent=20');
}

let youngCollection: ((options: { type: 'minor' }) => void) | undefined;

/**
 * Collects V8's young generation now. For the main thread of a large `--json` read by worker
 * threads: it reads the socket into a new 64 KB Buffer per read and makes little other garbage,
 * and V8 collects when its small new space fills (rarely, here) or once external memory grew by
 * 64 MB. Until then the dead Buffers stayed in the C library's heap: 18 MB of peak RSS that a run
 * of 10,000 records never reached, so 1,000,000 records peaked at 1.33x its figure. V8's own
 * gc(), which --expose-gc gives to contexts made after it is set (a vm context), is the one way
 * to ask for a collection; a young one takes well under a millisecond here.
 */
export function collectYoung(): void {
  if (!youngCollection) {
    process.getBuiltinModule('node:v8').setFlagsFromString('--expose-gc');
    youngCollection = process.getBuiltinModule('node:vm').runInNewContext('gc') as typeof youngCollection;
  }
  youngCollection!({ type: 'minor' });
}
