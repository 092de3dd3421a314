/** What the service probe workflow (health: one activity round trip) is started with. */
export interface ServiceProbeInput {
  requestedAt: string;
}

export interface ServiceProbeResult {
  requestedAt: string;
  /** When the activity ran on a worker. */
  activityAt: string;
  workerIdentity: string;
}
