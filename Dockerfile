# Two images from one build, each with only the packages its processes load
# (scripts/image-packages.mjs):
#   docker build --target api -t platform .              API, worker and migration (the default)
#   docker build --target operators -t platform-operators .
# Pick the process with the command, e.g. `docker run platform node dist/apps/worker/main.js`.
# The operators run with smaller young-generation semi-spaces, as their Helm charts start them:
#   docker run platform-operators node --max-semi-space-size=4 dist/apps/backup-operator/main.js
FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

FROM build AS api-packages
RUN node scripts/image-packages.mjs --prune \
      dist/apps/api/main.js dist/apps/worker/main.js dist/apps/migrate/main.js

FROM build AS operator-packages
RUN node scripts/image-packages.mjs --prune \
      dist/apps/backup-operator/main.js dist/apps/groupware-operator/main.js

FROM node:22-bookworm-slim AS operators
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/package.json ./package.json
COPY --from=operator-packages /app/node_modules ./node_modules
COPY --from=build /app/dist/libs ./dist/libs
COPY --from=build /app/dist/apps/backup-operator ./dist/apps/backup-operator
COPY --from=build /app/dist/apps/groupware-operator ./dist/apps/groupware-operator
# The image's non-root "node" user (uid 1000), as the charts' security contexts expect.
USER node
EXPOSE 8080
CMD ["node", "--max-semi-space-size=4", "dist/apps/backup-operator/main.js"]

FROM node:22-bookworm-slim AS api
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/package.json ./package.json
COPY --from=api-packages /app/node_modules ./node_modules
COPY --from=build /app/dist/libs ./dist/libs
COPY --from=build /app/dist/apps/api ./dist/apps/api
COPY --from=build /app/dist/apps/worker ./dist/apps/worker
COPY --from=build /app/dist/apps/migrate ./dist/apps/migrate
USER node
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=3s CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/health/live').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "dist/apps/api/main.js"]
