import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** What every suite gets from the runner. */
export interface BenchContext {
  distDir: string;
  logDir: string;
  /** Where the servers script keeps the bench servers' pid files (`run/`) and data. */
  serversDataDir: string;
  mongoBaseUri: string;
  temporalAddress: string;
  connections: number;
  durationSeconds: number;
  warmupSeconds: number;
  rounds: number;
}

export interface BenchReport {
  suite: string;
  description: string;
  results: Record<string, Record<string, number>>;
  ratios: Record<string, number>;
  /** Other figures of the run that are not ratios against the baseline. */
  figures?: Record<string, number | string>;
  targets: { name: string; met: boolean }[];
  /** Further tables, each under its own heading, after the main one. */
  sections?: {
    title: string;
    /** A line under the title, saying what the table's rows and columns are. */
    note?: string;
    /** The first column's heading (default `run`). */
    key?: string;
    results: Record<string, Record<string, number | string>>;
  }[];
}

/** A Markdown table: one row per run, one column per figure any run has. */
function tableOf(results: Record<string, Record<string, number | string>>, key = 'run'): string[] {
  const columns = [...new Set(Object.values(results).flatMap((r) => Object.keys(r)))];
  return [
    `| ${key} | ${columns.join(' | ')} |`,
    `| --- | ${columns.map(() => '---').join(' | ')} |`,
    ...Object.entries(results).map(
      ([name, r]) => `| ${name} | ${columns.map((c) => r[c] ?? '').join(' | ')} |`,
    ),
  ];
}

/** Writes `<suite>.json` and `<suite>.md` under bench/results/ and returns the Markdown. */
export function writeReport(
  dir: string,
  report: BenchReport,
  meta: Record<string, unknown>,
): string {
  mkdirSync(dir, { recursive: true });
  const full = { ...report, meta };
  writeFileSync(join(dir, `${report.suite}.json`), `${JSON.stringify(full, null, 2)}\n`);
  const lines = [
    `# Benchmark: ${report.suite}`,
    '',
    report.description,
    '',
    ...tableOf(report.results),
    '',
    ...(report.sections ?? []).flatMap((section) => [
      `## ${section.title}`,
      '',
      ...(section.note ? [section.note, ''] : []),
      ...tableOf(section.results, section.key),
      '',
    ]),
    `Ratios: ${Object.entries(report.ratios)
      .map(([k, v]) => `${k} ${v}×`)
      .join(', ')}`,
    ...(report.figures
      ? [
          '',
          `Figures: ${Object.entries(report.figures)
            .map(([k, v]) => `${k} ${v}`)
            .join(', ')}`,
        ]
      : []),
    '',
    ...report.targets.map((t) => `- [${t.met ? 'x' : ' '}] ${t.name}`),
    '',
    `Run: ${Object.entries(meta)
      .map(([k, v]) => `${k}=${String(v)}`)
      .join(', ')}`,
    '',
  ];
  const markdown = lines.join('\n');
  writeFileSync(join(dir, `${report.suite}.md`), markdown);
  return markdown;
}
