// A worker thread that checks the second half of a large contact CSV (see check-file.ts).
// No top-level await: the single executable starts this worker from its CommonJS source
// (scripts/sea.mjs, src/packaged.ts).
import { parentPort, workerData } from 'node:worker_threads';
import { checkPart, type PartInput } from './check-part.js';
import { DuplicateIndex } from './dedup.js';

const port = parentPort!;
const input = workerData as PartInput;
const duplicates = new DuplicateIndex(DuplicateIndex.capacityFor(input.expectedRows));
checkPart(input, duplicates, {
  onProgress: (progress) => port.postMessage({ type: 'progress', progress }),
}).then(
  (result) => {
    const slots = duplicates.slots;
    port.postMessage({ type: 'done', result, slots, size: duplicates.size }, [slots.buffer as ArrayBuffer]);
  },
  (error: unknown) => {
    const e = error as { message?: string; kind?: string; details?: Record<string, unknown> };
    port.postMessage({ type: 'error', message: e?.message ?? String(error), kind: e?.kind, details: e?.details });
  },
);
