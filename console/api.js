// The API as the page calls it. The key lives in this tab's sessionStorage only and goes out
// as X-API-Key on same-origin requests; a key the API refuses (401) is forgotten at once.
const KEY = 'governed-runtime.api-key';

export const storedKey = () => sessionStorage.getItem(KEY);
export const storeKey = (key) => sessionStorage.setItem(KEY, key);
export const forgetKey = () => sessionStorage.removeItem(KEY);

/** A 401: the key is malformed, unknown, expired or suspended; the page no longer holds it. */
export class KeyRefused extends Error {
  constructor(reason) {
    super(
      `The API refused this key (${reason}), so it was cleared from this tab. Paste a valid key to continue.`,
    );
    this.name = 'KeyRefused';
    this.reason = reason;
  }
}

/** The error envelope's message, with the validator's issues when it lists them. */
function messageOf(json, response) {
  const error = json.error ?? {};
  const detail = Array.isArray(error.detail)
    ? `: ${error.detail.map((issue) => issue.msg).join('; ')}`
    : '';
  return `${error.message ?? `HTTP ${response.status}`}${detail}`;
}

/**
 * Calls the API; answers the payload, or throws with the API's own error message.
 * `onKeyRefused` runs (once the key is forgotten) before a 401 is thrown as `KeyRefused`.
 */
export function createApi({ onKeyRefused }) {
  return async function api(method, path, body) {
    const response = await fetch(path, {
      method,
      headers: {
        'X-API-Key': storedKey() ?? '',
        ...(body ? { 'Content-Type': 'application/json' } : {}),
      },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await response.text();
    const json = text ? JSON.parse(text) : {};
    if (response.status === 401) {
      forgetKey();
      const refused = new KeyRefused(messageOf(json, response));
      onKeyRefused(refused);
      throw refused;
    }
    if (!response.ok) {
      const error = new Error(messageOf(json, response));
      error.status = response.status;
      throw error;
    }
    return json.payload;
  };
}
