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

/** The probe's signature: clients start it by this type. */
export type ServiceProbeWorkflow = (input: ServiceProbeInput) => Promise<ServiceProbeResult>;
