// Types for test/support/tiers.mjs.
export type Tier = "unit" | "db" | "process";
export declare function tierOf(source: string): Tier;
export declare function filesByTier(root: string): Record<Tier, string[]>;
