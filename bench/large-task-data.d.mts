/** One generated call record as JSON text (about 800 bytes). */
export function recordJson(i: number): string;
/** The whole envelope of GET /service/cloud/detail for a task of `n` records. */
export function taskEnvelope(n: number, taskId?: string): Buffer;
