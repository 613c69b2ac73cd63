import { describe, expect, it } from 'vitest';
import { defaultServiceSign, matchMd5Sign, planSign, signaturesEqual, taskSign } from '../../src/signing/sign.js';
import { flipChar } from '../../src/hooks/samples.js';
import { vectors } from './helpers.js';

// Vectors made with md5sum and openssl by fixtures/hooks/make-vectors.sh, not by callctl.
describe('plan and task Sign (known answers)', () => {
  it.each(vectors.md5)('$kind $value with $key', ({ kind, value, key, sign }) => {
    expect(kind === 'plan' ? planSign(value, key) : taskSign(value, key)).toBe(sign);
    expect(matchMd5Sign(value, sign, [key])).toBe(0);
  });

  it('fails on a one-byte change of the value, the key or the Sign', () => {
    for (const { value, key, sign } of vectors.md5) {
      expect(matchMd5Sign(flipChar(value), sign, [key])).toBe(-1);
      expect(matchMd5Sign(value, sign, [flipChar(key)])).toBe(-1);
      expect(matchMd5Sign(value, flipChar(sign), [key])).toBe(-1);
    }
  });

  it('reads an integer Timestamp as its decimal text', () => {
    const v = vectors.md5.find((x) => x.kind === 'plan' && /^\d+$/.test(x.value))!;
    expect(planSign(Number(v.value), v.key)).toBe(v.sign);
  });

  it('finds the matching key among several (rotation) and says which', () => {
    const [one, , two] = vectors.md5; // T-1001 signed with k3y-ONE, then with k3y-TWO
    expect(matchMd5Sign('T-1001', one!.sign, ['k3y-TWO', 'k3y-ONE'])).toBe(1);
    expect(matchMd5Sign('T-1001', two!.sign, ['k3y-TWO', 'k3y-ONE'])).toBe(0);
    expect(matchMd5Sign('T-1001', two!.sign, ['k3y-ONE'])).toBe(-1);
  });

  it('accepts only 32 lowercase hex characters', () => {
    const { value, key, sign } = vectors.md5[0]!;
    expect(matchMd5Sign(value, sign.toUpperCase(), [key])).toBe(-1);
    expect(matchMd5Sign(value, `${sign} `, [key])).toBe(-1);
    expect(matchMd5Sign(value, sign.slice(0, 31), [key])).toBe(-1);
  });
});

describe('default X-Service-Sign (known answer)', () => {
  it.each(vectors.hmac)('HMAC-SHA256 hex of the raw body', ({ body, secret, sign }) => {
    expect(defaultServiceSign(Buffer.from(body), secret)).toBe(sign);
    expect(defaultServiceSign(Buffer.from(body.replace('ACME', 'ACMF')), secret)).not.toBe(sign);
    expect(defaultServiceSign(Buffer.from(body), flipChar(secret))).not.toBe(sign);
  });

  it('compares in constant time without throwing on unequal lengths', () => {
    expect(signaturesEqual('abc', 'abcd')).toBe(false);
    expect(signaturesEqual('abc', 'abc')).toBe(true);
  });
});
