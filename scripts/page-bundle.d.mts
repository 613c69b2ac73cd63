export declare function bundlePage(entry: string): Promise<{ script: string; css: string }>;
export declare function bundleModule(entry: string): Promise<string>;
export declare const BUNDLE_IMPORT: RegExp;
export declare function entryOf(path: string): string;
