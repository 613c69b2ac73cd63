// A worker thread that checks the second half of a large contact CSV (see check-file.ts).
import { parentPort, workerData } from 'node:worker_threads';
import { checkPart, type PartInput } from './check-part.js';
import { DuplicateIndex } from './dedup.js';

const port = parentPort!;
const input = workerData as PartInput;
const duplicates = new DuplicateIndex(DuplicateIndex.capacityFor(input.expectedRows));
try {
  const result = await checkPart(input, duplicates, {
    onProgress: (progress) => port.postMessage({ type: 'progress', progress }),
  });
  const slots = duplicates.slots;
  port.postMessage({ type: 'done', result, slots, size: duplicates.size }, [slots.buffer as ArrayBuffer]);
} catch (error) {
  const e = error as { message?: string; kind?: string; details?: Record<string, unknown> };
  port.postMessage({ type: 'error', message: e?.message ?? String(error), kind: e?.kind, details: e?.details });
}
