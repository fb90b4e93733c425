// The page's one door to the API. The key lives in a module variable of this tab only (never
// localStorage, sessionStorage or a cookie), every request goes to a relative /api/v1 path of this origin,
// and an error reply becomes an ApiError carrying the API's own message, code and extra fields (spec 2.10).
// An image POST can also run as a job (`Prefer: respond-async`: 202 with the job, then GET /api/v1/jobs/{id}).
// Every image POST carries an Idempotency-Key per user action (see postImage), so a second click or a retry
// after a timeout is answered with the first answer instead of being run and charged again.

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

async function send(method, path, body, headers = {}) {
  // Relative paths under /api/v1 only: nothing, the key least of all, ever goes to another origin.
  if (!path.startsWith('/api/v1/')) throw new Error(`refusing to call ${path}`);
  let res;
  try {
    res = await fetch(path, {
      method,
      body,
      headers: apiKey ? { 'x-api-key': apiKey, ...headers } : headers,
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
 * The own catalogue's shirt (the first own style of GET /api/v1/garments, with its colours): what the Underbase
 * and Gang sheet tabs offer as shirt colours. Asked once per page; a failure is asked again next time.
 */
let ownShirtAsked = null;
export function ownShirt() {
  ownShirtAsked ??= (async () => {
    const list = await getJson('/api/v1/garments');
    const own = list.styles.find((s) => s.key.startsWith('own:'));
    if (!own) throw new Error('no own garment style');
    return getJson(`/api/v1/garments/style?key=${encodeURIComponent(own.key)}`);
  })();
  ownShirtAsked.catch(() => { ownShirtAsked = null; });
  return ownShirtAsked;
}

/** GET a binary answer (a job's output) as a Blob with its Content-Type. */
export async function getBlob(path) {
  return (await send('GET', path)).blob();
}

/** DELETE (a job's cancel); resolves to the JSON answer. */
export async function deleteJson(path) {
  return (await send('DELETE', path)).json();
}

/** The error a failed job keeps (`job.error`: the synchronous answer's status and body) as an ApiError. */
export function jobError(job) {
  const body = job.error?.body ?? {};
  const { error, code, ...extras } = body;
  return new ApiError(job.error?.status ?? 500, typeof error === 'string' ? error : 'The job failed', typeof code === 'string' ? code : null, extras);
}

// One key per user action: the same file sent to the same endpoint with the same fields is the same action
// (a second click, a retry after an error), so it reuses its key and the server replays the first answer
// (Idempotent-Replayed: true) for 24 hours without counting it again. Another file or other fields is a new
// action with a new key. Keys are random (crypto.getRandomValues also works on plain-HTTP origins).
const actionKeys = new WeakMap(); // File -> Map(JSON [path, fields] -> key)

function idempotencyKey(path, file, entries) {
  let keys = actionKeys.get(file);
  if (!keys) actionKeys.set(file, (keys = new Map()));
  const action = JSON.stringify([path, entries]);
  let key = keys.get(action);
  if (!key) {
    const bytes = crypto.getRandomValues(new Uint8Array(16));
    key = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
    keys.set(action, key);
  }
  return key;
}

/** How long a repeated action waits in total for the first one to finish (409 idempotency_key_in_progress). */
const IN_PROGRESS_WAIT_S = 180;

/**
 * POST `file` as the multipart `image` part with text `fields` (empty, null and undefined values are left
 * out, so the server applies its defaults), with the action's Idempotency-Key. When the same action is still
 * running (409), wait its Retry-After and ask again: the answer is then the first one's. Resolves to the
 * Response (the caller reads the body it expects).
 */
export async function postImage(path, file, fields = {}, headers = {}) {
  return postFiles(path, 'image', [file], fields, headers);
}

/**
 * POST `files` as repeated multipart parts named `part` (POST /gangsheet's `design`), as postImage does one
 * image: the action's key is the first file's, for these files (names and sizes) and fields.
 */
export async function postFiles(path, part, files, fields = {}, headers = {}) {
  const entries = Object.entries(fields)
    .filter(([, value]) => !(value === undefined || value === null || value === ''))
    .map(([name, value]) => [name, String(value)]);
  const others = files.slice(1).map((f) => [f.name, f.size, f.lastModified]);
  // A job (Prefer: respond-async) is another action than the same call answered at once: its own key.
  const key = idempotencyKey(headers.Prefer ? `${path} ${headers.Prefer}` : path, files[0], others.length ? [...entries, ['files', JSON.stringify(others)]] : entries);
  const form = new FormData();
  for (const file of files) form.append(part, file, file.name || part);
  for (const [name, value] of entries) form.append(name, value);
  for (let waited = 0; ; ) {
    try {
      return await send('POST', path, form, { ...headers, 'Idempotency-Key': key });
    } catch (err) {
      if (!(err instanceof ApiError) || err.code !== 'idempotency_key_in_progress' || waited >= IN_PROGRESS_WAIT_S) throw err;
      const seconds = Math.max(1, Number(err.extras.retry_after_seconds) || 2);
      await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
      waited += seconds;
    }
  }
}
