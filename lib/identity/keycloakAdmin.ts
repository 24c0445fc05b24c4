/**
 * The identity provider's admin area, as Keycloak's Admin REST API serves it, called with the
 * service account of the realm's confidential client (client credentials grant). The issuer is
 * `<base>/realms/<realm>`; the admin API is `<base>/admin/realms/<realm>`.
 */

/** Why the provider refused: kind says what the service answers (400 for both a conflict and bad input in user management, 404), `unavailable` a 503. */
export class IdentityProviderError extends Error {
  constructor(
    readonly kind: 'conflict' | 'invalid' | 'not_found' | 'unavailable',
    message: string,
  ) {
    super(message);
    this.name = 'IdentityProviderError';
  }
}

export interface IdpUser {
  id: string;
  username: string;
  email?: string;
  firstName?: string;
  lastName?: string;
  enabled: boolean;
  createdTimestamp?: number;
}

/** One session of a user at the provider. */
export interface IdpSession {
  id: string;
  username: string;
  ipAddress: string;
  start: number;
  lastAccess: number;
  /** Client id by client UUID. */
  clients: Record<string, string>;
}

export interface IdpUserInput {
  username: string;
  email?: string;
  firstName: string;
  lastName: string;
  enabled: boolean;
  password: string;
}

const TIMEOUT_MS = 10_000;
/** Realm roles every Keycloak realm gives its users; not the administrator's to grant or show. */
const isDefaultRole = (name: string) => name.startsWith('default-roles-') || name === 'offline_access' || name === 'uma_authorization';

