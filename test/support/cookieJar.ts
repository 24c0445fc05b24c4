import { TEST_SERVICE_URL } from './keycloak';

/**
 * A browser without a browser: fetch with a cookie jar per host and redirects left to the caller,
 * enough to drive an OIDC login through the identity provider's HTML form.
 */
export interface HttpAnswer {
  status: number;
  location?: string;
  body: string;
  setCookies: string[];
}

export function createCookieJar() {
  const jar = new Map<string, Map<string, string>>();
  const cookiesOf = (host: string) => jar.get(host) ?? jar.set(host, new Map()).get(host)!;

  return {
    /** The Cookie header this jar sends to `url`'s host. */
    header(url: string): string {
      return [...cookiesOf(new URL(url).host)].map(([name, value]) => `${name}=${value}`).join('; ');
    },
    get(url: string, name: string): string | undefined {
      return cookiesOf(new URL(url).host).get(name);
    },
    set(url: string, name: string, value: string): void {
      cookiesOf(new URL(url).host).set(name, value);
    },
    /** One request, no redirect followed; cookies it sets are kept (an expired or emptied one is dropped). */
    async request(url: string, init: { method?: string; form?: Record<string, string>; headers?: Record<string, string> } = {}): Promise<HttpAnswer> {
      const response = await fetch(url, {
        method: init.method ?? (init.form ? 'POST' : 'GET'),
        redirect: 'manual',
        headers: {
          ...(this.header(url) ? { cookie: this.header(url) } : {}),
          ...(init.form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
          ...init.headers,
        },
        body: init.form ? new URLSearchParams(init.form).toString() : undefined,
      });
      const setCookies = response.headers.getSetCookie();
      const cookies = cookiesOf(new URL(url).host);
      for (const line of setCookies) {
        const [pair, ...attributes] = line.split(';').map((part) => part.trim());
        const name = pair.slice(0, pair.indexOf('='));
        const value = pair.slice(pair.indexOf('=') + 1);
        const expired = attributes.some((attribute) => /^max-age=0$/i.test(attribute) || (/^expires=/i.test(attribute) && new Date(attribute.slice(8)) < new Date()));
        if (expired || value === '') cookies.delete(name);
        else cookies.set(name, value);
      }
      const location = response.headers.get('location') ?? undefined;
      return { status: response.status, location: location ? new URL(location, url).toString() : undefined, body: await response.text(), setCookies };
    },
  };
}

export type CookieJar = ReturnType<typeof createCookieJar>;

/** The action of the login form on a Keycloak login page (HTML-escaped in the page). */
export function loginFormAction(html: string): string {
  const match = /<form[^>]*id="kc-form-login"[^>]*action="([^"]+)"/.exec(html) ?? /<form[^>]*action="([^"]+)"[^>]*id="kc-form-login"/.exec(html);
  if (!match) throw new Error(`no login form on the page: ${html.slice(0, 500)}`);
  return match[1].replaceAll('&amp;', '&');
}

/** What a provider's page says to the user (its error and info texts), else the start of the page, for a failure's message. */
function providerMessages(page: string): string {
  const text = (html: string) => html.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').trim();
  const messages = [...page.matchAll(/<(?:span|div|p)[^>]*(?:id="input-error[^"]*"|class="[^"]*(?:alert|feedback|helper-text|error)[^"]*")[^>]*>([\s\S]*?)<\/(?:span|div|p)>/g)]
    .map((match) => text(match[1]))
    .filter(Boolean);
  return messages.length > 0 ? `the page says: ${[...new Set(messages)].join(' | ')}` : page.replace(/\s+/g, ' ').slice(0, 3000);
}

/**
 * Logins through the identity provider against the API served at `base`, whose public URL is
 * TEST_SERVICE_URL (the realm's redirect URI): the provider's redirects to it are sent to `base`.
 */
export function oidcBrowser(base: string) {
  const toService = (url: string) => url.replace(TEST_SERVICE_URL, base);

  /** Starts a login; the provider's login page (or its redirect straight back, with an SSO session). */
  async function startLogin(jar: CookieJar, returnTo = '/') {
    const start = await jar.request(`${base}/api/v1/auth/oidc/login?return_to=${encodeURIComponent(returnTo)}`);
    expect(start.status).toBe(302);
    return { authorize: new URL(start.location!), page: await jar.request(start.location!) };
  }

  /** The provider's form filled in: the redirect back to the service's callback. */
  async function submitCredentials(jar: CookieJar, page: string, username: string, password: string): Promise<string> {
    const submitted = await jar.request(loginFormAction(page), { form: { username, password, credentialId: '' } });
    if (submitted.status !== 302) throw new Error(`login of ${username} answered ${submitted.status}: ${providerMessages(submitted.body)}`);
    if (!submitted.location!.startsWith(`${TEST_SERVICE_URL}/api/v1/auth/oidc/callback?`)) throw new Error(`login of ${username} went to ${submitted.location}: ${(await jar.request(submitted.location!)).body.replace(/\s+/g, ' ').slice(0, 4000)}`);
    return toService(submitted.location!);
  }

  /** A whole login: the jar then holds the SESSION cookie. */
  async function login(jar: CookieJar, username: string, password: string, returnTo = '/') {
    const { page } = await startLogin(jar, returnTo);
    const callback = await jar.request(await submitCredentials(jar, page.body, username, password));
    expect(callback.status).toBe(302);
    return callback;
  }

  return { toService, startLogin, submitCredentials, login, session: (jar: CookieJar) => `SESSION=${jar.get(base, 'SESSION')}` };
}
