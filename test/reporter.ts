/**
 * Mocha's spec reporter plus one plain closing line, `N passed, N failed`
 * (`, N skipped` when any), that any CI can read.
 */
import Mocha from 'mocha';

const { Spec } = Mocha.reporters;
const { EVENT_RUN_END } = Mocha.Runner.constants;

class SpecWithSummary extends Spec {
  constructor(runner: Mocha.Runner, options?: Mocha.MochaOptions) {
    super(runner, options);
    runner.once(EVENT_RUN_END, () => {
      const s = runner.stats;
      if (!s) return;
      const skipped = s.pending ? `, ${s.pending} skipped` : '';
      process.stdout.write(`${s.passes} passed, ${s.failures} failed${skipped}\n`);
    });
  }
}

export default SpecWithSummary;
