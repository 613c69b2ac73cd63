import { InvalidArgumentError } from '../commander.js';

/** `--delimiter`: one character; `tab` or `\t` for a tab. Quotes and line breaks cannot delimit. */
export function delimiter(value: string): string {
  const d = value === 'tab' || value === '\\t' ? '\t' : value;
  if ([...d].length !== 1 || d === '"' || d === '\r' || d === '\n') {
    throw new InvalidArgumentError('expected one character (e.g. ";" or tab), not a quote or a line break');
  }
  return d;
}
