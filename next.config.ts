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
  serverExternalPackages: ["pg", "bullmq", "ioredis", "@prisma/adapter-pg"],
  // The inbox renders agent-supplied text: a second fence behind the sanitizer (§9.6). Nothing may
  // load from another host (no remote images, scripts, styles, fonts or connections), nothing may
  // frame it, and leaving by a link sends no referrer. Next's own inline bootstrap scripts need
  // 'unsafe-inline'; the Markdown renderer never emits HTML or attributes that could carry script.
  async headers() {
    const csp = [
      "default-src 'self'",
      "script-src 'self' 'unsafe-inline'",
      "style-src 'self' 'unsafe-inline'",
      "img-src 'self'",
      "font-src 'self'",
      "connect-src 'self'",
      "object-src 'none'",
      "base-uri 'none'",
      "form-action 'self'",
      "frame-ancestors 'none'",
    ].join("; ");
    const inbox = [
      { key: "Content-Security-Policy", value: csp },
      { key: "Referrer-Policy", value: "no-referrer" },
      { key: "X-Content-Type-Options", value: "nosniff" },
    ];
    return [
      { source: "/inbox", headers: inbox },
      { source: "/inbox/:path*", headers: inbox },
      // The admin screens and personal settings show agent ids, origins and audit details: same fence.
      { source: "/admin", headers: inbox },
      { source: "/admin/:path*", headers: inbox },
      { source: "/settings/:path*", headers: inbox },
    ];
  },
  // App Router ignores dot-folders, so the discovery documents live under app/well-known/.
  async rewrites() {
    return [
      { source: "/.well-known/ma2h", destination: "/well-known/ma2h" },
      { source: "/.well-known/ma2h-capability", destination: "/well-known/ma2h" },
      { source: "/.well-known/ma2h-keys", destination: "/well-known/ma2h-keys" },
    ];
  },
};

export default config;
