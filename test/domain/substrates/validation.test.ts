import type { SubstrateSpecRequest } from '../../../src/domain/substrates/schemas';
import { validateSpec } from '../../../src/domain/substrates/validation';

// The spec judge on its own (docs/substrates.md, "Validate and compile"): every rule it
// names, and the defaults it fills in.

type Params = Partial<SubstrateSpecRequest['params']>;

const spec = (
  over: Partial<Omit<SubstrateSpecRequest, 'params'>> & { params?: Params },
): SubstrateSpecRequest => ({
  scaffold: 'life-lattice',
  ...over,
  params: { width: 64, rule: 'B3/S23', ticks: 100, seed: 7, ...over.params },
});

const rules = (input: SubstrateSpecRequest) =>
  validateSpec(input).violations.map((v) => `${v.path} ${v.rule}`);

describe('validateSpec', () => {
  it('normalizes a valid lattice: default envelope, height = width, density 0.5, canonical rule', () => {
    const verdict = validateSpec(spec({ params: { rule: 'b3/s32' } }));
    expect(verdict).toMatchObject({ valid: true, violations: [], envelope_id: 'lattice-standard' });
    expect(verdict.normalized_spec).toEqual({
      scaffold: 'life-lattice',
      envelope: 'lattice-standard',
      params: { width: 64, height: 64, rule: 'B3/S23', ticks: 100, seed: 7, density: 0.5 },
    });
  });

  it('gives an elementary substrate one row and its rule number', () => {
    const verdict = validateSpec(
      spec({ scaffold: 'elementary-1d', params: { width: 200, rule: 110 } }),
    );
    expect(verdict.valid).toBe(true);
    expect(verdict.normalized_spec?.params).toMatchObject({ width: 200, height: 1, rule: 110 });
  });

  it('names every violation at once, not only the first', () => {
    const input = spec({
      envelope: 'conway-classroom',
      params: { width: 300, ticks: 20_000, rule: 'B36/S23', pattern: 'o!', density: 0.2 },
    });
    expect(rules(input)).toEqual([
      'params.pattern one_start',
      'params.width max_width',
      'params.height max_height',
      'params.ticks max_ticks',
      'params.rule allowed_rules',
    ]);
  });

  it('names an unknown envelope and one meant for another scaffold', () => {
    expect(rules(spec({ envelope: 'nowhere' }))).toEqual(['envelope known_envelope']);
    // Its bounds still apply, so the answer names everything to change at once.
    expect(rules(spec({ envelope: 'elementary-standard' }))).toEqual([
      'envelope scaffold_allowed',
      'params.height max_height',
    ]);
  });

  it('names rules of the wrong kind or syntax', () => {
    expect(rules(spec({ params: { rule: 30 } }))).toEqual(['params.rule rule_type']);
    expect(rules(spec({ params: { rule: 'B9/S23' } }))).toEqual(['params.rule rule_syntax']);
    expect(rules(spec({ scaffold: 'elementary-1d', params: { rule: 'B3/S23' } }))).toEqual([
      'params.rule rule_type',
    ]);
  });

  it('asks for exactly one start, and density only with a seed', () => {
    expect(rules(spec({ params: { seed: undefined } }))).toEqual(['params start']);
    expect(
      rules(spec({ params: { seed: undefined, pattern: 'bo$2bo$3o!', density: 0.3 } })),
    ).toEqual(['params.density density_needs_seed']);
  });

  it('names a pattern that does not parse or does not fit', () => {
    expect(rules(spec({ params: { seed: undefined, pattern: 'zz!' } }))).toEqual([
      'params.pattern pattern_syntax',
    ]);
    expect(rules(spec({ params: { width: 2, seed: undefined, pattern: 'bo$2bo$3o!' } }))).toEqual([
      'params.pattern pattern_fits',
    ]);
  });

  it('keeps an elementary substrate to one row', () => {
    expect(rules(spec({ scaffold: 'elementary-1d', params: { rule: 90, height: 3 } }))).toEqual([
      'params.height one_row',
    ]);
  });
});
