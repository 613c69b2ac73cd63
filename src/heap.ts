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
