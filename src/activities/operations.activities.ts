/** Activities of the service probe: report which worker ran it, and when. */
export function createProbeActivities(deps: { workerIdentity: string }) {
  return {
    async probeWorker(): Promise<{ activityAt: string; workerIdentity: string }> {
      return { activityAt: new Date().toISOString(), workerIdentity: deps.workerIdentity };
    },
  };
}
