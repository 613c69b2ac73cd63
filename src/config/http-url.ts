import { UsageError } from '../errors.js';
import { said } from '../said.js';

/**
 * The one check of an address callctl sends to (the service's base URL, a flex-route address, a
 * notification or forward target): an http:// or https:// URL with a host. Anything else is a usage
 * error naming where the value came from (`what`: a flag or a setting); the value shown is redacted
 * when printed, like every error line.
 */
export function httpUrl(value: string | undefined, what: string): string {
  if (value === undefined || value === '') throw new UsageError(said`missing ${what}: an http:// or https:// URL`);
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  // The text itself too: URL() reads https:///path as https://path/.
  if (
    !url ||
    (url.protocol !== 'http:' && url.protocol !== 'https:') ||
    !/^https?:\/\/[^/\s]+$|^https?:\/\/[^/\s]+[/?#]\S*$/i.test(value)
  )
    throw new UsageError(said`${what}: expected an http:// or https:// URL, not ${value}`);
  return value;
}
