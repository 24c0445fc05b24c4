# One image for both processes: `node dist/api/server.js` or `node dist/workers/main.js`.
FROM node:20-bookworm-slim AS build
WORKDIR /app
ENV TEMPORAL_CLI=skip
COPY package.json package-lock.json .npmrc ./
COPY scripts/install-temporal.sh scripts/
RUN npm ci
COPY . .
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production DATA_DIR=/data
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
VOLUME /data
EXPOSE 8080
CMD ["node", "dist/api/server.js"]
