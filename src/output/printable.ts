/**
 * Text safe to show on a terminal: control characters (ESC, BEL, C1 such as CSI...) become
 * `\xNN`, so that text from the service or from a request's body, which others may write, never
 * drives the terminal it is shown on. `keepNewlines` keeps line breaks and tabs (a body shown whole).
 */
export function printable(text: string, keepNewlines = false): string {
  const control = keepNewlines ? KEEP_LINES : ALL;
  return control.test(text) ? text.replace(control, hex) : text;
}

const ALL = /[\u0000-\u001f\u007f-\u009f]/g;
const KEEP_LINES = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
const hex = (c: string) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`;

/** A phone number with its middle hidden: `+62*******7001`. */
export function maskNumber(value: string): string {
  if (value.length <= 7) return '*'.repeat(value.length);
  return value.slice(0, 3) + '*'.repeat(value.length - 7) + value.slice(-4);
}
