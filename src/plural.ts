/**
 * A count and its noun, in the noun's right form: `plural(1, 'row')` is "1 row", `plural(2, 'row')`
 * "2 rows", `plural(1234, 'batch', 'batches')` "1,234 batches". The one helper for every count
 * callctl prints (messages, progress, summaries), so that no line says "1 rows".
 */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
}
