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
 */

/** Text a spreadsheet would read as a number, a date or a formula. */
const SPREADSHEET_READS = /^[=+\-@\t\r]|^\s*[\d.,]+([eE][+-]?\d+)?\s*$|^\d{1,4}[-/]\d{1,2}[-/]\d{1,4}/;
const NEEDS_QUOTES = /[",\r\n]|^\s|\s$/;
/** Excel's longest string literal in a formula. */
const EXCEL_LITERAL_MAX = 255;

export type CsvMode = 'exact' | 'excel';

/** One cell's text. Objects and arrays (AsrResult, RedailCall, NerSlots...) as their JSON text. */
export function csvCell(value: unknown, mode: CsvMode = 'exact'): string {
  if (value === undefined || value === null) return '';
  let text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  const reads = typeof value === 'string' && SPREADSHEET_READS.test(text);
  if (reads && mode === 'excel' && text.length <= EXCEL_LITERAL_MAX) text = `="${text.replaceAll('"', '""')}"`;
  else if (reads && mode === 'excel') text = `'${text}`;
  return reads || NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function csvLine(values: readonly unknown[], mode: CsvMode = 'exact'): string {
  let line = '';
  for (let i = 0; i < values.length; i++) line += (i ? ',' : '') + csvCell(values[i], mode);
  return `${line}\r\n`;
}
