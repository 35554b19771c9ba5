import type { NextConfig } from "next";

// The Hub is served by our own Node server (server/web.ts) around Next's request handler, so
// long-polls and (later) TLS are ours. Packages with native or wasm parts stay external.
const config: NextConfig = {
  poweredByHeader: false,
  // Protocol bodies are small and latency matters; compression belongs to the TLS proxy if any.
  compress: false,
  // Type checking is its own step (`npm run typecheck`, run by .ci/run over app, lib, tests and
  // scripts alike), so the build does not check a second time.
  typescript: { ignoreBuildErrors: true },
  // The wire contract is a workspace package of TypeScript source (packages/protocol): Next compiles it.
  transpilePackages: ["@ma2h/protocol"],
  serverExternalPackages: ["pg", "bullmq", "ioredis", "@prisma/adapter-pg", "prom-client"],
  // Next would load every route's code from its constructor on, competing with the web's start for
  // the one thread; server/web.ts starts that preload once it listens instead (#20).
  experimental: {
    preloadEntriesOnStart: false,
    // Turbopack's on-disk cache for `next build` (on by default since 16.3) is written at the end of
    // every build — about 15 s on the 2-core CI box — and read only by a later build in the same
    // checkout. CI and the container image build from a clean tree, so nothing ever reads it.
    turbopackFileSystemCacheForBuild: false,
  },
  // The page headers — the Content-Security-Policy with a per-request script nonce, frame-ancestors
  // 'none', Referrer-Policy, nosniff and HSTS — are set on every HTML page by the Node server layer
  // (server/page-headers.ts, #19), not here: a nonce is per request, and a header listed here would
  // shadow it.
  // App Router ignores dot-folders, so the discovery documents live under app/well-known/.
  async rewrites() {
    return [
      { source: "/.well-known/ma2h", destination: "/well-known/ma2h" },
      { source: "/.well-known/ma2h-capability", destination: "/well-known/ma2h" },
      { source: "/.well-known/ma2h-keys", destination: "/well-known/ma2h-keys" },
      { source: "/.well-known/ma2h-audit-keys", destination: "/well-known/ma2h-audit-keys" },
      // The A2A gateway's Agent Card (docs/a2a.md), served by app/a2a/agent-card.
      { source: "/.well-known/agent-card.json", destination: "/a2a/agent-card" },
      // Any other /.well-known path: the §8.5 `404` envelope of app/well-known/[[...path]] (#19).
      { source: "/.well-known/:path*", destination: "/well-known/:path*" },
    ];
  },
};

export default config;
