/** The package version, put in by the build (esbuild `define` from packages/agent/package.json). */
declare const __MA2H_AGENT_VERSION__: string | undefined;

export const CLI_VERSION: string = typeof __MA2H_AGENT_VERSION__ === "string" ? __MA2H_AGENT_VERSION__ : "0.0.0-dev";
