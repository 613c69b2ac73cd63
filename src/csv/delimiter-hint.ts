/** Delimiters a spreadsheet commonly writes instead of commas (a European Excel writes `;`). */
const COMMON = [';', '\t', '|', ','];

/**
 * When a header read with `delimiter` came out as one field that another common delimiter splits
 * into several, a hint naming the flag that reads it (`; the file looks separated by ";": try
 * --delimiter ';'`); otherwise ''.
 */
export function delimiterHint(header: readonly string[], delimiter: string): string {
  if (header.length !== 1) return '';
  const other = COMMON.find((d) => d !== delimiter && header[0]!.split(d).length > 1);
  if (!other) return '';
  const flag = other === '\t' ? '--delimiter tab' : `--delimiter '${other}'`;
  return `; the file looks separated by ${other === '\t' ? 'tabs' : `"${other}"`}: try ${flag}`;
}
