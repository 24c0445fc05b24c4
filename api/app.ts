import path from 'node:path';
import Koa from 'koa';
import { Router } from '@koa/router';
import { HttpMethodEnum, koaBody } from 'koa-body';
import type { Client, Connection } from '@temporalio/client';
import type { Config } from '../lib/config';
import type { Logger } from '../lib/logger';
import type { SecretBox } from '../lib/auth/secretBox';
import type { UrlSigner } from '../lib/auth/signedUrls';
import type { ObjectStore } from '../lib/storage/objectStore';
import type { VectorStore } from '../lib/vectors/vectorStore';
import type { TextEncoder } from '../lib/ml/textEncoder';
import type { ClipModel } from '../lib/ml/clip';
import type { Db } from '../db/connection';
import type { User } from '../db/models';
import { HttpError } from './errors';
import { compressResponses } from './middleware/compressResponses';
import { errorHandler } from './middleware/errorHandler';
import { requestContext } from './middleware/requestContext';
import { rejectNul } from './middleware/rejectNul';
import { refuseCrossSiteRequests } from './middleware/sameOrigin';
import { multipartLimits } from './uploads';
import { serveWebApp } from './webApp';
import { projectRoot } from '../lib/projectRoot';
import { requireUser } from './middleware/authenticate';
import { createApiCredentialsRouter } from './routes/apiCredentials';
import { createAppConfigRouter } from './routes/appConfig';
import { createAuthRouter } from './routes/auth';
import { createDatasetsRouter } from './routes/datasets';
import { createHealthRouter } from './routes/health';
import { createIngestionRouter } from './routes/ingestion';
import { createExploreRouter } from './routes/explore';
import { createDatasetMediaRouter } from './routes/datasetMedia';
import { createMediaRouter } from './routes/media';
import { createOpenApiRouter } from './routes/openapi';
import { createApiDocsRouter } from './routes/apiDocs';
import { createVisualSearchRouter } from './routes/visualSearch';
import { createTagsRouter } from './routes/tags';
import { createDuplicatesRouter } from './routes/duplicates';
import { createMapRouter } from './routes/map';
import { createCustomMetadataRouter } from './routes/customMetadata';
import { createLabelsRouter } from './routes/labels';
import { createSelectionsRouter } from './routes/selections';
import { createClassesRouter } from './routes/classes';
import { createNotificationsRouter } from './routes/notifications';
import { createViewsRouter } from './routes/views';
import { createSnapshotsRouter } from './routes/snapshots';
import { createSharingRouter } from './routes/sharing';
import { createUsersRouter } from './routes/users';
import { createEnrichmentRouter } from './routes/enrichment';
import { createWorkspacesRouter } from './routes/workspaces';
import { modelAvailability } from '../lib/enrichment/catalog';
import type { NotificationHub } from '../lib/notifications/notificationHub';
import { createTasksRouter } from './routes/tasks';
import { createMediaAdditionRouter } from './routes/mediaAddition';
import { createExportDownloadRouter, createExportsRouter } from './routes/exports';

export interface AppDeps {
  config: Config;
  db: Db;
  temporalConnection: Connection;
  temporal: Client;
  store: ObjectStore;
  vectors: VectorStore;
  /** Loaded on the first semantic query, so plain deployments never pay for it. */
  textEncoder: () => Promise<TextEncoder>;
  /** A site's own CLIP model (MODELS_DIR/clip.json), loaded on the first text search of a dataset enriched with it. */
  clip: () => Promise<ClipModel>;
  logger: Logger;
  secretBox: SecretBox;
  signer: UrlSigner;
  hub: NotificationHub;
  defaultUser: User;
}

