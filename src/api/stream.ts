import type { z } from 'zod';
import { CliError, ServiceError } from '../errors.js';
import { quickCheckOf } from '../schemas/quick-check.js';
import { ArraySplitter } from './array-stream.js';
import type { HttpRequest } from './transport.js';

/** Where the records of a streamed answer go, a group at a time, in order. */
export interface RecordSink<T> {
  /**
   * Called before the first record of each attempt: a retried request (a connection lost
   * mid-body) starts over, so the sink starts over too, or throws when it cannot.
   */
  start(attempt: number): void | Promise<void>;
  /**
   * A group of records, each checked against its schema, with each one's bytes as the service
   * sent them (for exports that write them unchanged). Awaited: the body is read no faster.
   */
  records(items: T[], raws: Buffer[]): void | Promise<void>;
}

/**
 * A body consumer for `CloudCall.consume`: the array at `path` of the envelope (such as
 * `['data', 'detail']`) is handed to `sink` as it arrives, each element checked against `item`;
 * the rest of the envelope, with that array emptied, is returned to be checked like any answer
 * (status, code, the data's own schema). Memory stays at a chunk and a group of records.
 */
export function streamArray<S extends z.ZodType>(
  endpoint: string,
  path: readonly string[],
  item: S,
  sink: RecordSink<z.infer<S>>,
  warn: (message: string) => void,
): NonNullable<HttpRequest['consume']> {
  return async (body, attempt) => {
    await sink.start(attempt);
    // Most records pass the quick check and are used as they are; zod decides the others.
    const quick = quickCheckOf(item);
    let groups: Array<{ items: unknown[]; raws: Buffer[] }> = [];
    const splitter = new ArraySplitter(path, (items, raws) => groups.push({ items, raws }));
    let index = 0;
    let good = 0;
    let first: ServiceError | undefined;
    try {
      for await (const chunk of body) {
        splitter.write(chunk);
        for (const group of groups) {
          const checked: Array<z.infer<S>> = [];
          const raws: Buffer[] = [];
          for (let k = 0; k < group.items.length; k++) {
            const value = group.items[k];
            if (quick(value)) {
              checked.push(value as z.infer<S>);
              raws.push(group.raws[k]!);
              index++;
              continue;
            }
            const parsed = item.safeParse(value);
            if (parsed.success) {
              checked.push(parsed.data);
              raws.push(group.raws[k]!);
            } else {
              // As the client reads a whole list (tolerant.ts): an odd record is left out with a
              // warning naming it, so that it never hides the others.
              const problem = oddRecord(endpoint, path, index, parsed.error.issues);
              first ??= problem;
              warn(
                `${endpoint}: ${(problem.details.issues as Array<{ path: string; message: string }>)[0]!.path}: ${(problem.details.issues as Array<{ message: string }>)[0]!.message}; that record is left out, the others are shown`,
              );
            }
            index++;
          }
          good += checked.length;
          if (checked.length) await sink.records(checked, raws);
        }
        groups = [];
      }
    } catch (error) {
      if (error instanceof SyntaxError) throw notJson(endpoint);
      throw error;
    }
    // Every record odd: an error naming the first, as for a list read whole.
    if (first && good === 0) throw first;
    return splitter.end();
  };
}

function oddRecord(
  endpoint: string,
  path: readonly string[],
  index: number,
  issues: readonly z.core.$ZodIssue[],
): ServiceError {
  const where = (i: z.core.$ZodIssue) => [...path, index, ...i.path].join('.');
  const issue = issues[0]!;
  return new ServiceError(
    `${endpoint}: code 200, but an unexpected answer: ${where(issue)}: ${issue.message}`,
    endpoint,
    200,
    200,
    {
      issues: issues.slice(0, 5).map((i) => ({ path: where(i), message: i.message })),
    },
  );
}

function notJson(endpoint: string): CliError {
  return new ServiceError(
    `${endpoint}: HTTP 200, and the answer is not the service's envelope (not JSON); check the base URL`,
    endpoint,
    200,
    undefined,
  );
}
