import { createSubstrate, type EngineParams } from '../../../src/domain/substrates/engine';
import { createStepper, type Stepper } from '../../../src/domain/substrates/stepper';

// The api steps the engine for observe/recognize/render; 0.2 s of that on its event loop
// stalled every other request (issue 10, risk 4), so the api does it on a thread pool.
const params: EngineParams = { width: 512, height: 512, rule: 'B3/S23', seed: 7, density: 0.3 };

let pooled: Stepper;
beforeAll(() => {
  pooled = createStepper({ threads: 1 });
});
afterAll(async () => {
  await pooled.close();
});

describe('the engine stepper', () => {
  it('steps on a pool thread to the same state as inline stepping', async () => {
    const expected = createSubstrate('life-lattice', params);
    expected.step(40);
    const before = pooled.offloaded();
    const stepped = await pooled.advance(createSubstrate('life-lattice', params), params, 40);
    expect(pooled.offloaded()).toBe(before + 1);
    expect(stepped.tick).toBe(40);
    expect(stepped.digest()).toBe(expected.digest());
  });

  it('keeps the event loop turning while it steps', async () => {
    const turns = async (stepper: Stepper) => {
      const order: string[] = [];
      const state = createSubstrate('life-lattice', params);
      setImmediate(() => order.push('event loop turned'));
      await stepper.advance(state, params, 200).then(() => order.push('stepped'));
      await new Promise((resolve) => setImmediate(resolve));
      return order;
    };
    expect(await turns(pooled)).toEqual(['event loop turned', 'stepped']);
    // Inline, nothing else runs until the stepping is done.
    expect(await turns(createStepper({ threads: 0 }))).toEqual(['stepped', 'event loop turned']);
  });

  it('does nothing on a thread when there is nothing to step', async () => {
    const before = pooled.offloaded();
    const state = createSubstrate('life-lattice', params);
    expect(await pooled.advance(state, params, 0)).toBe(state);
    expect(pooled.offloaded()).toBe(before);
  });
});
