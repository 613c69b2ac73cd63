/** A problem with one row (or the header) of a contact CSV: where it is, and what is wrong. */
export interface Problem {
  /** Line of the file where the row starts (1 is the header). */
  line: number;
  /** Column name (or names joined with `+`), as the header gives it. */
  column: string;
  message: string;
}

/** `line 7, column callee: ...`: the one format every problem is shown in. */
export function formatProblem(p: Problem): string {
  return `line ${p.line}, column ${p.column}: ${p.message}`;
}

/** How many problems are listed before the rest are only counted (wrangler's cap-then-summarise). */
export const LISTED_PROBLEMS = 20;
