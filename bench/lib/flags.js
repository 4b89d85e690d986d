// Command-line flags of the benchmark scripts: `--help` prints the usage, a flag the script does
// not know prints the problem and the usage (exit 2) instead of a stack trace.
import { parseArgs } from 'node:util';

/** The flags' values (parseArgs `options`, `--help` added), or the process ends. */
export function parseFlags(options, usage) {
  let values;
  try {
    ({ values } = parseArgs({ options: { ...options, help: { type: 'boolean', default: false } } }));
  } catch (err) {
    process.stderr.write(`${err.message}\n${usage}`);
    process.exit(2);
  }
  if (values.help) {
    process.stdout.write(usage);
    process.exit(0);
  }
  return values;
}
