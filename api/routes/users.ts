import { Router } from '@koa/router';
import type { Config } from '../../lib/config';
import { createKeycloakAdmin } from '../../lib/identity/keycloakAdmin';
import type { Db } from '../../db/connection';
import {
  createManagedUser,
  deleteManagedUser,
  getManagedUser,
  listManagedUsers,
  requireRealmRole,
  type ManagedUser,
  type UserManagementDeps,
} from '../../services/userManagement';
import { HttpError } from '../errors';
import { mount } from '../routeSpec';
import type { ApiState } from '../state';
import { userRoutes } from '../specs/users';

const presentUser = (user: ManagedUser) => ({
  id: user.id,
  username: user.username,
  firstName: user.firstName ?? null,
  lastName: user.lastName ?? null,
  enabled: user.enabled,
  createdTimestamp: user.createdTimestamp ?? null,
  roles: user.roles,
  lastAccess: user.lastAccess,
});

/**
 * The identity provider's admin area (spec "User management (self-hosted)"): only on ONPREM with
 * authentication and a provider (403 otherwise); reads need the realm role view-users, writes manage-users.
 */
export function createUsersRouter(deps: { db: Db; config: Config }): Router<ApiState> {
  const router = new Router<ApiState>();
  const { oidc } = deps.config;
  const management: UserManagementDeps | undefined = oidc ? { db: deps.db, idp: createKeycloakAdmin(oidc) } : undefined;
  const available = (): UserManagementDeps => {
    if (deps.config.runMode !== 'ONPREM' || deps.config.disableAuth) {
      throw new HttpError(403, 'User management exists only with RUN_MODE=ONPREM and authentication enabled');
    }
    if (!management) throw new HttpError(403, 'User management needs the identity provider (OIDC_ISSUER)');
    return management;
  };
  // Before validation: who may not call these learns nothing from their input checks. Runs for this router's routes only.
  router.use(async (ctx, next) => {
    available();
    requireRealmRole(ctx.state.user, ctx.method === 'GET' ? 'view-users' : 'manage-users');
    await next();
  });

  mount(router, userRoutes.list, async (ctx) => {
    const { query } = ctx.state.input;
    const page = await listManagedUsers(available(), { search: query.search, first: query.first, max: query.max_results });
    ctx.body = { users: page.users.map(presentUser), total: page.total };
  });

  mount(router, userRoutes.get, async (ctx) => {
    ctx.body = presentUser(await getManagedUser(available(), ctx.state.input.params.user_id));
  });

  mount(router, userRoutes.create, async (ctx) => {
    const { body } = ctx.state.input;
    const user = await createManagedUser(available(), {
      username: body.username,
      password: body.password,
      firstName: body.firstName,
      lastName: body.lastName,
      enabled: body.enabled,
      workspaceRole: body.workspace_role,
    });
    ctx.status = 201;
    ctx.body = presentUser(user);
  });

  mount(router, userRoutes.delete, async (ctx) => {
    await deleteManagedUser(available(), ctx.state.user, ctx.state.input.params.user_id);
    ctx.body = { message: 'User deleted successfully' };
  });

  return router;
}
