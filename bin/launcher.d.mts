// Types for bin/launcher.mjs (plain JavaScript: it runs before anything compiles TypeScript).
export type EntryName = "hub" | "web" | "worker" | "migrate" | "embedded-init" | "ma2h-hub";
export declare const ENTRIES: Record<EntryName, string>;
export declare function findRoot(from: string): string;
export declare const root: string;
export declare function freshBundle(name: EntryName): string | undefined;
export declare function entryFile(name: EntryName): string;
export declare function nodeArgs(name: EntryName): string[];
export declare function runEntry(name: EntryName, args: string[]): Promise<void>;
