import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { ServiceError, stdoutFailed } from '../errors.js';
import { flatHeap } from '../heap.js';
import { plural } from '../plural.js';
import { redactValues } from '../redact.js';
import { said } from '../said.js';

/**
 * `--json` of an answer whose one array grows with the data (a task's call records, a walk's
 * pages), written as its records stream in, with the very bytes `Output.writeJson` writes for the
 * whole answer (`JSON.stringify(value, null, 2)` and a line feed, known secrets redacted).
 *
 * The fields before the array are written with the first records, once `opened` was told of
 * them and `check` (the answer's own check, src/schemas/answers.ts) vouches for them as they are:
 * the checked answer then lists them in that order. The fields after the array are known only at
 * the end (`finish`, with the checked answer, its array empty). An answer whose fields before the
 * array cannot be vouched for yet (out of the schema's order, a required one still to come) is
 * held until the end and written whole, as before. Output that stops early (a connection lost,
 * an answer refused at its end) never looks whole: it lacks the closing brackets.
 */
export class JsonStream {
  private count = 0;
  /** What the output starts with, when written before the end (the fields before the array). */
  private prefix: string | undefined;
  private wroteHead = false;
  /** Groups' text kept to the end, for an answer that cannot be written as it comes. */
  private held: string[] = [];

  /**
   * @param key the array's key in the answer's top object
   * @param check the answer's check: true when the value is valid and shown as it is
   */
  constructor(
    private readonly stdout: Writable,
    private readonly key: string,
    private readonly check: (value: unknown) => boolean,
  ) {
    flatHeap();
  }

  /** How many records were written (or held). */
  get written(): number {
    return this.count;
  }

  /** Records out on stdout, once the output began: a retried request cannot start over then. */
  shown(): number | undefined {
    return this.wroteHead ? this.count : undefined;
  }

  /** Before each attempt: a retried request starts over (retried only while `shown` allows it). */
  start(): void {
    this.count = 0;
    this.prefix = undefined;
    this.held = [];
  }

  /** The fields before the array (the array empty): written with the first records when vouched for. */
  opened(head: Record<string, unknown>): void {
    if (this.check(head)) this.prefix = prefixOf(JSON.stringify(head, null, 2), this.key);
  }

  /** A group of records, each as the checked answer holds it. */
  async records(items: readonly unknown[]): Promise<void> {
    if (!items.length) return;
    const text = recordsText(items, this.count > 0);
    this.count += items.length;
    if (this.prefix === undefined) {
      this.held.push(redactValues(text));
      return;
    }
    if (!this.wroteHead) await this.write(this.prefix);
    this.wroteHead = true;
    await this.write(text);
  }

  /** Ends the output with the checked answer (its array empty): the fields after the array. */
  async finish(answer: unknown): Promise<void> {
    const whole = JSON.stringify(answer, null, 2);
    const prefix = prefixOf(whole, this.key);
    const rest = `${this.count ? '\n  ' : ''}${whole.slice(prefix.length)}\n`;
    if (!this.wroteHead) {
      await this.write(prefix);
      for (const body of this.held) await this.write(body, true);
      await this.write(rest);
      return;
    }
    // A field the checked answer lists before the array came after it: the output started
    // differs from the answer's, and cannot be taken back.
    if (prefix !== this.prefix) {
      throw new ServiceError(
        said`the answer's fields came in an order that cannot be written as they arrive (a field shown before "${this.key}" came after it): the output stops after ${plural(this.count, 'record')}`,
        '',
        200,
        200,
      );
    }
    await this.write(rest);
  }

  /**
   * Writes `text`, redacted unless it `was` (held groups). Up to QUEUED bytes wait in stdout's
   * queue while the next records are read (the pipe's reader and this process work at the same
   * time); past that, its drain is awaited.
   */
  private async write(text: string, was = false): Promise<void> {
    const below = this.stdout.write(was ? text : redactValues(text)) || this.stdout.writableLength < QUEUED;
    if (!below && !this.stdout.errored) await once(this.stdout, 'drain').catch(() => undefined);
    // A stdout that cannot be written (a full disk) is said as such, not as the request's failure.
    if (this.stdout.errored) throw stdoutFailed(this.stdout.errored);
  }
}

/** Bytes queued for stdout before the drain is awaited. */
const QUEUED = 1 << 20;

/**
 * A group of records as `JSON.stringify(answer, null, 2)` writes them inside the answer's array
 * (its elements 4 spaces in), after a comma when others came `before`: one stringify for the
 * group, of a nested array, cut between `[\n  [` and `\n  ]\n]`. The comma is that of a 0 put
 * before the records, so that the text is one string (a comma added in front would be copied
 * again by the redaction's search of it).
 */
function recordsText(items: readonly unknown[], before: boolean): string {
  return before
    ? JSON.stringify([[0, ...items]], null, 2).slice(11, -6)
    : JSON.stringify([items], null, 2).slice(5, -6);
}

/** `whole` up to its array's opening bracket: `{\n  "TaskID": ...,\n  "detail": [`. */
function prefixOf(whole: string, key: string): string {
  // The answer's top keys are the only ones at line start with two spaces (a string holds no line break).
  const marker = `\n  ${JSON.stringify(key)}: [`;
  const at = whole.indexOf(marker);
  if (at < 0) throw new Error(`JsonStream: the answer has no array "${key}"`);
  return whole.slice(0, at + marker.length);
}
