import { generateKeyPairSync, sign } from 'node:crypto';
import { postJson } from './api';
import { percentile, timed } from './stats';

/** `a / b`, to two decimals. */
const ratioOf = (a: number, b: number): number => Math.round((a / b) * 100) / 100;

const SAMPLES = Number(process.env['BENCH_APPROVER_SAMPLES'] ?? 60);

async function proposeOn(baseUrl: string, key: string, channel: string, i: number) {
  const action = await postJson<{ action_id: string; status: string }>(
    baseUrl,
    '/v1/external-actions/propose',
    key,
    {
      action_kind: 'notify',
      target: {},
      parameters: { message: `approver ${i}`, channel },
      bounds: {},
    },
  );
  if (action.status !== 'awaiting_approval') throw new Error(`proposed: ${action.status}`);
  return action.action_id;
}

/**
 * Issue 33's variant of the actions bench: approve p50 of actions under a rule with
 * `require_approver_signature` (the approver's Ed25519 key signs a fresh challenge) against
 * the same actions under no rule, in alternating pairs on the same api and worker. Reported
 * as the approve request alone (what the api adds: a challenge read, a key read, one
 * verification, the challenge's use), the approver's whole round (challenge request, signing,
 * approve), and the execute request (where the worker verifies again before the effect).
 */
export async function approverSignatureVariant(
  baseUrl: string,
  adminKey: string,
  proposer: string,
  approver: string,
) {
  await postJson(baseUrl, '/v1/admin/approval-rules/create', adminKey, {
    name: 'bench: signed by the approver',
    match: { action_kind: 'notify', target_prefix: 'signed-' },
    require_approver_signature: true,
  });
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const { key_id: keyId } = await postJson<{ key_id: string }>(
    baseUrl,
    '/v1/principals/me/keys/register',
    approver,
    { name: 'bench', public_key: publicKey.export({ format: 'pem', type: 'spki' }).toString() },
  );
  const times = {
    plainApprove: [] as number[],
    signedApprove: [] as number[],
    signedRound: [] as number[],
    plainExecute: [] as number[],
    signedExecute: [] as number[],
  };
  const execute = async (id: string) => {
    const done = await postJson<{ status: string }>(
      baseUrl,
      `/v1/external-actions/${id}/execute`,
      approver,
      {},
    );
    if (done.status !== 'executed') throw new Error(`executed: ${done.status}`);
  };
  for (let i = 0; i < SAMPLES + 5; i += 1) {
    const plain = await proposeOn(baseUrl, proposer, 'bench', i);
    const [, plainApprove] = await timed(() =>
      postJson(baseUrl, `/v1/external-actions/${plain}/approve`, approver, {}),
    );
    const [, plainExecute] = await timed(() => execute(plain));
    const signed = await proposeOn(baseUrl, proposer, 'signed-bench', i);
    let approveMs = 0;
    const [, roundMs] = await timed(async () => {
      const challenge = await postJson<{ nonce: string; expires_at: string; message: string }>(
        baseUrl,
        `/v1/external-actions/${signed}/challenge`,
        approver,
        { decision: 'approve' },
      );
      const signature = sign(null, Buffer.from(challenge.message), privateKey).toString('hex');
      const body = {
        approver_assertion: {
          key_id: keyId,
          nonce: challenge.nonce,
          expires_at: challenge.expires_at,
          signature,
        },
      };
      [, approveMs] = await timed(() =>
        postJson(baseUrl, `/v1/external-actions/${signed}/approve`, approver, body),
      );
    });
    const [, signedExecute] = await timed(() => execute(signed));
    if (i < 5) continue; // warm-up
    times.plainApprove.push(plainApprove);
    times.plainExecute.push(plainExecute);
    times.signedApprove.push(approveMs);
    times.signedRound.push(roundMs);
    times.signedExecute.push(signedExecute);
  }
  const p50 = (xs: number[]) => percentile(xs, 50);
  return {
    samples: SAMPLES,
    approveP50Ms: p50(times.plainApprove),
    signedApproveP50Ms: p50(times.signedApprove),
    signedRoundP50Ms: p50(times.signedRound),
    executeP50Ms: p50(times.plainExecute),
    signedExecuteP50Ms: p50(times.signedExecute),
    approveP50Ratio: ratioOf(p50(times.signedApprove), p50(times.plainApprove)),
    roundP50Ratio: ratioOf(p50(times.signedRound), p50(times.plainApprove)),
    executeP50Ratio: ratioOf(p50(times.signedExecute), p50(times.plainExecute)),
  };
}
