/**
 * What makes a well-formed JSON text unfit to act on, or undefined: nesting deeper than `maxDepth`
 * (code that walks a value recursively would run out of stack on it), or an object holding a key
 * twice (JSON.parse keeps the last value, another reader may keep the first: what was verified
 * would not be what the app behind reads). One pass over the text, which must be valid JSON (it
 * is told after JSON.parse took it): strings are skipped whole, keys decoded only when escaped.
 */
export function jsonHazard(text: string, maxDepth: number): string | undefined {
  /** Per open object its keys so far; null for an open array. */
  const open: Array<Set<string> | null> = [];
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      let j = i + 1;
      let escaped = false;
      for (; j < text.length; j++) {
        const d = text.charCodeAt(j);
        if (d === 0x5c) {
          escaped = true;
          j++;
        } else if (d === 0x22) break;
      }
      const keys = open[open.length - 1];
      if (expectKey && keys) {
        const key = escaped ? (JSON.parse(text.slice(i, j + 1)) as string) : text.slice(i + 1, j);
        if (keys.has(key)) return 'an object holds the same key twice';
        keys.add(key);
      }
      expectKey = false;
      i = j;
    } else if (c === 0x7b || c === 0x5b) {
      open.push(c === 0x7b ? new Set() : null);
      if (open.length > maxDepth) return `body nests deeper than ${maxDepth} levels`;
      expectKey = c === 0x7b;
    } else if (c === 0x7d || c === 0x5d) {
      open.pop();
      expectKey = false;
    } else if (c === 0x2c) {
      expectKey = !!open[open.length - 1];
    } else if (c === 0x3a) {
      expectKey = false;
    }
  }
  return undefined;
}
