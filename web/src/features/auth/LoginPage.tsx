import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { sessionStore } from '../../api/session';
import { ErrorMessage } from '../../components/ErrorMessage';
import { logIn, providerLoginHref, useAuthSession } from './api';

/**
 * Session login (auth on): the API sets the SESSION cookie, which every later call and the SSE stream
 * carry. With an identity provider the sign-in happens there, and comes back to this page.
 */
export function LoginPage() {
  const authSession = useAuthSession();
  const loginUrl = authSession.data?.oidc_login_url;
  if (loginUrl) {
    return (
      <section className="card login">
        <h1>Sign in</h1>
        <p>This server signs you in through your organization's identity provider.</p>
        <a className="signin" href={providerLoginHref(loginUrl)}>
          Sign in with the identity provider
        </a>
      </section>
    );
  }
  return <PasswordLogin />;
}

function PasswordLogin() {
  const queryClient = useQueryClient();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<unknown>();
  const [pending, setPending] = useState(false);

  return (
    <section className="card login">
      <h1>Sign in</h1>
      <form
        onSubmit={async (event) => {
          event.preventDefault();
          setPending(true);
          setError(undefined);
          try {
            const user = await logIn(email.trim(), password);
            sessionStore.signedIn(user.email);
            await queryClient.resetQueries();
          } catch (failure) {
            setError(failure);
          } finally {
            setPending(false);
          }
        }}
      >
        <p>
          <label>
            Email <input type="email" autoComplete="username" value={email} onChange={(event) => setEmail(event.target.value)} required />
          </label>
        </p>
        <p>
          <label>
            Password <input type="password" autoComplete="current-password" value={password} onChange={(event) => setPassword(event.target.value)} required />
          </label>
        </p>
        <button type="submit" disabled={pending}>
          Sign in
        </button>
      </form>
      <ErrorMessage error={error} prefix="Sign-in refused" />
    </section>
  );
}
