/** Header names whose values are never shown. */
const SECRET_HEADERS = new Set(['authorization', 'x-service-sign', 'x-service-sign-key', 'cookie', 'set-cookie']);
/** JSON keys whose values are never shown. */
const SECRET_KEYS = /"(APPSecret|token|push_token|Sign|sign)"\s*:\s*"[^"]*"/g;

export const REDACTED = '***';

/** Replaces every known secret value, and the values of secret JSON keys, with `***`. */
export function redact(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text.replace(SECRET_KEYS, (_m, key: string) => `"${key}":"${REDACTED}"`);
  for (const secret of secrets) {
    // Very short values would redact ordinary text; callctl's secrets are longer than this.
    if (secret && secret.length >= 4) out = out.split(secret).join(REDACTED);
  }
  return out;
}

export function redactHeader(name: string, value: string, secrets: readonly (string | undefined)[]): string {
  if (SECRET_HEADERS.has(name.toLowerCase())) {
    const scheme = /^(Token|Bearer|Basic) /i.exec(value)?.[1];
    return scheme ? `${scheme} ${REDACTED}` : REDACTED;
  }
  return redact(value, secrets);
}
