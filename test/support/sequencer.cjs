// Runs the files that prove parallel isolation first, so they start together on two
// workers; everything else keeps jest's own order (slowest and failed first).
const Sequencer = require('@jest/test-sequencer').default;

const FIRST = /test[\\/]harness[\\/]parallel-/;

class PlatformSequencer extends Sequencer {
  sort(tests) {
    const sorted = super.sort(tests);
    return [
      ...sorted.filter((t) => FIRST.test(t.path)),
      ...sorted.filter((t) => !FIRST.test(t.path)),
    ];
  }
}

module.exports = PlatformSequencer;
