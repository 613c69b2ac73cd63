/**
 * A person is known by their number (issue 21 item 2): every spelling an export may use of one
 * E.164 number is one person, and distinct numbers are never merged. Property-tested over
 * generated numbers of every country code libphonenumber knows.
 */
import fc from 'fast-check';
import { getCountries, getCountryCallingCode, parsePhoneNumberFromString } from 'libphonenumber-js/min';
import { describe, expect, it } from 'vitest';
import { channelPerson, person } from '../src/person.js';

const CALLING_CODES = [...new Set(getCountries().map((c) => getCountryCallingCode(c)))];
const PHONE = { phone: true, national: true } as const;

/** An E.164 number: a country calling code and a national number, 7 to 15 digits in all, not starting with 0. */
const e164 = fc
  .tuple(fc.constantFrom(...CALLING_CODES), fc.integer({ min: 7, max: 15 }))
  .chain(([cc, total]) =>
    fc
      .tuple(
        fc.integer({ min: 1, max: 9 }),
        fc.array(fc.integer({ min: 0, max: 9 }), {
          minLength: Math.max(0, total - cc.length - 1),
          maxLength: Math.max(0, total - cc.length - 1),
        }),
      )
      .map(([first, rest]) => `+${cc}${first}${rest.join('')}`),
  )
  .filter((n) => n.length - 1 >= 7 && n.length - 1 <= 15);

const FULL_WIDTH = (s: string) => s.replace(/[0-9+]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0));

/** The ways an export spells a number: separators, 00 for +, full-width forms, stray spaces. */
const spelling = (n: string) =>
  fc
    .tuple(
      fc.constantFrom(' ', '-', '.', '\u00a0', '\u2011', '/', ''),
      fc.integer({ min: 1, max: 4 }),
      fc.constantFrom('+', '00', '＋'),
      fc.boolean(),
      fc.boolean(),
      fc.constantFrom('', ' ', '\t', '\u3000'),
    )
    .map(([sep, group, prefix, brackets, fullWidth, pad]) => {
      const digits = n.slice(1);
      const groups = digits.match(new RegExp(`.{1,${group}}`, 'g'))!;
      if (brackets && groups.length > 2) groups[1] = `(${groups[1]})`;
      let body = `${prefix}${groups.join(sep)}`;
      if (fullWidth) body = FULL_WIDTH(body);
      return `${pad}${body}${pad}`;
    });