/** Every route of the API: public ones (health, login, signed media) and those that need a user. */
export function createApiRouters(deps: AppDeps): { publicRoutes: Router; userRoutes: Router } {
  const publicRoutes = new Router({ prefix: '/api/v1' });
  for (const router of [
    createHealthRouter({
      db: deps.db,
      temporal: deps.temporalConnection,
      namespace: deps.config.temporal.namespace,
      taskQueue: deps.config.temporal.taskQueue,
    }),
    createAuthRouter(deps),
    createMediaRouter(deps),
    createExportDownloadRouter(deps),
    createOpenApiRouter(),
  ]) {
    publicRoutes.use(router.routes(), router.allowedMethods());
  }
  // Its one route authenticates by session cookie itself, so its handler sees the user.
  const credentialRoutes = createApiCredentialsRouter(deps);
  publicRoutes.use(credentialRoutes.routes(), credentialRoutes.allowedMethods());

  const userRoutes = new Router({ prefix: '/api/v1' });
  userRoutes.use(requireUser(deps));
  for (const router of [
    createAppConfigRouter(deps),
    createDatasetsRouter({ ...deps, taskQueue: deps.config.temporal.taskQueue }),
    createIngestionRouter({ ...deps, taskQueue: deps.config.temporal.taskQueue, uploadLimits: deps.config.uploads }),
    createTasksRouter({ ...deps, taskQueue: deps.config.temporal.taskQueue }),
    createExploreRouter({ ...deps, publicUrl: deps.config.publicUrl }),
    createDatasetMediaRouter(deps),
    createVisualSearchRouter(deps),
    createTagsRouter(deps),
    createDuplicatesRouter({ ...deps, publicUrl: deps.config.publicUrl }),
    createMapRouter(deps),
    createCustomMetadataRouter({ ...deps, taskQueue: deps.config.temporal.taskQueue }),
    createLabelsRouter({ ...deps, taskQueue: deps.config.temporal.taskQueue }),
    createSelectionsRouter({ ...deps, taskQueue: deps.config.temporal.taskQueue }),
    createClassesRouter(deps),
    createNotificationsRouter(deps),
    createViewsRouter(deps),
    createSnapshotsRouter({ ...deps, taskQueue: deps.config.temporal.taskQueue }),
    createMediaAdditionRouter({ ...deps, taskQueue: deps.config.temporal.taskQueue }),
    createExportsRouter({ ...deps, taskQueue: deps.config.temporal.taskQueue, publicUrl: deps.config.publicUrl }),
    createSharingRouter(deps),
    createUsersRouter(deps),
    createWorkspacesRouter(deps),
    createEnrichmentRouter({
      ...deps,
      taskQueue: deps.config.temporal.taskQueue,
      availability: () =>
        modelAvailability({
          modelsDir: deps.config.models.dir,
          imageModel: deps.config.models.imageModel,
          visionCaptionUrl: deps.config.enrichment.visionCaption?.url,
        }),
    }),
  ]) {
    userRoutes.use(router.routes(), router.allowedMethods());
  }

  return { publicRoutes, userRoutes };
}

export function createApp(deps: AppDeps): Koa {
  // Only a proxy we put in front may name the client and scheme (links and origins come from PUBLIC_URL, never a header).
  const app = new Koa({ proxy: deps.config.trustProxy });
  app.context.db = deps.db;
  // Errors after the response started (a client leaving an event stream, say) reach here, not errorHandler.
  app.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'ERR_STREAM_PREMATURE_CLOSE') deps.logger.debug({ err: error }, 'client went away');
    else deps.logger.error({ err: error }, 'response error');
  });
  app.use(requestContext(deps.logger));
  app.use(compressResponses());
  app.use(errorHandler());
  app.use(refuseCrossSiteRequests(deps.config.publicUrl));
  app.use(
    koaBody({
      jsonLimit: '1mb',
      // DELETE carries a JSON body too (untagging a selection of media).
      parsedMethods: [HttpMethodEnum.POST, HttpMethodEnum.PUT, HttpMethodEnum.PATCH, HttpMethodEnum.DELETE],
      onError: (error) => {
        // Too large (413) or an unsupported encoding (415) keep their status; anything else is malformed.
        const status = (error as { status?: number }).status;
        throw new HttpError(status === 413 || status === 415 ? status : 422, `Malformed request body: ${error.message}`);
      },
    }),
  );
  app.use(rejectNul());
  app.use(multipartLimits(deps.config.uploads));
  // The built web app (npm run web:build) at /; /api paths are left to the routers below.
  app.use(serveWebApp(path.join(projectRoot(), 'web', 'dist')));
  // The API reference page (Swagger UI) is a page, like the web app: not an operation of the OpenAPI document.
  const apiDocs = createApiDocsRouter();
  app.use(apiDocs.routes()).use(apiDocs.allowedMethods());

  const { publicRoutes, userRoutes } = createApiRouters(deps);
  app.use(publicRoutes.routes()).use(publicRoutes.allowedMethods());
  app.use(userRoutes.routes()).use(userRoutes.allowedMethods());
  return app;
}
