# syntax=docker/dockerfile:1
# The Hub's container image: one image for every process. Its command is web (the default), worker,
# migrate, hub (migrations + web + worker in one container) or `ma2h-hub <command>` (the admin CLI):
# deploy/entrypoint.sh runs the npm script of that name. docs/DEPLOYMENT.md, "Containers".
# Nothing secret is baked in: AUTH_SECRET, DATABASE_URL and the rest come from the environment at run.

ARG NODE_IMAGE=node:20-slim

# 1. Dependencies and the build: dev dependencies included (esbuild, TypeScript for Next).
FROM ${NODE_IMAGE} AS build
WORKDIR /app
ENV NEXT_TELEMETRY_DISABLED=1
COPY package.json package-lock.json ./
COPY packages/protocol/package.json packages/protocol/package.json
COPY packages/agent/package.json packages/agent/package.json
COPY prisma ./prisma
COPY prisma.config.ts ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build
# 2. Production dependencies only, in place of the full tree.
RUN npm prune --omit=dev --no-audit --no-fund

# 3. The runtime: the built app, production dependencies, a non-root user.
FROM ${NODE_IMAGE} AS runtime
WORKDIR /app
# The commit /healthz and `ma2h-hub --version` report (the image has no .git): --build-arg MA2H_COMMIT=$(git rev-parse HEAD)
ARG MA2H_COMMIT=""
ENV MA2H_COMMIT=${MA2H_COMMIT} \
    NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000
# pg_dump/pg_restore for `ma2h-hub backup|restore` (docs/DEPLOYMENT.md, "Backups").
RUN apt-get update \
 && apt-get install -y --no-install-recommends postgresql-client \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build --chown=node:node /app /app
USER node
EXPOSE 3000
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 CMD ["node", "deploy/healthcheck.mjs"]
ENTRYPOINT ["/app/deploy/entrypoint.sh"]
CMD ["web"]