describe('person', () => {
  it('reads every spelling of a number as its E.164 form', () => {
    fc.assert(
      fc.property(
        e164.chain((n) => fc.tuple(fc.constant(n), spelling(n))),
        ([n, written]) => {
          const p = person(written, PHONE);
          expect(p).toEqual({ ok: true, key: n, e164: n });
        },
      ),
      { numRuns: 500 },
    );
  });

  it('never merges distinct numbers, however each is spelled', () => {
    fc.assert(
      fc.property(
        fc
          .tuple(e164, e164)
          .filter(([a, b]) => a !== b)
          .chain(([a, b]) => fc.tuple(spelling(a), spelling(b))),
        ([a, b]) => {
          const pa = person(a, PHONE);
          const pb = person(b, PHONE);
          expect(pa.ok && pb.ok).toBe(true);
          expect(pa.ok && pb.ok && pa.key !== pb.key).toBe(true);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('reads a national number with its region as the E.164 number libphonenumber gives', () => {
    const regions = ['US', 'GB', 'DE', 'FR', 'IN', 'BR', 'MX', 'JP', 'AU', 'NG'] as const;
    let checked = 0;
    fc.assert(
      fc.property(
        fc.constantFrom(...regions),
        fc.integer({ min: 1, max: 9 }),
        fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 5, maxLength: 10 }),
        (region, first, digits) => {
          // A national significant number does not start with 0 (written nationally it may: a trunk prefix).
          const n = parsePhoneNumberFromString(`+${getCountryCallingCode(region)}${first}${digits.join('')}`);
          // A valid number written nationally reads back as itself, where libphonenumber itself reads
          // it so (in Japan a national number starting 010 reads as the international prefix 010).
          if (!n || !n.isValid() || n.country !== region) return;
          if (parsePhoneNumberFromString(n.formatNational(), region)?.number !== n.number) return;
          checked++;
          expect(person(n.formatNational(), { ...PHONE, region })).toEqual({ ok: true, key: n.number, e164: n.number });
          expect(person(n.formatNational(), { ...PHONE, region: region.toLowerCase() })).toEqual({
            ok: true,
            key: n.number,
            e164: n.number,
          });
        },
      ),
      { numRuns: 400 },
    );
    expect(checked).toBeGreaterThan(20);
  });

  it('never guesses the region of a national number', () => {
    const p = person('(555) 777-1234', PHONE);
    expect(p.ok).toBe(false);
    expect(!p.ok && p.problem).toMatch(
      /national phone number: give its region, the country's two letters \(--region ID for Indonesia/,
    );
  });

  it.each([
    ['', 'is empty'],
    ['   ', 'is empty'],
    ['hello world', 'is not a phone number'],
    ['<script>alert(1)</script>', 'is not a phone number'],
    ['+1555\u00007771234', 'holds a control character'],
    ['+1 555 777 1234\u200b', 'holds a control character'],
    ['+12', 'is not a phone number in international form'],
    ['+1234567890123456', 'is not a phone number in international form'],
    ['+0 555 777 1234', 'is not a phone number in international form'],
  ])('refuses %j as a caller (%s)', (value, problem) => {
    const p = person(value, PHONE);
    expect(p.ok).toBe(false);
    expect(!p.ok && p.problem).toContain(problem);
  });

  it('reads a caller_id that need not be a phone number: a number where it reads as one, else its text', () => {
    const CALLER = { phone: false, national: true } as const;
    expect(person(' CUST-1 ', CALLER)).toEqual({ ok: true, key: 'CUST-1' });
    expect(person('ＣＵＳＴ－１', CALLER)).toEqual({ ok: true, key: 'CUST-1' });
    expect(person('0062 812 3450 0014', CALLER)).toEqual({ ok: true, key: '+6281234500014', e164: '+6281234500014' });
    expect(person('0812-3450-0014', { ...CALLER, region: 'id' })).toMatchObject({ key: '+6281234500014' });
    expect(person('(+62) 812.3450.0014', PHONE)).toMatchObject({ key: '+6281234500014' });
    // Too few digits for a phone number, or not one in the region: an identifier.
    expect(person('12345', CALLER)).toEqual({ ok: true, key: '12345' });
    expect(person('+12', CALLER)).toEqual({ ok: true, key: '+12' });
    expect(person('12', { ...CALLER, region: 'US' })).toEqual({ ok: true, key: '12' });
    // A national number without its region would be a guess (and two spellings two people): refused.
    expect(person('(555) 777-1234', CALLER)).toMatchObject({ ok: false, problem: expect.stringContaining('region') });
    // Digits a spreadsheet turned into scientific notation: refused in every phone reading, saying so.
    for (const reading of [CALLER, PHONE])
      expect(person('6.28123E+12', reading)).toMatchObject({
        ok: false,
        problem: expect.stringContaining('scientific notation, which lost its last digits: export the column as text'),
      });
    expect(person('6.28123E+12', { phone: false, national: false })).toEqual({ ok: true, key: '6.28123E+12' });
  });

  it('compares identifiers after NFKC and trimming, and channels without case', () => {
    expect(channelPerson('WhatsApp', '+1 555 777 1234', '', undefined)).toEqual({
      ok: true,
      key: 'whatsapp:+15557771234',
      e164: '+15557771234',
    });
    expect(channelPerson(' whatsapp ', '0015557771234', '', undefined)).toMatchObject({
      ok: true,
      key: 'whatsapp:+15557771234',
    });
    expect(channelPerson('WHATSAPP', '5557771234', '', 'us')).toMatchObject({ ok: true, key: 'whatsapp:+15557771234' });
    // Digits on a channel whose ids are not phone numbers are an id, not a national number.
    expect(channelPerson('telegram', '123456789', '', undefined)).toEqual({ ok: true, key: 'telegram:123456789' });
    expect(channelPerson('Telegram', ' ｕｓｅｒ１ ', '', undefined)).toEqual({ ok: true, key: 'telegram:user1' });
    expect(channelPerson('whatsapp', '5557771234', '', undefined)).toMatchObject({
      ok: false,
      problem: expect.stringContaining('channel_id reads as a national phone number'),
    });
    expect(channelPerson('web', 'a\u0007b', '', undefined)).toMatchObject({
      ok: false,
      problem: 'channel_id holds a control character',
    });
    expect(channelPerson('', 'x', '', undefined)).toMatchObject({ ok: false, problem: 'channel is empty' });
    // A user id, when given, is part of who is reached (the spec allows it empty).
    expect(channelPerson('whatsapp', '+15557771234', ' u-1 ', undefined)).toMatchObject({
      key: 'whatsapp:+15557771234/u-1',
    });
    expect(channelPerson('whatsapp', '+15557771234', 'u\u0000', undefined)).toMatchObject({
      ok: false,
      problem: 'user_id holds a control character',
    });
  });
});
