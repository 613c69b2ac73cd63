import type { z } from 'zod';

export type Tolerant<T> =
  | { ok: true; data: T; warnings: string[] }
  | { ok: false; problem: string; issues: Array<{ path: string; message: string }> };

type Key = string | number;

const pathText = (path: readonly PropertyKey[]) => ['data', ...path.map(String)].join('.');

/**
 * Checks `data` against its schema, one record at a time where the answer is a list: a record of
 * a list that does not fit (a required field missing, a wrong type) is left out with a warning
 * naming it, so that one odd record never hides the others. A problem outside any list, or a list
 * whose every record is odd, is an error naming the first path.
 */
export function tolerantParse<T extends z.ZodType>(schema: T, data: unknown): Tolerant<z.infer<T>> {
  let current = data;
  const warnings: string[] = [];
  // Leaving records out cannot make new problems appear elsewhere; two passes are plenty.
  for (let pass = 0; pass < 3; pass++) {
    const parsed = schema.safeParse(current);
    if (parsed.success) return { ok: true, data: parsed.data, warnings };
    const issues = parsed.error.issues.map((i) => ({
      path: pathText(i.path),
      message: i.message,
      keys: i.path as Key[],
    }));
    const fail = () => ({
      ok: false as const,
      problem: `${issues[0]!.path}: ${issues[0]!.message}`,
      issues: issues.slice(0, 5).map(({ path, message }) => ({ path, message })),
    });
    // Each issue's record: the path up to the first array index in it.
    const records = new Map<string, { container: Key[]; index: number; why: string }>();
    for (const issue of issues) {
      const at = issue.keys.findIndex((k) => typeof k === 'number');
      if (at < 0) return fail();
      const container = issue.keys.slice(0, at);
      const id = JSON.stringify(issue.keys.slice(0, at + 1));
      if (!records.has(id))
        records.set(id, { container, index: issue.keys[at] as number, why: `${issue.path}: ${issue.message}` });
    }
    current = structuredClone(current);
    const byContainer = new Map<string, { list: unknown[]; indexes: number[] }>();
    for (const r of records.values()) {
      const list = r.container.reduce<unknown>((node, k) => (node as Record<Key, unknown>)?.[k], current);
      if (!Array.isArray(list)) return fail();
      const key = JSON.stringify(r.container);
      const entry = byContainer.get(key) ?? { list, indexes: [] as number[] };
      entry.indexes.push(r.index);
      byContainer.set(key, entry);
      warnings.push(`${r.why}; that record is left out, the others are shown`);
    }
    for (const { list, indexes } of byContainer.values()) {
      if (indexes.length >= list.length) return fail();
      for (const i of indexes.sort((a, b) => b - a)) list.splice(i, 1);
    }
  }
  return { ok: false, problem: 'the answer does not fit its schema', issues: [] };
}
