import type { NextConfig } from "next";

// The Hub is served by our own Node server (server/web.ts) around Next's request handler, so
// long-polls and (later) TLS are ours. Packages with native or wasm parts stay external.
const config: NextConfig = {
  poweredByHeader: false,
  serverExternalPackages: ["pg", "bullmq", "ioredis", "@prisma/adapter-pg"],
};

export default config;
