import type { Command } from '../command.js';
import { deleteCredentials, readCredentials, writeCredentials } from '../credentials.js';
import { NotLoggedInError } from '../errors.js';

const login: Command = {
  name: 'login',
  summary: 'log in and store the session token (prompts for what --login/--password omit)',
  options: { login: { type: 'string' }, password: { type: 'string' } },
  run: async (context) => {
    const name = context.string('login') ?? (await context.io.prompt('Login: ', { secret: false }));
    const password =
      context.string('password') ?? (await context.io.prompt('Password: ', { secret: true }));
    const result = await context.send(
      context.publicClient().POST('/login', { body: { login: name, password } }),
    );
    // The session's JWT comes back in the Authorization header, as for a browser.
    const token = /^Bearer (.+)$/.exec(result.response.headers.get('authorization') ?? '')?.[1];
    if (!token) throw new NotLoggedInError('the API answered the login without a session token');
    const session = result.data!.data;
    const path = await writeCredentials(context.io.env, {
      api_url: context.apiUrl(),
      token,
      login: session.login,
      expires_at: session.expires_at,
    });
    context.print({ login: session.login, expires_at: session.expires_at, credentials: path }, [
      { heading: 'login', value: (row) => row.login },
      { heading: 'expires_at', value: (row) => row.expires_at },
      { heading: 'credentials', value: (row) => row.credentials },
    ]);
  },
};

const logout: Command = {
  name: 'logout',
  summary: 'end the session and delete the stored token',
  run: async (context) => {
    const stored = await readCredentials(context.io.env);
    if (!stored) throw new NotLoggedInError('not logged in');
    // The stored file goes even when the API cannot end the session (expired, unreachable).
    try {
      await context.send((await context.client()).POST('/logout'));
    } finally {
      await deleteCredentials(context.io.env);
    }
    context.io.stderr(`logged out of ${stored.api_url}\n`);
  },
};

export const ACCOUNT_COMMANDS = [login, logout];
