/**
 * A bench api's port, shifted like the servers' ports by BENCH_PORT_BASE, so two checkouts
 * (or a before/after comparison) can bench at the same time without taking each other's ports.
 */
export function benchPort(port: number): number {
  return port + Number(process.env['BENCH_PORT_BASE'] ?? 0);
}
