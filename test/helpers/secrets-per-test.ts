/**
 * Each test forgets the secrets its commands added to the process's registry (src/redact.ts):
 * a CLI run is one process and learns a handful, but a test file runs hundreds of commands in one
 * process, and redaction over the secrets of them all (one issued token per test) grew too slow
 * to finish. What a file or its hooks add before a test (module scope, beforeAll) is kept.
 */
import { afterEach, beforeEach } from 'vitest';
import { secrets } from '../../src/redact.js';

let mark = 0;
beforeEach(() => {
  mark = secrets.size;
});
afterEach(() => secrets.truncate(mark));
