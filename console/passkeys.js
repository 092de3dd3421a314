// Passkeys in the page: registering one and signing a decision with it (docs/console.md,
// "Passkeys"). The WebAuthn encoding (base64url options in, credentials out) and the browser's
// error names come from @simplewebauthn/browser, whose one-file bundle the api serves beside
// these modules; importing it defines `SimpleWebAuthnBrowser` on the window.
import './simplewebauthn-browser.js';

const webauthn = () => globalThis.SimpleWebAuthnBrowser;

export const NO_PASSKEY_SUPPORT =
  'This browser has no passkey support (WebAuthn): use a current browser, or sign with an Ed25519 key through the api (docs/approvals.md).';

const insecure = (rpId) =>
  `Passkeys need a secure page: serve the console over https (or from http://localhost), at the relying party's origin (WEBAUTHN_RP_ID=${rpId}).`;

const wrongOrigin = (rpId) =>
  `Passkeys here belong to ${rpId}, but this page is served from ${location.origin}: the page must be served from the relying party's origin (WEBAUTHN_RP_ID=${rpId}, WEBAUTHN_ORIGINS). Ask the operator for the console's address.`;

/** An IPv4 address, or an IPv6 one (bracketed in a URL): never a relying party. */
const isAddress = (host) => /^[\d.]+$/.test(host) || host.includes(':');

/** This page under a host name: the same page at localhost when served from a loopback address. */
function addressedPage(host) {
  if (!/^127\.|^\[::1\]$/.test(host)) {
    return `Passkeys cannot belong to an IP address, and this page is served from ${host}: open the console under its host name (the api's PUBLIC_BASE_URL).`;
  }
  const port = location.port ? `:${location.port}` : '';
  const there = `${location.protocol}//localhost${port}${location.pathname}${location.hash}`;
  return `Passkeys cannot belong to an IP address, and this page is served from ${host}: open the console at ${there} instead.`;
}

/**
 * Why this page cannot use passkeys at all, or null: a page served from an IP address has
 * no host name a passkey could belong to, and browsers offer WebAuthn to secure pages only
 * (https, or http://localhost), so an insecure page looks like a browser without it.
 */
export function pageProblem(rpId = 'the api’s WEBAUTHN_RP_ID') {
  if (isAddress(location.hostname)) return addressedPage(location.hostname);
  if (!window.isSecureContext) return insecure(rpId);
  if (!webauthn()?.browserSupportsWebAuthn()) return NO_PASSKEY_SUPPORT;
  return null;
}

/**
 * Why a passkey cannot be made or used on this page for relying party `rpId`, or null. The
 * browser would refuse these itself, with a SecurityError that says less.
 */
export function passkeyProblem(rpId) {
  if (isAddress(rpId)) {
    // The default relying party is PUBLIC_BASE_URL's host: an address only when configured so.
    return `Passkeys cannot belong to an IP address (WEBAUTHN_RP_ID=${rpId}): the operator sets PUBLIC_BASE_URL, or WEBAUTHN_RP_ID and WEBAUTHN_ORIGINS, to a host name (e.g. http://localhost:8080) and the console is opened there.`;
  }
  const host = location.hostname;
  if (host !== rpId && !host.endsWith(`.${rpId}`)) return wrongOrigin(rpId);
  return pageProblem(rpId);
}

/** The browser's refusal, as a person can act on it. */
function explain(error, rpId) {
  switch (error?.code) {
    case 'ERROR_INVALID_DOMAIN':
    case 'ERROR_INVALID_RP_ID':
      return wrongOrigin(rpId);
    case 'ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED':
      return 'This authenticator already holds one of your passkeys (listed below): there is no need to register it again.';
    case 'ERROR_AUTHENTICATOR_MISSING_USER_VERIFICATION_SUPPORT':
      return 'This authenticator cannot verify you (PIN, fingerprint or face), and approvals require it.';
    case 'ERROR_PASSTHROUGH_SEE_CAUSE_PROPERTY':
      // NotAllowedError: cancelled, timed out, or no matching passkey on this device.
      return 'The passkey prompt was cancelled or timed out, or no passkey of yours is on this device. Nothing was sent.';
    default:
      return `The passkey did not answer: ${error?.message ?? String(error)}`;
  }
}

class PasskeyRefused extends Error {
  constructor(message) {
    super(message);
    this.name = 'PasskeyRefused';
  }
}

async function ceremony(rpId, run) {
  const problem = passkeyProblem(rpId);
  if (problem) throw new PasskeyRefused(problem);
  try {
    return await run(webauthn());
  } catch (error) {
    throw new PasskeyRefused(explain(error, rpId));
  }
}

/**
 * Registers a passkey named `name` for the caller: options from the api, the browser makes
 * the credential (user verification required by the options), the api verifies it.
 */
export async function registerPasskey(api, name) {
  const { nonce, options } = await api('POST', '/v1/principals/me/keys/passkey/options');
  const made = await ceremony(options.rp?.id, (lib) =>
    lib.startRegistration({ optionsJSON: options }),
  );
  return api('POST', '/v1/principals/me/keys/passkey/register', {
    name,
    nonce,
    credential: {
      id: made.id,
      raw_id: made.rawId,
      client_data_json: made.response.clientDataJSON,
      attestation_object: made.response.attestationObject,
      transports: made.response.transports ?? [],
    },
  });
}

/**
 * The caller's passkey assertion over a decision, for `approver_assertion`: a challenge from
 * the api (it binds the action, decision, plan and rule), then `navigator.credentials.get`
 * with user verification required. Answers null when the caller has no active passkey: the
 * decision then goes without one and the api's refusal names the rule and how to register.
 */
export async function passkeyAssertion(api, actionId, decision, planDigest) {
  const [challenge, keys] = await Promise.all([
    api('POST', `/v1/external-actions/${actionId}/challenge`, {
      decision,
      plan_digest: planDigest,
    }),
    api('GET', '/v1/principals/me/keys'),
  ]);
  if (challenge.allow_credentials.length === 0) return null;
  const signed = await ceremony(challenge.rp_id, (lib) =>
    lib.startAuthentication({
      optionsJSON: {
        challenge: challenge.webauthn_challenge,
        rpId: challenge.rp_id,
        allowCredentials: challenge.allow_credentials,
        userVerification: 'required',
        timeout: 120_000,
      },
    }),
  );
  // The api names keys by key id; a passkey's fingerprint is its credential id.
  const key = keys.items.find(
    (k) => k.kind === 'passkey' && k.status === 'active' && k.fingerprint === signed.id,
  );
  if (!key) throw new PasskeyRefused('The passkey that answered is not one of your active keys.');
  const { authenticatorData, clientDataJSON, signature, userHandle } = signed.response;
  return {
    key_id: key.key_id,
    nonce: challenge.nonce,
    expires_at: challenge.expires_at,
    webauthn: {
      credential_id: signed.id,
      authenticator_data: authenticatorData,
      client_data_json: clientDataJSON,
      signature,
      ...(userHandle ? { user_handle: userHandle } : {}),
    },
  };
}
