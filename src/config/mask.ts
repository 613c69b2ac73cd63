/** A secret shown only by its length class: enough to tell set from unset, nothing more. */
export function mask(value: string | undefined): string {
  if (!value) return '';
  return value.length > 12 ? `${'*'.repeat(8)}${value.slice(-2)}` : '********';
}
