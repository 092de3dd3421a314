import type { AppDeps } from '../../app/deps';
import type { Gate } from './gate';

/** 401 unless `X-API-Key` holds a valid, active key. */
export function authenticateGate(deps: Pick<AppDeps, 'authenticator'>): Gate {
  const { authenticator } = deps;
  return (ctx) => {
    const auth = authenticator.resolve(ctx.get('X-API-Key') || undefined);
    if (auth instanceof Promise) {
      return auth.then((resolved) => {
        ctx.state.auth = resolved;
      });
    }
    ctx.state.auth = auth;
    return undefined;
  };
}
