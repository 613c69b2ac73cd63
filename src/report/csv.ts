/**
 * CSV cells (RFC 4180), and the one place that decides how a cell is written for a spreadsheet.
 *
 * By default a cell is its exact value: quoted when it holds a comma, a quote, a line break or
 * leading/trailing spaces, and also when a spreadsheet would read it as a number or a formula
 * (`+5511...`, `=...`), since some (LibreOffice's "quoted field as text") keep quoted fields as
 * text. Every CSV reader gets the value back unchanged.
 *
 * Excel ignores quotes: it turns `+5511987654321` into 5.51199E+12 and evaluates a cell that
 * starts with `=`, `+`, `-` or `@` (a formula injection when the text comes from the service).
 * No in-band marker keeps both the exact text for other tools and text in Excel (a leading tab or
 * apostrophe stays in the value for every other reader), so that is a choice: `excel` mode writes
 * such cells as the text formula `="..."`, which Excel, LibreOffice and Google Sheets show as the
 * exact text and never evaluate, at the cost of the file being for spreadsheets.
 *
 * Received events are another matter: anyone can send a notification (the senders of
 * workflow.api_push are not authenticated), so every CSV of them is written for a spreadsheet to
 * run nothing, whatever opens it (formulaSafe).
 */

/** Text a spreadsheet would read as a number or a date (tested only when the first character could start one). */
const NUMBER_OR_DATE = /^\s*[\d.,]+([eE][+-]?\d+)?\s*$|^\d{1,4}[-/]\d{1,2}[-/]\d{1,4}/;
const NEEDS_QUOTES = /[",\r\n]/;
/** Excel's longest string literal in a formula. */
const EXCEL_LITERAL_MAX = 255;

export type CsvMode = 'exact' | 'excel';

/** A spreadsheet would read this text as a formula (= + - @, or a tab or CR before one), a number or a date. */
function spreadsheetReads(text: string): boolean {
  const c = text.charCodeAt(0);
  // = + - @ TAB CR
  if (c === 61 || c === 43 || c === 45 || c === 64 || c === 9 || c === 13) return true;
  // a digit, a space, . or ,
  if ((c >= 48 && c <= 57) || c === 32 || c === 46 || c === 44) return NUMBER_OR_DATE.test(text);
  return false;
}

const quote = (text: string) => `"${text.includes('"') ? text.replaceAll('"', '""') : text}"`;

/** One cell's text. Objects and arrays (AsrResult, RedailCall, NerSlots...) as their JSON text. */
export function csvCell(value: unknown, mode: CsvMode = 'exact'): string {
  // By type, most frequent first: a call record is mostly strings, then numbers, then nested values.
  switch (typeof value) {
    case 'string':
      return value === '' ? '' : textCell(value, mode);
    case 'number':
      // A number's text has no comma, quote or line break (JSON numbers are finite).
      return String(value);
    case 'object':
      if (value === null) return '';
      return jsonCell(JSON.stringify(value));
    case 'undefined':
      return '';
    default: {
      const text = String(value);
      return NEEDS_QUOTES.test(text) ? quote(text) : text;
    }
  }
}

/** A nested value's JSON text: quoted when it holds a quote or a comma (`[]` and `{}` stay as they are). */
function jsonCell(text: string): string {
  if (text.length <= 2) return text;
  // JSON text holds no raw line break; a key or a string value means a quote.
  const quoteAt = text.indexOf('"');
  if (quoteAt >= 0) return `"${text.replaceAll('"', '""')}"`;
  return text.includes(',') ? `"${text}"` : text;
}

function textCell(value: string, mode: CsvMode): string {
  if (spreadsheetReads(value)) {
    if (mode === 'exact') return quote(value);
    return quote(value.length <= EXCEL_LITERAL_MAX ? `="${value.replaceAll('"', '""')}"` : `'${value}`);
  }
  const last = value.charCodeAt(value.length - 1);
  return NEEDS_QUOTES.test(value) || value.charCodeAt(0) === 32 || last === 32 || last === 9 ? quote(value) : value;
}

/** What a spreadsheet runs as a formula when a cell starts with it: = + - @, a tab or a carriage return. */
const FORMULA_START = /^[=+\-@\t\r]/;
/** A number, or a phone number as callctl shows one (+ then digits, some masked with *): it runs nothing. */
const NUMBER_ONLY = /^[+-]?[\d.*]+$/;

/**
 * Text someone else wrote (a received event's field), as a spreadsheet may show it and never run
 * it: OWASP's rule against CSV injection, a `'` before a leading = + - @, tab or carriage return
 * (`=HYPERLINK(...)` becomes `'=HYPERLINK(...)`). A number or a phone number stays as it is.
 */
export function formulaSafe(text: string): string {
  return FORMULA_START.test(text) && !NUMBER_ONLY.test(text) ? `'${text}` : text;
}

export function csvLine(values: readonly unknown[], mode: CsvMode = 'exact'): string {
  let line = '';
  for (let i = 0; i < values.length; i++) line += (i ? ',' : '') + csvCell(values[i], mode);
  return `${line}\r\n`;
}
