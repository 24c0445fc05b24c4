import { Router } from '@koa/router';
import type { Config } from '../../lib/config';
import { createKeycloakAdmin } from '../../lib/identity/keycloakAdmin';
import type { Db } from '../../db/connection';
import {
  createManagedUser,
  deleteManagedUser,
  getManagedUser,
  listManagedUsers,
  logoutManagedUser,
  managedUserSessions,
  requireRealmRole,
  resetManagedPassword,
  setManagedRealmRoles,
  updateManagedUser,
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
  // Before validation: who may not call these learns nothing from their input checks. A router's
  // use() without a path runs for every request that passes through it, other routers' included.
  router.use('/idp/admin', async (ctx, next) => {
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

  mount(router, userRoutes.update, async (ctx) => {
    const { params, body } = ctx.state.input;
    ctx.body = presentUser(await updateManagedUser(available(), ctx.state.user, params.user_id, body));
  });

  mount(router, userRoutes.resetPassword, async (ctx) => {
    const { params, body } = ctx.state.input;
    await resetManagedPassword(available(), params.user_id, body.password);
    ctx.body = { message: 'Password reset successfully' };
  });

  mount(router, userRoutes.logout, async (ctx) => {
    await logoutManagedUser(available(), ctx.state.input.params.user_id);
    ctx.body = { message: 'User logged out successfully' };
  });

  mount(router, userRoutes.sessions, async (ctx) => {
    const sessions = await managedUserSessions(available(), ctx.state.input.params.user_id);
    ctx.body = {
      sessions: sessions.map(({ id, username, ipAddress, start, lastAccess, clients }) => ({ id, username, ipAddress, start, lastAccess, clients })),
      total: sessions.length,
    };
  });

  mount(router, userRoutes.roles, async (ctx) => {
    const { params, body } = ctx.state.input;
    ctx.body = presentUser(await setManagedRealmRoles(available(), params.user_id, body.roles));
  });

  mount(router, userRoutes.delete, async (ctx) => {
    await deleteManagedUser(available(), ctx.state.user, ctx.state.input.params.user_id);
    ctx.body = { message: 'User deleted successfully' };
  });

  return router;
}
