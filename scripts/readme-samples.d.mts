// Types of scripts/readme-samples.mjs, for the tests that import it.
export const SHOWN_URL: string;
export const SAMPLE_START_TIME: string;
export const SANDBOX_LINE: string;
export const SHOWN_ROOT: string;
export const SAMPLE_COLUMNS: number;
export function samplePages(): string[];
export function renderSamples(text: string, where?: string): Promise<string>;
