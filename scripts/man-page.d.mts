// Types of scripts/man-page.mjs, for the tests that import it.
export function renderManPage(pages: Record<string, string>, version: string): string;
export function manPageOfBuild(): string;
