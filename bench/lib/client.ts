/** A small HTTP client of the shop, as a browser or a sister product would call it. */
export async function signIn(base: string, email: string, password: string): Promise<string> {
  const response = await fetch(`${base}/api/auth/sign-in/email`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: base },
    body: JSON.stringify({ email, password }),
  });
  const token = response.headers.get('set-auth-token');
  if (!response.ok || !token) throw new Error(`Sign-in of ${email} failed: ${response.status} ${await response.text()}`);
  return token;
}

/** A browser's session: the Cookie header a signed-in visitor's pages send. */
export async function signInCookie(base: string, email: string, password: string): Promise<string> {
  const response = await fetch(`${base}/api/auth/sign-in/email`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: base },
    body: JSON.stringify({ email, password }),
  });
  const cookies = response.headers.getSetCookie().map((line) => line.split(';')[0]!);
  if (!response.ok || cookies.length === 0) throw new Error(`Sign-in of ${email} failed: ${response.status} ${await response.text()}`);
  return cookies.join('; ');
}

export async function callFunction<T>(base: string, name: string, data: unknown, token?: string): Promise<T> {
  const response = await fetch(`${base}/fn/${name}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ data }),
  });
  const body = (await response.json()) as { data?: T; error?: { message: string } };
  if (!response.ok) throw new Error(`${name} failed: ${response.status} ${body.error?.message ?? ''}`);
  return body.data as T;
}

export const ADMIN = { email: 'admin@example.com', password: 'admin-demo-pass' };
export const SHOPPER = { email: 'shopper@example.com', password: 'shopper-demo-pass' };
