import { deploymentFraction, progressLine } from '../../../packages/client/src/cli/deployment-view';
import {
  colourWanted,
  createOutput,
  makeStyle,
  table,
} from '../../../packages/client/src/cli/output';
import type { Deployment } from '../../../packages/client/src/cli/types';

// What people see: colour only on a terminal that wants it, aligned tables, the stage bar.

const sink = (isTTY: boolean) => {
  const written: string[] = [];
  return { isTTY, written, write: (text: string) => written.push(text) > 0 };
};

describe('colour', () => {
  it('only on a terminal, and not with NO_COLOR or TERM=dumb', () => {
    expect(colourWanted(sink(true), {})).toBe(true);
    expect(colourWanted(sink(false), {})).toBe(false);
    expect(colourWanted(sink(true), { NO_COLOR: '1' })).toBe(false);
    expect(colourWanted(sink(true), { TERM: 'dumb' })).toBe(false);
    expect(makeStyle(true).status('executed')).toBe('\u001b[32mexecuted\u001b[0m');
    expect(makeStyle(true).status('rejected')).toBe('\u001b[31mrejected\u001b[0m');
    expect(makeStyle(false).status('executed')).toBe('executed');
  });

  it('never in --json output, and notes go to stderr', () => {
    const stdout = sink(true);
    const stderr = sink(true);
    const out = createOutput(true, stdout, stderr, {});
    expect(out.style.bold('x')).toBe('x');
    out.data({ a: 1 });
    out.note('working');
    expect(stdout.written.join('')).toBe('{\n  "a": 1\n}\n');
    expect(stderr.written.join('')).toBe('working\n');
  });
});

it('aligns table columns by visible width, colour codes aside', () => {
  const style = makeStyle(true);
  expect(
    table(
      ['ID', 'STATUS', 'NOTE'],
      [
        ['a', style.status('executed'), 'x'],
        ['bbbb', 'failed', 'y'],
      ],
    ).map((line) => line.split('\u001b[32m').join('').split('\u001b[0m').join('')),
  ).toEqual(['ID    STATUS    NOTE', 'a     executed  x', 'bbbb  failed    y']);
});

describe('deployment progress', () => {
  const at = (stage: string, tick: number, ticks_total = 100) =>
    ({ stage, progress: { tick, ticks_total }, status: 'running' }) as unknown as Deployment;

  it('fills a share per stage, the deploying stage by ticks', () => {
    expect(deploymentFraction(at('validating', 0))).toBe(0);
    expect(deploymentFraction(at('deploying', 50))).toBeCloseTo(0.5);
    expect(deploymentFraction(at('observing', 100))).toBeCloseTo(0.6);
    expect(deploymentFraction(at('ready', 100))).toBe(1);
    expect(deploymentFraction(at('failed', 30))).toBe(0);
  });

  it('draws the bar with the stage and ticks', () => {
    expect(progressLine(at('deploying', 50), makeStyle(false), 10)).toBe(
      '[█████░░░░░] deploying (3/6) tick 50/100',
    );
  });
});
