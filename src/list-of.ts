import { UsageError } from './errors.js';
import type { Said } from './said.js';

/**
 * The items of a comma-separated flag value (`--type task.end,plan.end`), trimmed, empty ones
 * dropped. Each must be one of `allowed`: those that are not are a usage error in the words of
 * `unknown`, which names the flag.
 */
export function listOf<T extends string>(text: string, allowed: readonly T[], unknown: (bad: string[]) => Said): T[] {
  const items = text
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  const bad = items.filter((t) => !(allowed as readonly string[]).includes(t));
  if (bad.length) throw new UsageError(unknown(bad));
  return items as T[];
}
