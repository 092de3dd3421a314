import {
  canonicalRule,
  parseElementaryRule,
  parseLifeRule,
  RuleError,
} from '../../../../src/domain/substrates/engine';

const counts = (...ns: number[]) => Array.from({ length: 9 }, (_, n) => ns.includes(n));

describe('life rules (B/S notation)', () => {
  it('reads B3/S23 into birth and survival tables', () => {
    expect(parseLifeRule('B3/S23')).toEqual({
      birth: counts(3),
      survive: counts(2, 3),
      text: 'B3/S23',
    });
  });

  it.each([
    ['B36/S23', 'B36/S23'],
    ['b63/s32', 'B36/S23'],
    ['  B2/S  ', 'B2/S'],
    ['B/S', 'B/S'],
    ['B3S23', 'B3/S23'],
    ['B8765/S0', 'B5678/S0'],
    ['B012345678/S876543210', 'B012345678/S012345678'],
  ])('canonicalises %j as %j', (text, canonical) => {
    expect(parseLifeRule(text).text).toBe(canonical);
  });

  it.each([
    ['', /empty/],
    ['S23/B3', /B\/S notation/],
    ['23/3', /B\/S notation/],
    ['B9/S23', /9 in the birth \(B\) list is out of range 0\.\.8/],
    ['B3/S239', /9 in the survival \(S\) list is out of range/],
    ['B33/S23', /3 appears twice in the birth \(B\) list/],
    ['B3/S223', /2 appears twice in the survival \(S\) list/],
    ['B3x/S23', /"X" in the birth \(B\) list is not a digit/],
    ['B3/S2 3', /" " in the survival \(S\) list is not a digit/],
  ])('rejects %j naming the problem', (text, message) => {
    expect(() => parseLifeRule(text)).toThrow(RuleError);
    expect(() => parseLifeRule(text)).toThrow(message);
  });
});

describe('elementary rules', () => {
  it.each([
    [0, 'W0'],
    [30, 'W30'],
    [255, 'W255'],
    ['110', 'W110'],
    ['w90', 'W90'],
    [' W184 ', 'W184'],
  ])('canonicalises %j as %j', (rule, text) => {
    expect(parseElementaryRule(rule).text).toBe(text);
  });

  it.each([256, -1, 3.5, NaN, '256', 'rule 30', 'W', ''])('rejects %j', (rule) => {
    expect(() => parseElementaryRule(rule)).toThrow(RuleError);
  });

  it('canonicalRule dispatches on the scaffold', () => {
    expect(canonicalRule('elementary-1d', 30)).toBe('W30');
    expect(canonicalRule('life-lattice', 'b3/s32')).toBe('B3/S23');
    expect(() => canonicalRule('life-lattice', 30)).toThrow(/B\/S text/);
  });
});
