import type { z } from 'zod';

/** A problem with one piece of input, as a line an operator can act on. */
export interface Problem {
  /** Line in the input file, when the input is a file. */
  line?: number;
  message: string;
}

/** zod issues as problems: `path: message`. */
export function issuesToProblems(error: z.ZodError, line?: number): Problem[] {
  return error.issues.map((i) => {
    const path = i.path.join('.');
    // Custom messages already name their field.
    const message = i.code === 'custom' || !path || i.message.includes(String(i.path.at(-1))) ? i.message : `${path}: ${i.message}`;
    return line === undefined ? { message } : { line, message };
  });
}

/** At most `max` problems, one a line, then how many more. */
export function formatProblems(problems: readonly Problem[], max = 20): string {
  const lines = problems.slice(0, max).map((p) => (p.line !== undefined ? `  line ${p.line}: ${p.message}` : `  ${p.message}`));
  if (problems.length > max) lines.push(`  ...and ${problems.length - max} more`);
  return lines.join('\n');
}
