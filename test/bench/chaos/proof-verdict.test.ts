import { checksNotPassed, proofMaxRecords } from '../../../bench/chaos/proof-verdict';

describe("the chaos run's proof verdict", () => {
  it('names each check that did not pass by its name and status, inconclusive included', () => {
    const results = [
      { name: 'action_ledger_chain', status: 'passed' },
      { name: 'event_ledger_chain', status: 'inconclusive' },
      { name: 'approver_signatures', status: 'failed' },
    ];
    expect(checksNotPassed(results)).toEqual([
      'event_ledger_chain (inconclusive)',
      'approver_signatures (failed)',
    ]);
    expect(checksNotPassed(results.slice(0, 1))).toEqual([]);
  });

  it("sizes each check's bound to what the run stored, within the route's maximum", () => {
    expect(proofMaxRecords({ events: 10, actions: 5, deployments: 1 })).toBe(10_000);
    // The run the bound once left inconclusive: 10,446 events against the default 10,000.
    expect(proofMaxRecords({ events: 10_446, actions: 576, deployments: 55 })).toBeGreaterThan(
      10_446,
    );
    expect(proofMaxRecords({ events: 1_000_000, actions: 0, deployments: 0 })).toBe(100_000);
  });
});
