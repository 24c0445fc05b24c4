import { Router } from '@koa/router';
import { checkHealth, type HealthDeps } from '../../services/health';
import { mount } from '../routeSpec';
import type { RequestState } from '../state';
import { presentHealth } from '../presenters/health';
import { systemRoutes } from '../specs/system';

export function createHealthRouter(deps: HealthDeps): Router<RequestState> {
  const router = new Router<RequestState>();

  mount(router, systemRoutes.health, async (ctx) => {
    const health = await checkHealth(deps);
    ctx.status = health.ok ? 200 : 503;
    ctx.body = presentHealth(health);
  });

  return router;
}
