/** Prints the table of bench/results.json once the bench has run (in the main process, unprefixed). */
import { existsSync, readFileSync } from 'node:fs';
import { RESULTS_FILE, table, type Results } from './lib.js';

export default function setup(): () => void {
  const started = Date.now();
  return () => {
    if (!existsSync(RESULTS_FILE)) return;
    const results = JSON.parse(readFileSync(RESULTS_FILE, 'utf8')) as Results;
    if (Date.parse(results.machine.date) < started) {
      console.log('\nbench: no new results were written (see the errors above)');
      return;
    }
    const m = results.machine;
    console.log(`\ndatamodel-ci bench: Node ${m.node}, ${m.cpus} CPU(s) (${m.cpuModel}), ${m.date}\n`);
    console.log(table(results));
    const missed = results.figures.filter((f) => !f.met);
    console.log(
      `\n${results.figures.length - missed.length} of ${results.figures.length} figures meet their target${missed.length ? `; not met: ${missed.map((f) => f.id).join(', ')}` : ''}`,
    );
    console.log(`written to ${RESULTS_FILE}\n`);
  };
}
