import type { Style } from './output';
import type { WhoAmI } from './types';

/** `gr keys whoami` for people: who, in which organization, with which key and reach. */
export function whoAmILines(me: WhoAmI, url: string, style: Style): string[] {
  const { key, principal, organization, access, limits } = me;
  return [
    `${style.bold(principal.name)} <${principal.email}> (${principal.principal_id}, ${principal.role})`,
    `  organization  ${organization.name} (${organization.organization_id})`,
    `  key           ${key.key_id}${key.label ? ` "${key.label}"` : ''} ${style.status(key.status)}, ${access.entitlement}, ${access.access_layer}${key.expires_at ? `, expires ${key.expires_at}` : ''}`,
    `  limits        ${limits.requests_per_minute}/min, ${limits.daily_quota}/day`,
    `  families      ${access.families.join(', ')}`,
    `  service       ${url}`,
    `  temporal      ${me.links.temporal_ui}`,
  ];
}
