import { isSupportedCountry, parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js/min';

/**
 * Who a value names, as the never-twice ledger and the send journals compare it (README,
 * "Reaching people safely"). `key` is what is recorded; `e164` is set when the value read as a phone number.
 */
export type Person = { ok: true; key: string; e164?: string } | { ok: false; problem: string };

/**
 * How to read a value. Push's caller_id and a phone channel's id may be phone numbers (national
 * digits read as one with a region); an upload's callee, or a caller_id with `--phone-only`, must be one.
 */
export interface PersonReading {
  /** The value must be a phone number (an upload's callee; push's caller_id with --phone-only): other text is refused. */
  phone: boolean;
  /**
   * Digits without a leading `+` or `00` are a national number, read as one only when true
   * (a phone field, or a channel whose ids are phone numbers); else they are a plain identifier.
   */
  national: boolean;
  /** ISO 3166 region for national numbers (`--region`, the profile's `region`); never guessed. */
  region?: string;
}

/** E.164 allows at most 15 digits; callctl's callee rule (src/limits.ts) asks at least 7. */
const MIN_DIGITS = 7;
const MAX_DIGITS = 15;

/**
 * Digits written with the separators people and exports use: spaces of any width, hyphens and
 * other dashes, dots, slashes and brackets; optionally after `+` or `00`. Checked after NFKC, which
 * turns full-width digits and `＋` into ASCII.
 */
const PHONE_LIKE = /^(\+|00)?[\d\p{Zs}\p{Pd}.()/]*\d[\d\p{Zs}\p{Pd}.()/]*$/u;
const CONTROL = /[\p{Cc}\p{Cf}\u2028\u2029]/u;
/** A number a spreadsheet showed in scientific notation and saved so (`6.28123E+12`): its last digits are lost. */
const SCIENTIFIC = /^\+?\d(?:[.,]\d+)?E\+?\d{1,2}$/i;

const SCIENTIFIC_PROBLEM =
  'is a number a spreadsheet wrote in scientific notation, which lost its last digits: export the column as text (in Excel: select the column, Format Cells > Text, type the numbers again or import the CSV with the column set to Text, then save as CSV)';

/**
 * Reads `value` as a person: trimmed after NFKC, a phone number in E.164 form where it reads as
 * one. Where a phone number is not required, any other value is known by its text; a national
 * number without a region is refused even then (its E.164 form would be a guess, and two spellings
 * of it would be two people).
 */
export function person(value: string, reading: PersonReading): Person {
  const text = value.normalize('NFKC').trim();
  if (text === '') return { ok: false, problem: 'is empty' };
  if (CONTROL.test(text)) return { ok: false, problem: 'holds a control character' };
  const number = phoneNumber(text, reading);
  if (number.ok) return number;
  if (reading.phone || 'firm' in number) return { ok: false, problem: number.problem };
  return { ok: true, key: text };
}

/** `text` as a phone number; `firm` where the problem stands even when other text may be an identifier. */
function phoneNumber(text: string, reading: PersonReading): Person | { ok: false; problem: string; firm: true } {
  const national = reading.national || reading.phone;
  if (national && SCIENTIFIC.test(text)) return { ok: false, problem: SCIENTIFIC_PROBLEM, firm: true };
  // A country code in brackets, `(+62) 812...`, is the international form too.
  const m = PHONE_LIKE.exec(text.replace(/^\((?=\+|00)/, ''));
  if (m && m[1]) {
    // International form: the digits after the prefix are the number (no guess about trunk prefixes).
    const digits = m[0].slice(m[1].length).replace(/\D/g, '');
    if (digits.length < MIN_DIGITS || digits.length > MAX_DIGITS || digits.startsWith('0'))
      return {
        ok: false,
        problem: `is not a phone number in international form (${MIN_DIGITS} to ${MAX_DIGITS} digits after + or 00, the first not 0)`,
      };
    return { ok: true, key: `+${digits}`, e164: `+${digits}` };
  }
  if (m && national) {
    if (!reading.region) {
      const digits = text.replace(/\D/g, '').length;
      return {
        ok: false,
        problem:
          "reads as a national phone number: give its region, the country's two letters (--region ID for Indonesia, or `callctl config set region ID`), or write it with + and the country code",
        // Too few or too many digits for a phone number: an identifier, where one may be.
        ...(digits >= MIN_DIGITS && digits <= MAX_DIGITS ? { firm: true as const } : {}),
      };
    }
    const parsed = parsePhoneNumberFromString(text, reading.region.toUpperCase() as CountryCode);
    if (!parsed || !parsed.isPossible())
      return { ok: false, problem: `is not a possible phone number in region ${reading.region.toUpperCase()}` };
    return { ok: true, key: parsed.number, e164: parsed.number };
  }
  return { ok: false, problem: 'is not a phone number' };
}

/**
 * Channels whose user ids are phone numbers, so that digits without `+` are read as a national
 * number there (callctl's reading: the spec names no channel; README, "How callctl reads the
 * spec's gaps"). On other channels only `+` or `00` makes an id a phone number.
 */
const PHONE_CHANNELS = new Set(['whatsapp', 'sms', 'mms', 'rcs', 'viber', 'phone', 'voice', 'call', 'telephone']);

export function channelName(channel: string): string {
  return channel.normalize('NFKC').trim().toLowerCase();
}

/**
 * The person a template message reaches: the channel (without case), its id (a number in E.164
 * where it reads as one) and the user id when one is given (the spec allows it empty).
 */
export function channelPerson(channel: string, channelId: string, userId: string, region: string | undefined): Person {
  const name = channelName(channel);
  if (name === '') return { ok: false, problem: 'channel is empty' };
  if (CONTROL.test(name)) return { ok: false, problem: 'channel holds a control character' };
  const id = person(channelId, { phone: false, national: PHONE_CHANNELS.has(name), region });
  if (!id.ok) return { ok: false, problem: `channel_id ${id.problem}` };
  const user = userId.normalize('NFKC').trim();
  if (CONTROL.test(user)) return { ok: false, problem: 'user_id holds a control character' };
  return { ok: true, key: `${name}:${id.key}${user ? `/${user}` : ''}`, ...(id.e164 ? { e164: id.e164 } : {}) };
}

/** Whether `region` is a region libphonenumber knows (ISO 3166 alpha-2, any case). */
export function knownRegion(region: string): boolean {
  return isSupportedCountry(region.toUpperCase());
}

/**
 * Who a value of a received notification names (a callee's number, a template's channel_id), as
 * `hooks events --callee` compares them: E.164 for a number in international form, else its text
 * (NFKC, trimmed). Digits alone are no number here: the region they would need is not known.
 */
export function personKey(value: string): string {
  const p = person(value, { phone: false, national: false });
  return p.ok ? p.key : value.normalize('NFKC').trim();
}
