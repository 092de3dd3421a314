import type { SubstrateSpecRequest } from './schemas';
import type { NormalizedSpec } from '../../store/substrate-deployments.repo';
import { parseLifeRule, parsePattern, canonicalRule } from './engine';
import { envelopeRegistry, scaffoldRegistry } from './registry/registry';
import type { Envelope } from './registry/envelopes';

/** One way a spec breaks its scaffold or envelope. */
export interface SpecViolation {
  /** The field at fault, e.g. `params.width`. */
  path: string;
  /** The bound or rule broken, e.g. `max_width`. */
  rule: string;
  message: string;
}

export interface SpecVerdict {
  valid: boolean;
  violations: SpecViolation[];
  envelope_id: string;
  /** The spec with defaults filled in; present when valid. */
  normalized_spec?: NormalizedSpec;
}

const errorMessage = (error: unknown): string =>
  error instanceof Error ? error.message : String(error);

/**
 * Judges a (schema-valid) spec against its scaffold and envelope, naming every violation
 * rather than stopping at the first, and normalizes it: `height` defaults to `width` (1 for
 * `elementary-1d`), `density` to 0.5 with a seed, and the rule is put in canonical form.
 */
export function validateSpec(spec: SubstrateSpecRequest): SpecVerdict {
  const scaffold = scaffoldRegistry.get(spec.scaffold);
  const envelopeId = spec.envelope ?? scaffold.default_envelope;
  const violations: SpecViolation[] = [];
  const violate = (path: string, rule: string, message: string) =>
    violations.push({ path, rule, message });
  const envelope = envelopeRegistry.find(envelopeId);
  if (!envelope) {
    violate('envelope', 'known_envelope', `unknown envelope ${envelopeId}`);
  } else if (!envelope.scaffolds.includes(spec.scaffold)) {
    violate(
      'envelope',
      'scaffold_allowed',
      `envelope ${envelopeId} is for ${envelope.scaffolds.join(', ')}, not ${spec.scaffold}`,
    );
  }

  const { params } = spec;
  const lattice = spec.scaffold === 'life-lattice';
  const height = lattice ? (params.height ?? params.width) : 1;
  if (!lattice && params.height !== undefined && params.height !== 1) {
    violate('params.height', 'one_row', 'an elementary-1d substrate has exactly one row');
  }
  const rule = checkRule(spec, violate);
  checkStart(spec, height, violate);
  if (envelope) checkBounds(envelope, { ...params, height }, rule, violate);

  if (violations.length > 0) return { valid: false, violations, envelope_id: envelopeId };
  const normalized: NormalizedSpec = {
    scaffold: spec.scaffold,
    envelope: envelopeId,
    params: {
      width: params.width,
      height,
      rule: lattice ? rule! : Number(params.rule),
      ticks: params.ticks,
      ...(params.seed !== undefined ? { seed: params.seed, density: params.density ?? 0.5 } : {}),
      ...(params.pattern !== undefined ? { pattern: params.pattern } : {}),
    },
  };
  return { valid: true, violations, envelope_id: envelopeId, normalized_spec: normalized };
}

type Violate = (path: string, rule: string, message: string) => void;

/** The canonical rule (`B3/S23`, `W110`), or undefined after naming what is wrong. */
function checkRule(spec: SubstrateSpecRequest, violate: Violate): string | undefined {
  const { rule } = spec.params;
  if (spec.scaffold === 'life-lattice') {
    if (typeof rule !== 'string') {
      violate('params.rule', 'rule_type', 'life-lattice takes a B/S rule such as `B3/S23`');
      return undefined;
    }
    try {
      return parseLifeRule(rule).text;
    } catch (error) {
      violate('params.rule', 'rule_syntax', errorMessage(error));
      return undefined;
    }
  }
  if (typeof rule !== 'number') {
    violate('params.rule', 'rule_type', 'elementary-1d takes a Wolfram rule number 0..255');
    return undefined;
  }
  return canonicalRule('elementary-1d', rule);
}

function checkStart(spec: SubstrateSpecRequest, height: number, violate: Violate): void {
  const { seed, pattern, density, width } = spec.params;
  if (seed === undefined && pattern === undefined) {
    violate('params', 'start', 'give `seed` (a random start) or `pattern` (an explicit one)');
  }
  if (seed !== undefined && pattern !== undefined) {
    violate('params.pattern', 'one_start', 'give `seed` or `pattern`, not both');
  }
  if (density !== undefined && seed === undefined) {
    violate('params.density', 'density_needs_seed', '`density` applies to a random start only');
  }
  if (pattern === undefined) return;
  try {
    const parsed = parsePattern(pattern);
    if (parsed.width > width || parsed.height > height) {
      violate(
        'params.pattern',
        'pattern_fits',
        `the pattern is ${parsed.width} x ${parsed.height}, the substrate ${width} x ${height}`,
      );
    }
  } catch (error) {
    violate('params.pattern', 'pattern_syntax', errorMessage(error));
  }
}

function checkBounds(
  envelope: Envelope,
  params: { width: number; height: number; ticks: number },
  rule: string | undefined,
  violate: Violate,
): void {
  const over = (path: string, bound: keyof Envelope, value: number, max: number) => {
    if (value > max) {
      violate(path, bound, `${value} exceeds ${bound} ${max} of envelope ${envelope.envelope_id}`);
    }
  };
  over('params.width', 'max_width', params.width, envelope.max_width);
  over('params.height', 'max_height', params.height, envelope.max_height);
  over('params.ticks', 'max_ticks', params.ticks, envelope.max_ticks);
  if (rule && envelope.allowed_rules.length > 0 && !envelope.allowed_rules.includes(rule)) {
    violate(
      'params.rule',
      'allowed_rules',
      `rule ${rule} is not allowed by envelope ${envelope.envelope_id} (allowed: ${envelope.allowed_rules.join(', ')})`,
    );
  }
}
