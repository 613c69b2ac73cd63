import type { z } from 'zod';
import { InputError } from '../errors.js';
import { plural } from '../plural.js';
import { said } from '../said.js';

/**
 * A problem with one piece of input (a row or the header of a CSV file, a flag's value), as a
 * line an operator can act on. The one problem type of workflow update, push and template send.
 */
export interface Problem {
  /** Line of the file where the row starts (1 is the header), when the input is a file. */
  line?: number;
  /** Column name (or names joined with `+`), as the header gives it, when one column is at fault. */
  column?: string;
  message: string;
}

/** How many problems are listed before the rest are only counted (wrangler's cap-then-summarise). */
export const LISTED_PROBLEMS = 20;

/** `line 7, column callee: ...`, `line 7: ...` or the message alone: the one format of a problem. */
export function formatProblem(p: Problem): string {
  const where = [p.line !== undefined ? `line ${p.line}` : '', p.column !== undefined ? `column ${p.column}` : '']
    .filter(Boolean)
    .join(', ');
  return where ? `${where}: ${p.message}` : p.message;
}

/** zod issues as problems: `path: message`. */
export function issuesToProblems(error: z.ZodError, line?: number): Problem[] {
  return error.issues.map((i) => {
    const path = i.path.join('.');
    // Custom messages already name their field.
    const message =
      i.code === 'custom' || !path || i.message.includes(String(i.path.at(-1))) ? i.message : `${path}: ${i.message}`;
    return line === undefined ? { message } : { line, message };
  });
}

/**
 * The error of input with problems, found before anything was sent: its line counts them, and the
 * first LISTED_PROBLEMS, in line order, are listed above it (one problem without a line is the
 * line itself).
 */
export function problemsError(what: string, unsorted: readonly Problem[]): InputError {
  const problems = [...unsorted].sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
  if (problems.length === 1 && problems[0]!.line === undefined)
    return new InputError(said`${what}: ${problems[0]!.message}; nothing was sent`);
  const listed = problems.slice(0, LISTED_PROBLEMS).map((p) => said`  ${formatProblem(p)}`);
  const rest = problems.length - listed.length;
  if (rest > 0) listed.push(said`  ... and ${plural(rest, 'more problem')}`);
  return new InputError(
    said`${what}: ${problems.length} problem${problems.length === 1 ? '' : 's'}; nothing was sent`,
    { problems: problems.slice(0, 100) },
    listed,
  );
}