export function createKeycloakAdmin(settings: { issuer: string; clientId: string; clientSecret: string }) {
  const match = /^(.*)\/realms\/([^/]+)$/.exec(settings.issuer);
  if (!match) throw new Error(`OIDC_ISSUER ${settings.issuer} is not a Keycloak realm (<base>/realms/<realm>): user management needs Keycloak`);
  const adminBase = `${match[1]}/admin/realms/${match[2]}`;
  let token: { value: string; until: number } | undefined;

  async function send(url: string, init: RequestInit, what: string): Promise<Response> {
    try {
      return await fetch(url, { ...init, redirect: 'error', signal: AbortSignal.timeout(TIMEOUT_MS) });
    } catch (error) {
      throw new IdentityProviderError('unavailable', `${what}: the identity provider is unreachable (${(error as Error).message})`);
    }
  }

  async function accessToken(): Promise<string> {
    if (token && token.until > Date.now()) return token.value;
    const response = await send(
      `${settings.issuer}/protocol/openid-connect/token`,
      {
        method: 'POST',
        body: new URLSearchParams({ grant_type: 'client_credentials', client_id: settings.clientId, client_secret: settings.clientSecret }),
      },
      'service account token',
    );
    if (!response.ok) throw new IdentityProviderError('unavailable', `service account token: the identity provider answered ${response.status}`);
    const body = (await response.json()) as { access_token: string; expires_in: number };
    // Renewed half a minute early, so a call never carries a token that expires on the way.
    token = { value: body.access_token, until: Date.now() + Math.max(0, body.expires_in - 30) * 1000 };
    return token.value;
  }

  /** One admin API call; the JSON answer (undefined for an empty one). 404 is `not_found`, 409 `conflict`, other 4xx `invalid`. */
  async function call<T>(method: string, path: string, body?: unknown): Promise<{ data: T; location?: string }> {
    const response = await send(
      `${adminBase}${path}`,
      {
        method,
        headers: { authorization: `Bearer ${await accessToken()}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      },
      `${method} ${path}`,
    );
    const text = await response.text();
    let data: unknown;
    try {
      data = text ? JSON.parse(text) : undefined;
    } catch {
      data = undefined;
    }
    if (response.ok) return { data: data as T, location: response.headers.get('location') ?? undefined };
    const reason = (data as { errorMessage?: unknown; error_description?: unknown; error?: unknown } | undefined) ?? {};
    const message = [reason.errorMessage, reason.error_description, reason.error].find((part) => typeof part === 'string') as string | undefined;
    if (response.status === 404) throw new IdentityProviderError('not_found', 'User not found');
    if (response.status === 409) throw new IdentityProviderError('conflict', message ?? 'Conflict at the identity provider');
    if (response.status >= 400 && response.status < 500 && response.status !== 401 && response.status !== 403) {
      throw new IdentityProviderError('invalid', message ?? `The identity provider refused the request (${response.status})`);
    }
    throw new IdentityProviderError('unavailable', `${method} ${path}: the identity provider answered ${response.status}`);
  }

  const userPath = (id: string) => `/users/${encodeURIComponent(id)}`;
  const roleRepresentations = async (names: string[]) =>
    (await call<Array<{ id: string; name: string }>>('GET', '/roles')).data.filter((role) => names.includes(role.name));

  /** The user's realm roles (the realm's defaults left out). */
  async function realmRoles(id: string): Promise<string[]> {
    const { data } = await call<Array<{ name: string }>>('GET', `${userPath(id)}/role-mappings/realm`);
    return data.map((role) => role.name).filter((name) => !isDefaultRole(name));
  }

  return {
    async listUsers(query: { search?: string; first: number; max: number }): Promise<{ users: IdpUser[]; total: number }> {
      const search = query.search ? `&search=${encodeURIComponent(query.search)}` : '';
      const [page, count] = await Promise.all([
        call<IdpUser[]>('GET', `/users?first=${query.first}&max=${query.max}&briefRepresentation=true${search}`),
        call<number>('GET', `/users/count?${search.slice(1)}`),
      ]);
      // The service account is a user of the realm too, but nobody's account.
      const users = page.data.filter((user) => !user.username.startsWith('service-account-'));
      return { users, total: count.data - (page.data.length - users.length) };
    },

    async getUser(id: string): Promise<IdpUser | undefined> {
      try {
        return (await call<IdpUser>('GET', userPath(id))).data;
      } catch (error) {
        if (error instanceof IdentityProviderError && error.kind === 'not_found') return undefined;
        throw error;
      }
    },

    /** Creates the user with a permanent password; returns its id. */
    async createUser(input: IdpUserInput): Promise<string> {
      const { location } = await call('POST', '/users', {
        username: input.username,
        email: input.email,
        emailVerified: input.email !== undefined,
        firstName: input.firstName,
        lastName: input.lastName,
        enabled: input.enabled,
        credentials: [{ type: 'password', value: input.password, temporary: false }],
      });
      const id = location?.split('/').pop();
      if (!id) throw new IdentityProviderError('unavailable', 'create user: the identity provider named no new user');
      return id;
    },

    /** Changes the username and whether the user may log in. */
    async updateUser(id: string, changes: { username?: string; enabled?: boolean }): Promise<void> {
      await call('PUT', userPath(id), changes);
    },

    /** Sets a password the user must change at the next login. */
    async setTemporaryPassword(id: string, password: string): Promise<void> {
      await call('PUT', `${userPath(id)}/reset-password`, { type: 'password', value: password, temporary: true });
    },

    async sessions(id: string): Promise<IdpSession[]> {
      return (await call<IdpSession[]>('GET', `${userPath(id)}/sessions`)).data;
    },

    async deleteUser(id: string): Promise<void> {
      await call('DELETE', userPath(id));
    },

    realmRoles,

    /** Takes these realm roles away (those it does not hold are ignored). */
    async removeRealmRoles(id: string, names: string[]): Promise<void> {
      const roles = await roleRepresentations(names);
      if (roles.length > 0) await call('DELETE', `${userPath(id)}/role-mappings/realm`, roles);
    },

    /** Ends every session of the user at the provider. */
    async logoutUser(id: string): Promise<void> {
      await call('POST', `${userPath(id)}/logout`);
    },

    /** Grants the realm roles of these names that exist (others are ignored). */
    async addRealmRoles(id: string, names: string[]): Promise<void> {
      const roles = await roleRepresentations(names);
      if (roles.length > 0) await call('POST', `${userPath(id)}/role-mappings/realm`, roles);
    },

    /** Makes the user's realm roles exactly those of these names that exist (the realm's defaults stay); returns them. */
    async replaceRealmRoles(id: string, names: string[]): Promise<string[]> {
      const current = await realmRoles(id);
      const wanted = (await roleRepresentations(names)).filter((role) => !isDefaultRole(role.name));
      const added = wanted.filter((role) => !current.includes(role.name));
      const removed = current.filter((name) => !wanted.some((role) => role.name === name));
      if (added.length > 0) await call('POST', `${userPath(id)}/role-mappings/realm`, added);
      if (removed.length > 0) await call('DELETE', `${userPath(id)}/role-mappings/realm`, await roleRepresentations(removed));
      return wanted.map((role) => role.name).sort();
    },
  };
}

export type KeycloakAdmin = ReturnType<typeof createKeycloakAdmin>;
