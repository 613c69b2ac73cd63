// Types of scripts/notices.mjs, for the tests that import it.
export const NOTICES_FILE: string;
export const ALLOWED_LICENCES: string[];
export function licenceAllowed(licence: unknown): boolean;
export function packageDirOf(path: string): string | undefined;
