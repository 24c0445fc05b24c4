import { Router } from '@koa/router';
import type { Config } from '../../lib/config';
import { mount } from '../routeSpec';
import type { ApiState } from '../state';
import { systemRoutes } from '../specs/system';

/** The deployment's settings the web app reads at run time (never baked into its build). */
export function createAppConfigRouter(deps: { config: Config }): Router<ApiState> {
  const router = new Router<ApiState>();
  mount(router, systemRoutes.appConfig, async (ctx) => {
    ctx.body = { temporal_ui_url: deps.config.temporal.uiUrl, temporal_namespace: deps.config.temporal.namespace };
  });
  return router;
}
