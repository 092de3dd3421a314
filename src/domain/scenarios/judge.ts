import stringify from 'safe-stable-stringify';
import type { Observations } from './drivers';
import { scenarioNamed, type ScenarioParams } from './registry';
import type { ScenarioName } from './schemas';

export interface ScenarioCheck {
  name: string;
  expected: unknown;
  observed: unknown;
  passed: boolean;
}

const same = (a: unknown, b: unknown): boolean => stringify(a) === stringify(b);

/**
 * Judges observations against the scenario's known outcome for these parameters (or the
 * caller's `expect`, value by value): each expected observation must be present and equal
 * (JSON equality, key order aside).
 */
export function judge(
  scenario: ScenarioName,
  params: ScenarioParams,
  observations: Observations,
): { passed: boolean; checks: ScenarioCheck[] } {
  const expected = { ...scenarioNamed(scenario).expectedValues(params), ...(params.expect ?? {}) };
  const checks = Object.entries(expected).map(([name, value]) => {
    const observed = name in observations ? observations[name] : null;
    return { name, expected: value, observed, passed: same(value, observed) };
  });
  return { passed: checks.every((check) => check.passed), checks };
}

const cell = (value: unknown): string =>
  `\`${(stringify(value) ?? 'null').replace(/\|/g, '\\|').replace(/`/g, "'")}\``;

/** The Markdown report of a judged run. */
export function reportMarkdown(report: {
  run_id: string;
  scenario: ScenarioName;
  status: string;
  params: ScenarioParams;
  checks: ScenarioCheck[];
  observations: Observations;
  judged_at: string;
}): string {
  const definition = scenarioNamed(report.scenario);
  return [
    `# Scenario \`${report.scenario}\`: ${report.status}`,
    '',
    `Run \`${report.run_id}\`, judged ${report.judged_at}, in shared context \`scenario:${report.run_id}\`.`,
    '',
    definition.summary,
    '',
    `**Expected.** ${definition.expected}`,
    '',
    `**Parameters.** ${cell(report.params)}`,
    '',
    '| check | expected | observed | |',
    '| --- | --- | --- | --- |',
    ...report.checks.map(
      (check) =>
        `| ${check.name} | ${cell(check.expected)} | ${cell(check.observed)} | ${check.passed ? 'passed' : '**failed**'} |`,
    ),
    '',
    '## Observations',
    '',
    '```json',
    JSON.stringify(report.observations, null, 2),
    '```',
    '',
  ].join('\n');
}
