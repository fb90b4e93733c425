// The page's one door to the API. The key lives in a module variable of this tab only (never
// localStorage, sessionStorage or a cookie), every request goes to a relative /api/v1 path of this origin,
// and an error reply becomes an ApiError carrying the API's own message, code and extra fields (spec 2.10).

let apiKey = '';

/** Use `key` for every following request (trimmed; '' forgets it). */
export function setKey(key) {
  apiKey = String(key).trim();
}

export function hasKey() {
  return apiKey !== '';
}

/** An error reply of the API (`status` 0: the server could not be reached). */
export class ApiError extends Error {
  constructor(status, message, code, extras) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.extras = extras;
  }
}

async function toApiError(res) {
  const text = await res.text().catch(() => '');
  let body = null;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: fall through to the status line
  }
  if (body && typeof body.error === 'string') {
    const { error, code, ...extras } = body;
    return new ApiError(res.status, error, typeof code === 'string' ? code : null, extras);
  }
  return new ApiError(res.status, `HTTP ${res.status} ${res.statusText}`.trim(), null, {});
}

async function send(method, path, body) {
  // Relative paths under /api/v1 only: nothing, the key least of all, ever goes to another origin.
  if (!path.startsWith('/api/v1/')) throw new Error(`refusing to call ${path}`);
  let res;
  try {
    res = await fetch(path, {
      method,
      body,
      headers: apiKey ? { 'x-api-key': apiKey } : {},
      credentials: 'omit',
      cache: 'no-store',
      redirect: 'error',
    });
  } catch {
    throw new ApiError(0, 'The server could not be reached', null, {});
  }
  if (!res.ok) throw await toApiError(res);
  return res;
}

/** GET a JSON document. */
export async function getJson(path) {
  return (await send('GET', path)).json();
}

/**
 * POST `file` as the multipart `image` part with text `fields` (empty, null and undefined values are left
 * out, so the server applies its defaults). Resolves to the Response (the caller reads the body it expects).
 */
export function postImage(path, file, fields = {}) {
  const form = new FormData();
  form.append('image', file, file.name || 'image');
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined || value === null || value === '') continue;
    form.append(name, String(value));
  }
  return send('POST', path, form);
}
