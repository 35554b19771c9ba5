// Types for bin/launcher.mjs (plain JavaScript: it runs before anything compiles TypeScript).
export type EntryName = "hub" | "web" | "worker" | "migrate" | "embedded-init" | "ma2h-hub";
export declare const ENTRIES: Record<EntryName, string>;
export declare function findRoot(from: string): string;
export declare const root: string;
export declare function contentHash(file: string): string;
export declare function bundleState(
  name: EntryName,
): { bundle: string; reason?: undefined } | { bundle?: undefined; reason: string };
export declare function freshBundle(name: EntryName): string | undefined;
export declare function runningCode(
  name: EntryName,
): { code: "bundle"; reason?: undefined } | { code: "source"; reason: string };
export declare function entryFile(name: EntryName): string;
export declare function nodeArgs(name: EntryName): string[];
export declare function runEntry(name: EntryName, args: string[]): Promise<void>;
