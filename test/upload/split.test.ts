import { describe, expect, it } from 'vitest';
import { SplitFinder } from '../../src/upload/split.js';

/** The split point of `text` for `target`, fed in chunks of `size` bytes. */
function find(text: string, target: number, size = 3) {
  const bytes = Buffer.from(text);
  const finder = new SplitFinder(target);
  for (let i = 0; i < bytes.length; i += size) finder.push(bytes.subarray(i, i + size));
  return finder.found;
}

describe('SplitFinder', () => {
  it('finds the first record start at or after the target, with its line', () => {
    const text = 'h1,h2\na,b\nc,d\ne,f\n';
    expect(find(text, 7)).toEqual({ offset: 10, line: 3, recordDelimiter: '\n' });
    expect(find(text, 10)).toEqual({ offset: 10, line: 3, recordDelimiter: '\n' });
    expect(text.slice(10)).toBe('c,d\ne,f\n');
  });

  it('skips line breaks inside quoted fields ("" escapes included), which still count as lines', () => {
    const text = 'h1,h2\n"a\nb ""x""\n",c\nd,e\n';
    const found = find(text, 7, 1)!;
    expect(text.slice(found.offset)).toBe('d,e\n');
    expect(found.line).toBe(5);
  });

  it('takes CRLF files at CRLF, counting each CRLF once', () => {
    const text = 'h\r\n"x\r\ny"\r\nz\r\n';
    const found = find(text, 4, 2)!;
    expect(found).toEqual({ offset: text.indexOf('z'), line: 4, recordDelimiter: '\r\n' });
  });

  it('has no split point for a file of lone CRs, or none after the target', () => {
    expect(find('h\ra\rb\rc\r', 3)).toBeUndefined();
    expect(find('h\na\nb', 5)).toBeUndefined();
  });
});
