/**
 * "Did you mean": the known name closest to a mistyped one, by edit distance (a swap of two
 * neighbouring letters counts as one edit, as in `stauts`), as commander suggests for the groups
 * it dispatches itself. Used where callctl names an unknown command on its own: `auth <word>`
 * (bare `auth` is `auth login`, so commander would take the word as login's argument) and
 * `help <words>`.
 */
export function closest(word: string, names: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const name of names) {
    const distance = editDistance(word, name);
    // As commander: at most 2 edits, and more than 40% of the longer word kept.
    const length = Math.max(word.length, name.length);
    if (distance > 2 || (length - distance) / length <= 0.4) continue;
    if (!best || distance < best.distance) best = { name, distance };
  }
  return best?.name;
}

/** Optimal string alignment distance: inserts, deletes, substitutions and neighbour swaps. */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  return d[a.length]![b.length]!;
}
