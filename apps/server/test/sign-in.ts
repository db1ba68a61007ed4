import { createAuthClient } from '@storefront/sdk/auth.ts';
import { createFunctionsClient } from '@storefront/sdk/callable.ts';

/** Signs in through the sdk (as the web app does) and gives the bearer token. */
export async function signInForToken(baseUrl: string, email: string, password = 'correct horse'): Promise<string> {
  const functions = createFunctionsClient({ baseUrl });
  const { token } = await createAuthClient({ baseUrl, functions }).signIn(email, password);
  if (!token) throw new Error(`no token for ${email}`);
  return token;
}
