import { PassThrough, Writable } from 'node:stream';
import type { IO } from '../../src/io.js';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** An IO whose output is collected in memory, for tests. */
export interface TestIO extends IO {
  out(): string;
  err(): string;
  /** Answers given to prompts, in order; an answer that is an Error is thrown. */
  answers: Array<string | boolean | Error>;
  /** The prompt messages asked so far. */
  asked: string[];
  /** Sleeps requested through io.sleep, in milliseconds. */
  slept: number[];
  /** Feeds stdin and ends it. */
  setStdin(text: string | Buffer): void;
}

export interface TestIOOptions {
  env?: Record<string, string | undefined>;
  tty?: boolean;
  stdin?: string;
  /** When true, io.sleep really waits; otherwise it only records the delay. */
  realSleep?: boolean;
  cwd?: string;
  /** Width of the pretend terminal (default 120 when `tty`). */
  columns?: number;
}

export function testIO(options: TestIOOptions = {}): TestIO {
  // A Writable keeps each chunk as it is written (a PassThrough would hand it over a tick later).
  const collect = () => {
    const chunks: Buffer[] = [];
    const stream = new Writable({
      write(chunk: Buffer | string, _encoding, done) {
        chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
        done();
      },
    });
    return { stream, text: () => Buffer.concat(chunks).toString('utf8') };
  };
  const out = collect();
  const err = collect();
  const stdin = new PassThrough();
  if (options.stdin !== undefined) stdin.end(options.stdin);
  const tty = options.tty ?? false;
  const answers: Array<string | boolean | Error> = [];
  const asked: string[] = [];
  const slept: number[] = [];
  const next = (message: string) => {
    asked.push(message);
    const answer = answers.shift();
    if (answer === undefined) throw new Error(`test prompter: no answer for "${message}"`);
    if (answer instanceof Error) throw answer;
    return answer;
  };
  const signalHandlers = new Set<(s: 'SIGINT' | 'SIGTERM') => void>();
  const io: TestIO = {
    stdout: out.stream,
    stderr: err.stream,
    stdin,
    stdoutIsTTY: tty,
    stderrIsTTY: tty,
    stdinIsTTY: tty,
    columns: tty ? (options.columns ?? 120) : undefined,
    env: options.env ?? {},
    prompter: {
      password: async (m) => String(next(m)),
      input: async (m) => String(next(m)),
      confirm: async (m) => Boolean(next(m)),
    },
    now: () => Date.now(),
    sleep: async (ms) => {
      slept.push(ms);
      if (options.realSleep) await sleep(ms);
    },
    onSignal(handler) {
      signalHandlers.add(handler);
      return () => signalHandlers.delete(handler);
    },
    onHangup: () => () => undefined,
    onOutputError: () => () => undefined,
    cwd: options.cwd ?? process.cwd(),
    out: out.text,
    err: err.text,
    answers,
    asked,
    slept,
    setStdin(text) {
      stdin.end(text);
    },
  };
  return io;
}
