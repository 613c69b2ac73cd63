import type { z } from 'zod';
import { afterShown, CliError, ServiceError } from '../errors.js';
import type { AnswerSchema } from '../schemas/answers.js';
import { ArraySplitter, RepeatedArray } from './array-stream.js';
import type { HttpRequest } from './transport.js';
import { said } from '../said.js';

/** Where the records of a streamed answer go, a group at a time, in order. */
export interface RecordSink<T> {
  /**
   * Called before the first record of each attempt: a retried request (a connection lost
   * mid-body) starts over, so the sink starts over too, or throws when it cannot.
   */
  start(attempt: number): void | Promise<void>;
  /**
   * How many records are out where they cannot be taken back (stdout), once a retried request
   * could not start over; undefined while it could. An answer that may pass (an envelope code 500
   * after the records) is then not asked again: its own error is told, with that count.
   */
  shown?(): number | undefined;
  /**
   * Told once the array begins, of the object holding it as read so far: the fields that came
   * before the array, the array itself empty (`--json` writes them before the records).
   */
  opened?(head: Record<string, unknown>): void | Promise<void>;
  /**
   * A group of records, each checked against its schema, with each one's bytes as the service
   * sent them (for exports that write them unchanged). Awaited: the body is read no faster.
   */
  records(items: T[], raws: Buffer[]): void | Promise<void>;
}

type Issue = { path: string; message: string };

/**
 * A body consumer for `CloudCall.consume`: the array at `path` of the envelope (such as
 * `['data', 'detail']`) is handed to `sink` as it arrives, each element checked as the answer's
 * own check (`answer`, the same one a whole answer goes through) would check it inside the
 * answer, and by zod (`item`, the element's schema) where that check cannot vouch; the rest of the
 * envelope, with that array emptied, is returned to be checked like any answer (status, code, the
 * data's own schema). Records are read as src/api/tolerant.ts reads a whole answer: an odd one is
 * left out with a warning naming its index; when every one is odd, an error names the first, and
 * no warning is given. Memory stays at a chunk and a group of records.
 */
export function streamArray<T>(
  endpoint: string,
  path: readonly string[],
  answer: AnswerSchema<z.ZodType>,
  item: () => Promise<z.ZodType>,
  sink: RecordSink<T>,
  warn: (message: string) => void,
): StreamedArray {
  const key = path.at(-1)!;
  // Warnings are told once the whole answer was checked (`finish`): an answer refused as a
  // whole is one error, as when read whole (src/api/tolerant.ts).
  let warnings: string[] = [];
  let refused: ServiceError | undefined;
  const consume: NonNullable<HttpRequest['consume']> = async (body, attempt) => {
    warnings = [];
    refused = undefined;
    await sink.start(attempt);
    // The object holding the array, as far as read, when the answer's check vouches for it:
    // records are then vouched for inside it, a group at a time, with no zod.
    let holder: Record<string, unknown> | undefined;
    let opened: Record<string, unknown> | undefined;
    const check = await answer.check();
    const vouched = (items: unknown[]) => holder !== undefined && check({ ...holder, [key]: items });
    let groups: Array<{ items: unknown[]; raws: Buffer[] }> = [];
    const splitter = new ArraySplitter(
      path,
      (items, raws) => groups.push({ items, raws }),
      (head) => {
        opened = path.slice(0, -1).reduce<unknown>((node, k) => (node as Record<string, unknown>)?.[k], head) as
          Record<string, unknown> | undefined;
        if (opened && check({ ...opened, [key]: [] })) holder = opened;
      },
    );
    let schema: z.ZodType | undefined;
    let index = 0;
    let good = 0;
    const issues: Issue[] = [];
    let first: ServiceError | undefined;
    const take = async (items: unknown[], raws: Buffer[]) => {
      if (vouched(items)) {
        index += items.length;
        good += items.length;
        await sink.records(items as T[], raws);
        return;
      }
      const checked: T[] = [];
      const kept: Buffer[] = [];
      for (let k = 0; k < items.length; k++, index++) {
        const value = items[k];
        const parsed = vouched([value])
          ? { success: true as const, data: value }
          : (schema ??= await item()).safeParse(value);
        if (parsed.success) {
          checked.push(parsed.data as T);
          kept.push(raws[k]!);
          continue;
        }
        // As the client reads a whole list (tolerant.ts): an odd record is left out with a
        // warning naming it, so that it never hides the others.
        const problem = oddRecord(endpoint, path, index, parsed.error.issues);
        first ??= problem;
        const own = problem.details.issues as Issue[];
        if (good === 0) issues.push(...own.slice(0, 5 - issues.length));
        warnings.push(
          `${endpoint}: ${own[0]!.path}: ${own[0]!.message}; that record is left out, the others are shown`,
        );
      }
      if (checked.length) {
        good += checked.length;
        await sink.records(checked, kept);
      }
    };
    try {
      for await (const chunk of body) {
        splitter.write(chunk);
        if (opened && sink.opened) {
          await sink.opened(opened);
          opened = undefined;
        }
        for (const { items, raws } of groups) await take(items, raws);
        groups = [];
      }
    } catch (error) {
      if (error instanceof SyntaxError) throw notJson(endpoint);
      if (error instanceof RepeatedArray)
        throw new ServiceError(
          said`${endpoint}: HTTP 200, and the answer holds ${error.message}, not the service's envelope`,
          endpoint,
          200,
          undefined,
        );
      throw error;
    }
    // Every record odd: an error naming the first, as for a list read whole.
    if (first && good === 0) refused = new ServiceError(first.message, endpoint, 200, 200, { issues });
    return splitter.end();
  };
  return {
    consume,
    restartable: () => sink.shown?.() === undefined,
    told: (error) => afterShown(error, sink.shown?.() ?? 0),
    finish() {
      if (refused) throw refused;
      for (const w of warnings) warn(w);
    },
  };
}

/** A streamed array's body consumer, and what is told once the rest of the answer was checked. */
export interface StreamedArray {
  consume: NonNullable<HttpRequest['consume']>;
  /** Whether the sink could start over (see RecordSink.shown). */
  restartable(): boolean;
  /** An error of the request, saying how many records were already shown (see RecordSink.shown). */
  told(error: unknown): unknown;
  /** Throws when every record was odd; else tells the warnings of the records left out. */
  finish(): void;
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
    said`${endpoint}: code 200, but an unexpected answer: ${where(issue)}: ${issue.message}`,
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
    said`${endpoint}: HTTP 200, and the answer is not the service's envelope (not JSON); check the base URL`,
    endpoint,
    200,
    undefined,
  );
}
