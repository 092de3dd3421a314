import { createInterface } from 'node:readline/promises';

/**
 * Asks a yes/no question when a person is at a terminal (stdin and stdout both TTYs);
 * answers undefined when nobody can be asked (piped, in a script), which callers take as yes.
 */
export async function confirm(question: string): Promise<boolean | undefined> {
  if (!process.stdin.isTTY || !process.stdout.isTTY) return undefined;
  const prompt = createInterface({ input: process.stdin, output: process.stdout });
  try {
    const answer = await prompt.question(`${question} [y/N] `);
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    prompt.close();
  }
}
