# One image for both processes: `node dist/src/main.js` (api) or `node dist/src/worker.js`.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# `npm install`, not `npm ci`: see scripts/ensure-deps.sh.
RUN npm install --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
# The api's /mcp serves the MCP server of the client package (docs/agents.md), compiled with it.
COPY packages/client/src ./packages/client/src
COPY bench ./bench
RUN npx tsc -p tsconfig.build.json && npm prune --omit=dev

FROM node:24-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY console ./console
COPY package.json ./
# The ledger checkpoint files (LEDGER_CHECKPOINT_DIR, docs/actions.md): a volume mounted
# here starts owned by the user that appends to it.
RUN mkdir -p /app/.data/ledger-checkpoints && chown node:node /app/.data/ledger-checkpoints
USER node
CMD ["node", "dist/src/main.js"]
