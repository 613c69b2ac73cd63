import { said } from '../said.js';

/**
 * A streaming reader for one array inside a JSON document: the bytes come in chunks, the array's
 * elements go out in small groups as soon as they are complete, and what is left of the document
 * (the envelope, the task's own fields) is kept with that array emptied, to be checked as usual.
 *
 * Written by hand rather than with a general streaming JSON parser: those tokenize every byte in
 * JavaScript and run several times slower than JSON.parse. This one only finds where elements
 * begin and end (a loop over the bytes that reads no value), then hands each run of
 * complete elements in a chunk to JSON.parse at once. The memory it holds is one chunk plus the
 * element being cut by a chunk boundary, whatever the array's length.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

/**
 * The array's key came twice in its object. JSON.parse keeps the last: the records of the first
 * may be out already, so the answer is refused.
 */
export class RepeatedArray extends Error {}

export class ArraySplitter {
  /** Container types from the document's root down: `{` or `[`. */
  private readonly stack: number[] = [];
  /** The current key of each object on the stack, up to the path's depth. */
  private readonly keys: Array<string | undefined> = [];
  private inString = false;
  /** Inside a string, the chunk ended just after a backslash. */
  private escaped = false;
  /** A string's bytes, kept while it may be a key on the path. */
  private keyParts: Buffer[] | undefined;
  private lastString: string | undefined;
  /** Depth of the array being split, once entered (the stack's length inside it). */
  private targetDepth = -1;
  private restParts: Buffer[] = [];
  /** Bytes of elements cut by a chunk boundary, before the current chunk. */
  private carry: Buffer[] = [];
  private found = false;
  private readonly cuts: number[] = [];

  /**
   * @param path keys from the root to the array, such as `['data', 'detail']`
   * @param onItems told of each group of complete elements, in order: parsed, and as each one's bytes
   * @param onOpen told once the array begins, of the document read so far with the array empty
   *   and every open container closed (the fields that came before the array)
   */
  constructor(
    private readonly path: readonly string[],
    private readonly onItems: (items: unknown[], raws: Buffer[]) => void,
    private readonly onOpen?: (head: unknown) => void,
  ) {}

  get sawArray(): boolean {
    return this.found;
  }

