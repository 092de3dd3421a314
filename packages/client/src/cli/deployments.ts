import type { Command } from 'commander';
import { deploymentDetails, deploymentTable, progressLine } from './deployment-view';
import { UnwantedEndError } from './fail';
import { pollUntilDone } from './poll';
import {
  countFlag,
  firstItems,
  openSession,
  watchTiming,
  withCommonOptions,
  withWatchOptions,
  type CommonFlags,
  type Session,
  type WatchFlags,
} from './session';
import { namesFor } from './names';
import { FINAL_DEPLOYMENT_STATUSES, type Deployment } from './types';

interface ListFlags extends CommonFlags {
  stage?: string;
  limit?: string;
}
/** `gr deployments …`: list, show, watch (a progress bar through the stages). */
export function registerDeploymentCommands(program: Command): void {
  const deployments = program.command('deployments').description('substrate deployments');

  withCommonOptions(deployments.command('list'))
    .description('deployments, newest first')
    .option('--stage <stage>', 'only those in this stage (deploying, ready, failed, …)')
    .option('--limit <n>', 'at most this many (default 50)')
    .action(async (flags: ListFlags) => {
      const session = openSession(flags);
      const limit = countFlag('--limit', flags.limit, 50);
      const query = {
        limit: Math.min(limit, 500),
        ...(flags.stage ? { stage: flags.stage as Deployment['stage'] } : {}),
      };
      const found = await firstItems(
        session.client.paginate('/v1/substrates/deployments', { query }),
        limit,
      );
      const { out } = session;
      if (out.json) return out.data(found);
      if (found.length === 0) return out.line('no deployments');
      const principals = found.flatMap((d) => (d.created_by ? [d.created_by] : []));
      const names = await namesFor(session.client, { principals });
      for (const line of deploymentTable(found, out.style, names)) out.line(line);
    });

  withCommonOptions(deployments.command('show').argument('<deployment_id>'))
    .description('one deployment: who created it, progress, stages, outcome, Temporal link')
    .action(async (id: string, flags: CommonFlags) => {
      const session = openSession(flags);
      const deployment = await readDeployment(session, id);
      if (session.out.json) return session.out.data(deployment);
      const creator = deployment.created_by ? [deployment.created_by] : [];
      const names = await namesFor(session.client, { principals: creator });
      for (const line of deploymentDetails(deployment, session.out.style, Date.now(), names)) {
        session.out.line(line);
      }
    });

  withWatchOptions(withCommonOptions(deployments.command('watch').argument('<deployment_id>')))
    .description('a progress bar until the deployment ends (exit 0 ready, 3 failed or cancelled)')
    .action(async (id: string, flags: WatchFlags) => {
      const session = openSession(flags);
      const { out } = session;
      const deployment = await pollUntilDone({
        read: () => readDeployment(session, id),
        done: (d) => FINAL_DEPLOYMENT_STATUSES.has(d.status),
        key: (d) => `${d.stage} ${d.progress.tick}`,
        onChange: (d) => {
          if (!out.json) out.redraw(progressLine(d, out.style));
        },
        ...watchTiming(flags),
        label: `deployment ${id}`,
      });
      if (out.json) out.data(deployment);
      else out.line(`${deployment.deployment_id} ${out.style.status(deployment.status)}`);
      if (deployment.status !== 'ready') {
        throw new UnwantedEndError(
          `deployment ${id} ended ${deployment.status}${deployment.error ? `: ${deployment.error}` : ''}`,
        );
      }
    });
}

async function readDeployment(session: Session, id: string): Promise<Deployment> {
  const { data } = await session.client.GET('/v1/substrates/deployments/{deployment_id}', {
    params: { path: { deployment_id: id } },
  });
  return data!.payload;
}
