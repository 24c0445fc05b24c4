import type { RouteSpec } from '../routeSpec';
import { authRoutes } from './auth';
import { customMetadataRoutes } from './customMetadata';
import { labelRoutes } from './labels';
import { classRoutes } from './classes';
import { datasetRoutes } from './datasets';
import { datasetMediaRoutes } from './datasetMedia';
import { exploreRoutes } from './explore';
import { exportRoutes } from './exports';
import { ingestionRoutes } from './ingestion';
import { mediaRoutes } from './media';
import { mediaAdditionRoutes } from './mediaAddition';
import { notificationRoutes } from './notifications';
import { systemRoutes } from './system';
import { selectionRoutes } from './selections';
import { tagRoutes } from './tags';
import { duplicateRoutes } from './duplicates';
import { mapRoutes } from './map';
import { taskRoutes } from './tasks';
import { viewRoutes } from './views';
import { snapshotRoutes } from './snapshots';
import { sharingRoutes } from './sharing';
import { userRoutes } from './users';
import { enrichmentRoutes } from './enrichment';
import { workspaceRoutes } from './workspaces';

/** Every route of the API, in the order the OpenAPI document lists them; the routers mount these same specs. */
export const API_ROUTES: readonly RouteSpec[] = [
  systemRoutes,
  authRoutes,
  mediaRoutes,
  datasetRoutes,
  ingestionRoutes,
  taskRoutes,
  exploreRoutes,
  datasetMediaRoutes,
  tagRoutes,
  selectionRoutes,
  duplicateRoutes,
  mapRoutes,
  customMetadataRoutes,
  labelRoutes,
  classRoutes,
  notificationRoutes,
  viewRoutes,
  snapshotRoutes,
  mediaAdditionRoutes,
  exportRoutes,
  sharingRoutes,
  userRoutes,
  enrichmentRoutes,
  workspaceRoutes,
].flatMap((group): RouteSpec[] => Object.values(group));
