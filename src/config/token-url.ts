import type { Profile } from './config-file.js';

/**
 * The base URL that issued the profile's token. `auth login` records it; a profile written
 * before that holds the base URL it logged in to, which is the issuer unless changed since.
 */
export function tokenBaseUrl(profile: Profile): string | undefined {
  return profile['token-base-url'] ?? profile['base-url'];
}

/** Two base URLs name the same service: scheme, host and port alike, trailing slashes ignored. */
export function sameBaseUrl(a: string, b: string): boolean {
  return normalize(a) === normalize(b);
}

function normalize(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}`;
  } catch {
    return url.replace(/\/+$/, '');
  }
}

/**
 * The flex-route address a profile's push token was set for: recorded by `config set push-token`
 * (the address in force then), else the profile's own address.
 */
export function pushTokenFlexUrl(profile: Profile, test: boolean): string | undefined {
  return test
    ? (profile['push-test-token-flex-url'] ?? profile['flex-test-url'])
    : (profile['push-token-flex-url'] ?? profile['flex-url']);
}