  write(chunk: Buffer): void {
    const n = chunk.length;
    // An empty chunk would take the escaped character a chunk ending in a backslash waits for.
    if (n === 0) return;
    // Where the document outside the array resumes in this chunk, and where the elements not yet
    // handed out begin (-1: none in this chunk).
    let restFrom = this.targetDepth < 0 ? 0 : -1;
    let itemsFrom = this.targetDepth < 0 ? -1 : 0;
    let lastCut = -1;
    // Commas between elements in this chunk, in order: where one element ends and the next begins.
    const cuts = this.cuts;
    cuts.length = 0;
    let i = 0;
    if (this.inString) i = this.skipString(chunk, 0);
    while (i < n) {
      const c = chunk[i]!;
      if (c === QUOTE) {
        if (this.targetDepth < 0 && this.capturesKey()) this.keyParts = [];
        i = this.skipString(chunk, i + 1);
        continue;
      }
      if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
        if (c === OPEN_ARRAY && this.targetDepth < 0 && this.atPath()) {
          if (this.found) throw new RepeatedArray(`${this.path.join('.')} twice`);
          this.found = true;
          this.stack.push(c);
          this.targetDepth = this.stack.length;
          this.restParts.push(chunk.subarray(restFrom, i + 1));
          restFrom = -1;
          itemsFrom = i + 1;
          this.opened();
        } else this.stack.push(c);
      } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
        if (this.stack.length === this.targetDepth) {
          this.emit(chunk, itemsFrom, i, cuts);
          this.targetDepth = -1;
          itemsFrom = -1;
          restFrom = i;
        }
        this.stack.pop();
      } else if (c === COMMA) {
        if (this.stack.length === this.targetDepth) {
          lastCut = i;
          cuts.push(i);
        }
      } else if (c === COLON) {
        if (this.targetDepth < 0 && this.stack.length <= this.path.length)
          this.keys[this.stack.length - 1] = this.lastString;
      }
      i++;
    }
    if (this.targetDepth >= 0) {
      // Hand out the elements completed in this chunk; keep the one cut by its end.
      if (lastCut >= 0) {
        cuts.pop();
        this.emit(chunk, itemsFrom, lastCut, cuts);
        this.carry = [chunk.subarray(lastCut + 1)];
      } else this.carry.push(chunk.subarray(itemsFrom));
    } else if (restFrom >= 0) this.restParts.push(chunk.subarray(restFrom));
  }

  /**
   * The document without the array's elements (`"detail":[]`), as text. Throws when the bytes
   * stopped inside the document (an answer cut short without its connection saying so): as for
   * a connection lost mid-body, with the code the transport retries on.
   */
  end(): string {
    if (this.stack.length > 0 || this.inString) {
      const words = said`the answer was cut short (its JSON ends early)`;
      throw Object.assign(new Error(String(words)), { code: 'ANSWER_CUT', said: words });
    }
    return Buffer.concat(this.restParts).toString('utf8');
  }

  /** Tells `onOpen` of the document so far: its text, the array and every container closed. */
  private opened(): void {
    if (!this.onOpen) return;
    let closers = '';
    for (let d = this.stack.length - 1; d >= 0; d--) closers += this.stack[d] === OPEN_ARRAY ? ']' : '}';
    this.onOpen(JSON.parse(Buffer.concat(this.restParts).toString('utf8') + closers));
  }

  /**
   * Skips a string's bytes from `from` (just after its opening quote); returns where scanning
   * resumes. A byte at a time: as fast as searching for the quote and the backslash with the
   * native Buffer.indexOf on these answers' short strings, and linear whatever a string holds.
   */
  private skipString(chunk: Buffer, from: number): number {
    const n = chunk.length;
    let i = from;
    if (this.escaped) {
      this.escaped = false;
      i++;
    }
    for (; i < n; i++) {
      const c = chunk[i]!;
      if (c === BACKSLASH) {
        if (++i === n) this.escaped = true;
      } else if (c === QUOTE) {
        this.inString = false;
        if (this.keyParts) {
          this.keyParts.push(chunk.subarray(from, i));
          this.lastString = JSON.parse(`"${Buffer.concat(this.keyParts).toString('utf8')}"`) as string;
          this.keyParts = undefined;
        }
        return i + 1;
      }
    }
    return this.stringContinues(chunk, from);
  }

  private stringContinues(chunk: Buffer, from: number): number {
    this.inString = true;
    this.keyParts?.push(chunk.subarray(from));
    return chunk.length;
  }

  /** A string here may be a key on the path: inside an object no deeper than the path. */
  private capturesKey(): boolean {
    return this.stack.length <= this.path.length && this.stack.at(-1) === OPEN_OBJECT;
  }

  /** The next value is the one the path names. */
  private atPath(): boolean {
    if (this.stack.length !== this.path.length) return false;
    for (let d = 0; d < this.path.length; d++) {
      if (this.stack[d] !== OPEN_OBJECT || this.keys[d] !== this.path[d]) return false;
    }
    return true;
  }

  /**
   * Hands out the elements between `from` and `to` of this chunk (after any carried bytes), cut at
   * `cuts`: each parsed, and each as its own bytes, trimmed (zero-copy slices of the chunk).
   */
  private emit(chunk: Buffer, from: number, to: number, cuts: readonly number[]): void {
    const carried = this.carry;
    this.carry = [];
    const run = carried.length ? Buffer.concat([...carried, chunk.subarray(from, to)]) : chunk.subarray(from, to);
    const text = run.toString('utf8');
    if (!text.trim()) return;
    // One JSON.parse for the whole run (cheaper than one per element); the elements' bytes are
    // slices of the chunk, free unless someone uses them.
    const items = JSON.parse(`[${text}]`) as unknown[];
    const raws: Buffer[] = [];
    const offset = run.length - (to - from); // bytes carried before this chunk's part
    let start = 0;
    for (let k = 0; k <= cuts.length; k++) {
      const end = k < cuts.length ? cuts[k]! - from + offset : run.length;
      raws.push(trim(run.subarray(start, end)));
      start = end + 1;
    }
    if (raws.length !== items.length) throw new SyntaxError('array elements and separators do not match');
    this.onItems(items, raws);
  }
}

/** JSON's whitespace: space, tab, line feed, carriage return. */
const isSpace = (b: number) => b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d;

function trim(bytes: Buffer): Buffer {
  let a = 0;
  let b = bytes.length;
  while (a < b && isSpace(bytes[a]!)) a++;
  while (b > a && isSpace(bytes[b - 1]!)) b--;
  return a === 0 && b === bytes.length ? bytes : bytes.subarray(a, b);
}
