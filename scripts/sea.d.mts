// Types of scripts/sea.mjs, for the tests that import it.
export function nodeLicence(node?: string): string;
export function executableNotices(node?: string): string;
export function buildExecutable(out: string, node?: string): Promise<string>;
